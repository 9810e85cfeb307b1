package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random operations on a sorted map and on a {@code TreeMap} side by side: every answer equal,
 * including ranks, positions, sub-map sizes and iteration both ways; and no page lost (pages held
 * by the tree plus free pages are all pages ever used).
 */
class SortedMapModelTest {

    private ChunkPool pool;

    @BeforeEach
    void pool() {
        pool = Ferrite.backend().createPool(PoolSpec.anonymous().chunkSize(64 << 10).capacity(4L << 30).build());
    }

    @AfterEach
    void close() {
        pool.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void randomOperationsAnswerAsATreeMapDoes(long seed) {
        Random r = new Random(seed);
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "model" + seed).create()) {
            NavigableMap<String, String> model = new TreeMap<>();
            int keySpace = seed % 2 == 0 ? 300 : 6000;
            for (int step = 0; step < 40_000; step++) {
                String k = key(r, keySpace);
                switch (r.nextInt(14)) {
                    case 0, 1, 2, 3 -> assertEquals(model.put(k, value(r)), map.put(k, model.get(k)), "put " + k);
                    case 4, 5 -> assertEquals(model.remove(k), map.remove(k), "remove " + k);
                    case 6 -> {
                        String v = value(r);
                        assertEquals(model.putIfAbsent(k, v), map.putIfAbsent(k, v));
                    }
                    case 7 -> assertEquals(model.get(k), map.get(k), "get " + k);
                    case 8 -> {
                        assertEquals(model.ceilingKey(k), map.ceilingKey(k), "ceiling " + k);
                        assertEquals(model.floorKey(k), map.floorKey(k), "floor " + k);
                        assertEquals(model.higherKey(k), map.higherKey(k), "higher " + k);
                        assertEquals(model.lowerKey(k), map.lowerKey(k), "lower " + k);
                    }
                    case 9 -> {
                        assertEquals(model.headMap(k).size(), map.countBelow(k), "rank " + k);
                        String k2 = key(r, keySpace);
                        assertArrayEquals(new long[] {model.headMap(k).size(), model.headMap(k2).size()}, map.countBelow(k, k2),
                                "ranks of " + k + " and " + k2);
                        int i = model.isEmpty() ? 0 : r.nextInt(model.size() + 1);
                        Map.Entry<String, String> e = map.entryAt(i);
                        assertEquals(i == model.size() ? null : new ArrayList<>(model.keySet()).get(i), e == null ? null : e.getKey());
                        List<String> from = new ArrayList<>(model.tailMap(k, true).keySet());
                        int j = from.isEmpty() ? 0 : r.nextInt(from.size() + 1);
                        Map.Entry<String, String> f = map.entryAt(k, j);
                        assertEquals(j == from.size() ? null : from.get(j), f == null ? null : f.getKey(), "entry " + j + " from " + k);
                        String to = r.nextInt(4) == 0 ? null : key(r, keySpace);
                        int max = 1 + r.nextInt(r.nextBoolean() ? 3 : 300);
                        List<String> range = new ArrayList<>((to == null ? model.tailMap(k, true)
                                : k.compareTo(to) <= 0 ? model.subMap(k, true, to, false) : model.subMap(k, true, k, false)).keySet());
                        int at = r.nextInt(range.size() + 2);
                        List<String> expected = range.subList(Math.min(at, range.size()), Math.min(range.size(), at + max));
                        List<String> got = new ArrayList<>();
                        for (Map.Entry<String, String> x : map.entriesAt(k, at, to, max)) {
                            assertEquals(model.get(x.getKey()), x.getValue(), "value of " + x.getKey());
                            got.add(x.getKey());
                        }
                        assertEquals(expected, got, max + " entries at " + at + " from " + k + " below " + to);
                        List<String> values = new ArrayList<>();
                        expected.forEach(x -> values.add(model.get(x)));
                        assertEquals(values, map.valuesAt(k, at, to, max), max + " values at " + at + " from " + k + " below " + to);
                        List<String> head = new ArrayList<>(); // index 0, found by key: the first at or above it
                        map.entriesAt(k, 0, to, max).forEach(x -> head.add(x.getKey()));
                        assertEquals(range.subList(0, Math.min(range.size(), max)), head, max + " entries from " + k + " below " + to);
                        Map.Entry<String, String> c = map.entryAt(k, 0);
                        assertEquals(model.ceilingKey(k), c == null ? null : c.getKey(), "entry 0 from " + k);
                    }
                    case 10 -> {
                        String k2 = key(r, keySpace);
                        String from = k.compareTo(k2) <= 0 ? k : k2;
                        String to = k.compareTo(k2) <= 0 ? k2 : k;
                        boolean fi = r.nextBoolean();
                        boolean ti = r.nextBoolean();
                        assertEquals(model.subMap(from, fi, to, ti).size(), map.subMap(from, fi, to, ti).size());
                        assertEquals(new ArrayList<>(model.subMap(from, fi, to, ti).descendingMap().keySet()),
                                new ArrayList<>(map.subMap(from, fi, to, ti).descendingMap().keySet()));
                    }
                    case 11 -> {
                        if (r.nextInt(20) == 0) {
                            assertEquals(model.pollFirstEntry(), map.pollFirstEntry());
                            assertEquals(model.pollLastEntry(), map.pollLastEntry());
                        }
                    }
                    case 12 -> {
                        if (r.nextBoolean()) {
                            assertEquals(model.merge(k, "+", String::concat), map.merge(k, "+", String::concat));
                        } else { // giving back the value it got leaves the entry (or its absence) as it is
                            int choice = r.nextInt(3);
                            BiFunction<String, String, String> f = (key, old) -> choice == 0 ? old
                                    : choice == 1 ? null : old == null ? "c" : old + "c";
                            assertEquals(model.compute(k, f), map.compute(k, f), "compute " + k);
                            assertEquals(model.get(k), map.get(k), "get after compute " + k);
                        }
                    }
                    default -> {
                        if (r.nextInt(200) == 0) {
                            assertEquals(model, map);
                            assertEquals(new ArrayList<>(model.descendingMap().entrySet()), new ArrayList<>(map.descendingMap().entrySet()));
                            assertNoPageLost(map);
                        }
                        if (r.nextInt(2000) == 0) {
                            model.clear();
                            map.clear();
                        }
                    }
                }
                assertEquals(model.size(), map.size());
            }
            assertEquals(model, map);
            removeThroughIterator(map, model, r);
            assertNoPageLost(map);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2})
    void ranksPositionsAndRangeSizesInATreeOfThreeLevelsAnswerAsATreeMapDoes(long seed) {
        // 4 KiB pages and 100-byte values: some 2,000 leaves under branches under the root, so the
        // two bounds of a range part at every level, and in one leaf for short ranges; a rank or a
        // position in the second half of a branch below the root is counted from its end.
        Random r = new Random(seed);
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "deep" + seed).pageSize(4096).create()) {
            NavigableMap<String, String> model = new TreeMap<>();
            for (int i = 0; i < 60_000; i++) {
                String k = String.format("k%07d", r.nextInt(10_000_000));
                String v = "v".repeat(100);
                model.put(k, v);
                map.put(k, v);
            }
            for (int i = 0; i < 2_000; i++) {
                String k = model.ceilingKey(String.format("k%07d", r.nextInt(10_000_000)));
                if (k != null) {
                    model.remove(k);
                    map.remove(k);
                }
            }
            List<String> keys = new ArrayList<>(model.keySet()); // counted by binary search: a TreeMap view counts by walking
            for (int i = 0; i < 3_000; i++) {
                String a = String.format("k%07d", r.nextInt(10_000_000));
                String b = i % 3 == 0 ? String.format("k%07d", Integer.parseInt(a.substring(1)) + r.nextInt(2_000))
                        : String.format("k%07d", r.nextInt(10_000_000));
                if (r.nextBoolean()) { // a key of the map as a bound, so that inclusiveness matters
                    a = model.ceilingKey(a) == null ? a : model.ceilingKey(a);
                }
                if (a.compareTo(b) > 0) {
                    String t = a;
                    a = b;
                    b = t;
                }
                boolean ai = r.nextBoolean();
                boolean bi = r.nextBoolean();
                int from = below(keys, a, !ai);
                int to = below(keys, b, bi);
                assertEquals(Math.max(0, to - from), map.subMap(a, ai, b, bi).size(), a + " " + ai + " " + b + " " + bi);
                assertEquals(to, map.headMap(b, bi).size(), "below " + b);
                assertEquals(keys.size() - from, map.tailMap(a, ai).size(), "from " + a);
                int p = r.nextInt(keys.size() + 1); // the last: past the end
                Map.Entry<String, String> e = map.entryAt(p);
                assertEquals(p == keys.size() ? null : keys.get(p), e == null ? null : e.getKey(), "entry at " + p);
                if (p < keys.size()) {
                    assertEquals(p, map.countBelow(keys.get(p)), "rank of " + keys.get(p));
                }
                int atOrAbove = below(keys, a, false);
                int j = r.nextInt(keys.size() - atOrAbove + 1);
                Map.Entry<String, String> f = map.entryAt(a, j);
                String expected = atOrAbove + j == keys.size() ? null : keys.get(atOrAbove + j);
                assertEquals(expected, f == null ? null : f.getKey(), "entry " + j + " from " + a);
                int max = 1 + r.nextInt(i % 2 == 0 ? 100 : 2_000); // within a leaf, and across several
                int end = below(keys, b, false);
                int first = Math.min(atOrAbove + j, Math.max(atOrAbove, end));
                List<String> page = keys.subList(first, Math.max(first, Math.min(end, first + max)));
                List<String> got = new ArrayList<>();
                map.entriesAt(a, j, b, max).forEach(x -> got.add(x.getKey()));
                assertEquals(page, got, max + " entries at " + j + " from " + a + " below " + b);
                List<String> values = new ArrayList<>();
                map.entriesAt(a, j, b, max).forEach(x -> values.add(x.getValue()));
                assertEquals(values, map.valuesAt(a, j, b, max), max + " values at " + j + " from " + a + " below " + b);
            }
        }
    }

    /** Runs of keys added in order, up and down, between other keys: the splits that keep pages full. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void runsOfKeysInOrderAnswerAsATreeMapDoes(long seed) {
        Random r = new Random(seed);
        try (FerriteSortedMap<Long, String> map = FerriteSortedMap.builder(Codec.int64Ordered(), Codec.utf8())
                .pool(pool, "runs" + seed).create()) {
            NavigableMap<Long, String> model = new TreeMap<>();
            for (int run = 0; run < 300; run++) {
                long k = r.nextInt(1 << 20) - (1 << 19);
                long step = (r.nextBoolean() ? 1 : -1) * (1 + r.nextInt(3));
                int length = 1 + r.nextInt(400);
                for (int i = 0; i < length; i++, k += step) {
                    String v = r.nextInt(50) == 0 ? "w".repeat(r.nextInt(3000)) : "v" + k;
                    assertEquals(model.put(k, v), map.put(k, v), "put " + k);
                }
                for (int i = r.nextInt(40); i > 0; i--) {
                    long gone = r.nextInt(1 << 20) - (1 << 19);
                    Long at = model.ceilingKey(gone);
                    if (at != null) {
                        assertEquals(model.remove(at), map.remove(at), "remove " + at);
                    }
                }
                if (run % 50 == 49) {
                    assertEquals(model, map);
                    assertEquals(new ArrayList<>(model.descendingKeySet()), new ArrayList<>(map.descendingKeySet()));
                    assertNoPageLost(map);
                }
            }
            assertEquals(model.size(), map.size());
            assertEquals(model, map);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void viewsOfViewsAnswerAsTreeMapViewsDo(long seed) {
        Random r = new Random(seed);
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "views" + seed).create()) {
            NavigableMap<String, String> model = new TreeMap<>();
            for (int i = 0; i < 3000; i++) {
                String k = key(r, 5000);
                model.put(k, "v" + i);
                map.put(k, "v" + i);
            }
            for (int round = 0; round < 400; round++) {
                NavigableMap<String, String> m = model;
                NavigableMap<String, String> f = map;
                for (int depth = r.nextInt(4); depth > 0; depth--) {
                    String a = key(r, 5000);
                    String b = key(r, 5000);
                    boolean ai = r.nextBoolean();
                    boolean bi = r.nextBoolean();
                    int kind = r.nextInt(4);
                    try {
                        NavigableMap<String, String> nm = switch (kind) {
                            case 0 -> m.headMap(a, ai);
                            case 1 -> m.tailMap(a, ai);
                            case 2 -> m.descendingMap();
                            default -> m.comparator() == null && a.compareTo(b) > 0 || m.comparator() != null
                                    && m.comparator().compare(a, b) > 0 ? m.subMap(b, bi, a, ai) : m.subMap(a, ai, b, bi);
                        };
                        NavigableMap<String, String> nf = switch (kind) {
                            case 0 -> f.headMap(a, ai);
                            case 1 -> f.tailMap(a, ai);
                            case 2 -> f.descendingMap();
                            default -> m.comparator() == null && a.compareTo(b) > 0 || m.comparator() != null
                                    && m.comparator().compare(a, b) > 0 ? f.subMap(b, bi, a, ai) : f.subMap(a, ai, b, bi);
                        };
                        m = nm;
                        f = nf;
                    } catch (IllegalArgumentException e) {
                        String kindName = kind + " " + a + " " + b;
                        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> {
                            throw e;
                        }, kindName);
                        break;
                    }
                }
                String k = key(r, 5000);
                String where = "round " + round;
                assertEquals(m.size(), f.size(), where + " size");
                assertEquals(m.isEmpty(), f.isEmpty(), where);
                assertEquals(m.firstEntry(), f.firstEntry(), where + " first");
                assertEquals(m.lastEntry(), f.lastEntry(), where + " last");
                assertEquals(m.ceilingKey(k), f.ceilingKey(k), where + " ceiling " + k);
                assertEquals(m.floorKey(k), f.floorKey(k), where + " floor " + k);
                assertEquals(m.higherKey(k), f.higherKey(k), where + " higher " + k);
                assertEquals(m.lowerKey(k), f.lowerKey(k), where + " lower " + k);
                assertEquals(m.get(k), f.get(k), where + " get " + k);
                assertEquals(new ArrayList<>(m.keySet()), new ArrayList<>(f.keySet()), where + " keys");
                assertEquals(new ArrayList<>(m.descendingKeySet()), new ArrayList<>(f.descendingKeySet()), where + " descending keys");
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aKeyLongerThanTheLimitIsRefusedNamingBothLengthsAndChangesNothing() {
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "limits").create()) {
            assertEquals(1003, map.maxKeySize(), "(4096 - 16) / 4 - 17");
            String longest = "k".repeat(map.maxKeySize());
            map.put(longest, "v".repeat(5000)); // with an overflow value
            assertEquals("v".repeat(5000), map.get(longest));
            String tooLong = longest + "k";
            dev.ferrite.FerriteException e = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.ferrite.FerriteException.class, () -> map.put(tooLong, "v"));
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("1004") && e.getMessage().contains("1003"),
                    e.getMessage());
            assertEquals(null, map.get(tooLong), "a key that cannot be stored is simply absent");
            assertEquals(1, map.size());
            assertNoPageLost(map);
        }
    }

    private static void removeThroughIterator(FerriteSortedMap<String, String> map, NavigableMap<String, String> model, Random r) {
        for (Iterator<String> it = map.keySet().iterator(); it.hasNext(); ) {
            String k = it.next();
            if (r.nextInt(3) != 0) {
                it.remove();
                model.remove(k);
            }
        }
        assertEquals(model, map);
        map.clear();
        assertEquals(0, map.size());
    }

    /**
     * Polls from both ends of random ranges (bounds in or out, views descending or not) among puts:
     * the entry a poll takes by one descent from its bound, or by a read and a removal where the
     * bound's leaf does not hold it, is the one a {@code TreeMap} gives.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void pollsOfRangesAnswerAsATreeMapDoes(long seed) {
        Random r = new Random(seed);
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "polls" + seed).create()) {
            NavigableMap<String, String> model = new TreeMap<>();
            for (int step = 0; step < 30_000; step++) {
                String k = key(r, 4000);
                if (r.nextInt(3) > 0) {
                    String v = value(r);
                    assertEquals(model.put(k, v), map.put(k, v), "put " + k);
                    continue;
                }
                String k2 = key(r, 4000);
                String from = k.compareTo(k2) <= 0 ? k : k2;
                String to = k.compareTo(k2) <= 0 ? k2 : k;
                boolean fi = r.nextBoolean();
                boolean ti = r.nextBoolean();
                int kind = r.nextInt(4);
                NavigableMap<String, String> m = switch (kind) {
                    case 0 -> model.tailMap(from, fi);
                    case 1 -> model.headMap(to, ti);
                    default -> model.subMap(from, fi, to, ti);
                };
                NavigableMap<String, String> f = switch (kind) {
                    case 0 -> map.tailMap(from, fi);
                    case 1 -> map.headMap(to, ti);
                    default -> map.subMap(from, fi, to, ti);
                };
                if (kind == 3) {
                    m = m.descendingMap();
                    f = f.descendingMap();
                }
                boolean first = r.nextBoolean();
                String what = (first ? "pollFirst" : "pollLast") + " of view " + kind + " " + from + (fi ? "]" : ")")
                        + " " + to + (ti ? "]" : ")");
                assertEquals(first ? m.pollFirstEntry() : m.pollLastEntry(), first ? f.pollFirstEntry() : f.pollLastEntry(), what);
            }
            assertEquals(model, map);
            assertNoPageLost(map);
        }
    }

    /**
     * Removals by position: the entry {@code removeEntryAt} takes in its descent by the branches'
     * counts is the one at that position of a {@code TreeMap}, with puts between, down to an empty
     * map (leaves merging, the root giving way, overflow values among them); a position past the
     * end changes nothing.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2})
    void removalsByPositionAnswerAsATreeMapDoes(long seed) {
        Random r = new Random(seed);
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "positions" + seed).pageSize(4096).create()) {
            NavigableMap<String, String> model = new TreeMap<>();
            for (int i = 0; i < 20_000; i++) {
                String k = key(r, 1_000_000);
                String v = i % 50 == 0 ? value(r) : "v".repeat(100);
                model.put(k, v);
                map.put(k, v);
            }
            List<String> keys = new ArrayList<>(model.keySet());
            assertThrows(IllegalArgumentException.class, () -> map.removeEntryAt(-1));
            while (!keys.isEmpty()) {
                if (r.nextInt(10) == 0) { // a put between removals
                    String k = key(r, 1_000_000);
                    String v = value(r);
                    if (model.put(k, v) == null) {
                        keys.add(-java.util.Collections.binarySearch(keys, k) - 1, k);
                    }
                    map.put(k, v);
                    continue;
                }
                int p = r.nextInt(keys.size() + 1); // the last: past the end
                Map.Entry<String, String> e = map.removeEntryAt(p);
                if (p == keys.size()) {
                    assertNull(e, "removed past the end, at " + p);
                    assertEquals(keys.size(), map.size());
                    continue;
                }
                String k = keys.remove(p);
                assertEquals(Map.entry(k, model.remove(k)), e, "removed at " + p);
            }
            assertTrue(map.isEmpty());
            assertNull(map.removeEntryAt(0));
            assertNoPageLost(map);
        }
    }

    static void assertNoPageLost(FerriteSortedMap<?, ?> map) {
        SortedStore s = storeOf(map);
        int held = s.write(TreeWriter::heldPages);
        assertEquals(s.pages.highWater() - 1, held + s.pages.freePages(), "pages held + free = pages used");
    }

    static SortedStore storeOf(FerriteSortedMap<?, ?> map) {
        return map.coding.store;
    }

    /** @return how many of the sorted keys are below {@code key} (or at most it) */
    private static int below(List<String> sorted, String key, boolean inclusive) {
        int i = java.util.Collections.binarySearch(sorted, key);
        return i >= 0 ? i + (inclusive ? 1 : 0) : -i - 1;
    }

    private static String key(Random r, int space) {
        int n = r.nextInt(space);
        return switch (n % 5) {
            case 0 -> "k" + n;
            case 1 -> "key/" + Integer.toString(n, 36) + "/" + "x".repeat(n % 50);
            case 2 -> "é" + n;
            case 3 -> "long-" + "y".repeat(n % 900) + n;
            default -> Integer.toString(n * 7919);
        };
    }

    private static String value(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> "v".repeat(r.nextInt(20_000));
            case 1 -> "";
            default -> "value-" + r.nextInt(1000);
        };
    }
}
