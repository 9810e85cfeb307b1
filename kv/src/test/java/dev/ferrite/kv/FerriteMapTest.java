package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** FerriteMap's behaviour against HashMap, on every backend and kind of pool. */
class FerriteMapTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.ferrite.kv.MapTargets#targets")
    void randomOperationsMatchAHashMapAcrossReopens(String backend, MapTargets.Kind kind) {
        FerriteMapBuilder<String, String> b = MapTargets.place(
                FerriteMap.builder(Codec.utf8(), Codec.utf8()).expectedEntries(100), backend, kind, dir);
        FerriteMap<String, String> map = b.create();
        Map<String, String> model = new HashMap<>();
        Random r = new Random(42);
        try {
            for (int i = 0; i < 40_000; i++) {
                String k = "k" + r.nextInt(3000);
                String v = "v".repeat(r.nextInt(40)) + i;
                switch (r.nextInt(10)) {
                    case 0, 1, 2, 3 -> assertEquals(model.put(k, v), map.put(k, v));
                    case 4 -> assertEquals(model.remove(k), map.remove(k));
                    case 5 -> assertEquals(model.putIfAbsent(k, v), map.putIfAbsent(k, v));
                    case 6 -> assertEquals(model.replace(k, v), map.replace(k, v));
                    case 7 -> {
                        String old = model.get(k);
                        if (old != null) {
                            assertEquals(model.replace(k, old, v), map.replace(k, old, v));
                        }
                        assertEquals(model.remove(k, "nope"), map.remove(k, "nope"));
                    }
                    case 8 -> assertEquals(model.merge(k, "+", String::concat), map.merge(k, "+", String::concat));
                    default -> assertEquals(model.get(k), map.get(k));
                }
                if (i % 10_000 == 9_999 && kind != MapTargets.Kind.ANONYMOUS) {
                    map.close();
                    map = b.open();
                    assertFalse(map.stats().verifiedAtOpen(), "a map closed cleanly is not scanned at open");
                }
            }
            assertEquals(model.size(), map.size());
            assertEquals(model, new HashMap<>(map));
            assertEquals(model.keySet(), map.keySet());
            assertEquals(model.size(), map.stats().entries());
        } finally {
            MapTargets.cleanUp(map);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void churnReusesSpaceSoThePoolDoesNotGrow(String backend) {
        ChunkPool pool = MapTargets.anonymousPool(backend);
        try (FerriteMap<Long, byte[]> map = FerriteMap.builder(Codec.int64(), Codec.bytes()).pool(pool, "churn").create()) {
            byte[] value = new byte[200];
            long afterFirstRound = 0;
            for (int round = 0; round < 30; round++) {
                for (long k = 0; k < 2000; k++) {
                    map.put(k, value);
                }
                for (long k = 0; k < 2000; k += 2) {
                    map.remove(k);
                }
                if (round == 2) {
                    afterFirstRound = pool.usedChunks();
                }
            }
            assertEquals(1000, map.size());
            assertTrue(pool.usedChunks() <= afterFirstRound + 2,
                    "chunks after 30 rounds " + pool.usedChunks() + " vs after 3 rounds " + afterFirstRound);
        } finally {
            pool.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void aMapSizedForAThousandTakesAMillionSectionsGrowingOnTheirOwn(String backend) {
        try (FerriteMap<Long, Long> map = FerriteMap.builder(Codec.int64(), Codec.int64())
                .backend(backend).expectedEntries(1000).create()) {
            int n = 1_000_000;
            for (long k = 0; k < n; k++) {
                assertNull(map.put(k, k * 3));
            }
            assertEquals(n, map.size());
            for (long k = 0; k < n; k++) {
                assertEquals(k * 3, map.get(k));
            }
            MapStats s = map.stats();
            assertEquals(n, s.entries());
            assertTrue(s.rebuilds() >= 16, "every section grew: " + s);
            assertEquals(0, s.garbageBytes());
        }
    }

    @Test
    void iteratorsAreLiveAndRemoveThroughThem() {
        try (FerriteMap<Integer, String> map = FerriteMap.builder(Codec.int32(), Codec.utf8()).create()) {
            for (int i = 0; i < 500; i++) {
                map.put(i, "v" + i);
            }
            Iterator<Map.Entry<Integer, String>> it = map.entrySet().iterator();
            int seen = 0;
            while (it.hasNext()) {
                Map.Entry<Integer, String> e = it.next();
                seen++;
                if (e.getKey() % 2 == 0) {
                    it.remove();
                } else {
                    e.setValue("w" + e.getKey());
                }
                map.put(10_000 + seen, "added during iteration"); // never a ConcurrentModificationException
            }
            assertTrue(seen >= 500);
            for (int i = 0; i < 500; i++) {
                assertEquals(i % 2 == 0 ? null : "w" + i, map.get(i));
            }
            assertTrue(map.keySet().remove(1));
            assertFalse(map.containsKey(1));
            assertTrue(map.values().contains("w3"));
            map.clear();
            assertTrue(map.isEmpty());
            assertNull(map.get(3));
        }
    }

    @Test
    void byteApiReadsInPlaceAndUpdatesAtomically() {
        try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).create()) {
            byte[] key = "counter".getBytes(StandardCharsets.UTF_8);
            assertTrue(map.putBytes(key, new byte[8]));
            for (int i = 0; i < 1000; i++) {
                assertTrue(map.updateValue(key, (seg, off, len) -> seg.putLong(off, seg.getLong(off) + 1)));
            }
            assertEquals(Long.valueOf(1000), map.<Long>readValue(key, (seg, off, len) -> seg.getLong(off)));
            ByteBuffer direct = ByteBuffer.allocateDirect(16);
            direct.put(key).flip();
            assertEquals(Integer.valueOf(8), map.<Integer>readValue(direct, (seg, off, len) -> len));
            assertEquals(0, direct.position());
            assertEquals(1000L, ByteBuffer.wrap(map.getBytes(key)).order(ByteOrder.LITTLE_ENDIAN).getLong());
            assertNull(map.readValue("missing".getBytes(StandardCharsets.UTF_8), (seg, off, len) -> len));
            assertFalse(map.updateValue("missing".getBytes(StandardCharsets.UTF_8), (seg, off, len) -> { }));
            assertTrue(map.removeBytes(key));
            assertFalse(map.removeBytes(key));
        }
    }

    @Test
    void updateValueOrPutStoresTheInitialValueOnceThenUpdatesInPlace() {
        try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).maxValueSize(8).create()) {
            byte[] key = "hits".getBytes(StandardCharsets.UTF_8);
            ValueUpdater increment = (seg, off, len) -> seg.putLong(off, seg.getLong(off) + 1);
            byte[] one = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(1).array();
            int[] ran = {0};
            assertFalse(map.updateValueOrPut(key, (seg, off, len) -> ran[0]++, one));
            assertEquals(0, ran[0], "the updater must not run for an absent key");
            assertArrayEquals(one, map.getBytes(key));
            for (int i = 0; i < 99; i++) {
                assertTrue(map.updateValueOrPut(key, increment, one));
            }
            assertEquals(Long.valueOf(100), map.<Long>readValue(key, (seg, off, len) -> seg.getLong(off)));
            assertEquals(1, map.size());
            byte[] other = "other".getBytes(StandardCharsets.UTF_8);
            assertThrows(FerriteException.class, () -> map.updateValueOrPut(other, increment, new byte[9]));
            assertNull(map.getBytes(other), "an over-limit initial value writes nothing");
        }
    }

    @Test
    void nullsAndOversizedEntriesAreRefusedAndWriteNothing() {
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8())
                .maxKeySize(8).maxValueSize(16).create()) {
            assertThrows(NullPointerException.class, () -> map.put(null, "v"));
            assertThrows(NullPointerException.class, () -> map.put("k", null));
            assertThrows(NullPointerException.class, () -> map.get(null));
            FerriteException e = assertThrows(FerriteException.class, () -> map.put("k", "x".repeat(17)));
            assertTrue(e.getMessage().contains("17") && e.getMessage().contains("16"), e.getMessage());
            e = assertThrows(FerriteException.class, () -> map.put("123456789", "v"));
            assertTrue(e.getMessage().contains("9") && e.getMessage().contains("8"), e.getMessage());
            assertTrue(map.isEmpty());
        }
    }

    @Test
    void computeInsideComputeOfTheSameSectionIsRefusedNotDeadlocked() {
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).create()) {
            assertThrows(IllegalStateException.class, () -> map.compute("a", (k, v) -> map.put("a", "b")));
            assertNull(map.get("a"));
            map.put("a", "ok"); // the lock was released
            assertEquals("ok", map.get("a"));
        }
    }

    @Test
    void aComputeThatLeavesTheValueAsItWasWritesNothing() {
        try (FerriteMap<String, byte[]> map = FerriteMap.builder(Codec.utf8(), Codec.bytes()).create()) {
            map.put("k", new byte[] {1, 2, 3});
            long used = map.stats().usedBytes();
            assertArrayEquals(new byte[] {1, 2, 3}, map.computeIfAbsent("k", k -> new byte[] {9}));
            assertArrayEquals(new byte[] {1, 2, 3}, map.compute("k", (k, v) -> v));
            assertArrayEquals(new byte[] {1, 2, 3}, map.computeIfPresent("k", (k, v) -> new byte[] {1, 2, 3}));
            assertEquals(used, map.stats().usedBytes(), "no entry rewritten");
            assertEquals(0, map.stats().garbageBytes());
            // A value changed in the array the function was given is written.
            map.compute("k", (k, v) -> {
                v[0] = 7;
                return v;
            });
            assertArrayEquals(new byte[] {7, 2, 3}, map.get("k"));
        }
    }
}
