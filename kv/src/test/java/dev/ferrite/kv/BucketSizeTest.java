package dev.ferrite.kv;

import dev.ferrite.Ferrite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rebuild sizes its section's buckets from the entries it copies, whatever the builder's hints
 * said, and moves each entry in or out of its bucket to match.
 */
class BucketSizeTest {

    @TempDir
    Path dir;

    @Test
    void theFirstRebuildsCorrectWrongHints() {
        // The builder's default hints (16-byte keys, 64-byte values) give 128-byte buckets, which a
        // 16-byte key with a 110-byte value (138 bytes inline) does not fit.
        try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes())
                .backend(Ferrite.backend().name()).sections(16).create()) {
            assertTrue(sizes(map).stream().allMatch(s -> s == 128), "built from the hints: " + sizes(map));
            Map<String, byte[]> model = new HashMap<>();
            int n = 60_000;
            for (int i = 0; i < n; i++) {
                byte[] value = value(i, 110);
                map.put(key(i), value);
                model.put(Arrays.toString(key(i)), value);
            }
            assertTrue(sizes(map).stream().allMatch(s -> s == 144), "sized by the entries: " + sizes(map));
            MapStats st = map.stats();
            assertEquals(0, st.usedBytes(), "every entry inline: nothing in the heaps");
            double perEntry = (double) st.writtenBytes() / n;
            // 144-byte buckets at a load between 1/2 and 4/5: 180 to 288 bytes an entry. With the
            // hints' 128-byte buckets each entry took its bucket plus 144 heap bytes (340 or so).
            assertTrue(perEntry < 300, perEntry + " bytes an entry");
            for (int i = 0; i < n; i++) {
                assertArrayEquals(model.get(Arrays.toString(key(i))), map.get(key(i)), "key " + i);
            }
            assertEquals(0, map.verify());
        }
    }

    /**
     * Codecs of a fixed size give a new map buckets of exactly their entries' size, rounded up to
     * 16 bytes, whatever the average-size hints say; codecs of variable size take the hints, rounded
     * up to a cache line.
     */
    @Test
    void fixedSizeCodecsGiveBucketsOfTheirEntriesSize() {
        String backend = Ferrite.backend().name();
        try (FerriteMap<Long, Long> longs = FerriteMap.builder(Codec.int64(), Codec.int64()).backend(backend)
                .averageValueSize(500).create();
             FerriteMap<java.util.UUID, Integer> ids = FerriteMap.builder(Codec.uuid(), Codec.int32()).backend(backend).create();
             FerriteMap<String, Long> named = FerriteMap.builder(Codec.utf8(), Codec.int64()).backend(backend)
                     .averageKeySize(8).create()) {
            assertTrue(sizes(longs).stream().allMatch(s -> s == 32), "12 + 8 + 8 bytes: " + sizes(longs));
            assertTrue(sizes(ids).stream().allMatch(s -> s == 32), "12 + 16 + 4 bytes: " + sizes(ids));
            assertTrue(sizes(named).stream().allMatch(s -> s == 64), "a variable key's average, 12 + 8 + 8 bytes: " + sizes(named));
            for (long i = 0; i < 10_000; i++) {
                longs.put(i, -i);
            }
            for (long i = 0; i < 10_000; i++) {
                assertEquals(-i, longs.get(i));
            }
            assertEquals(0, longs.verify());
        }
    }

    @Test
    void entriesMoveOutOfShrunkBucketsAndBackIntoGrownOnes() {
        Path file = dir.resolve("m.ferrite");
        Map<Integer, byte[]> model = new HashMap<>();
        try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(file)
                .sections(1).averageKeySize(16).averageValueSize(200).create()) {
            assertEquals(List.of(256), sizes(map));
            for (int i = 0; i < 1000; i++) {
                put(map, model, i, 200); // inline in 256-byte buckets
            }
            for (int i = 0; i < 1000; i++) {
                if (i % 10 != 0) {
                    put(map, model, i, 20);
                }
            }
            for (int i = 1000; i < 3000; i++) {
                put(map, model, i, 20); // grows the section: most entries now need 48 bytes
            }
            assertEquals(List.of(48), sizes(map));
            assertTrue(map.stats().usedBytes() >= 100 * EntryLayout.size(16, 200), "the 200-byte values moved out");
            check(map, model);
        }
        try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(file).open()) {
            check(map, model);
            for (int i = 0; i < 6000; i++) {
                put(map, model, i, 200); // too long for 48: outside, until the table's growth sizes the buckets for them
            }
            assertEquals(List.of(240), sizes(map));
            // Back inline, all but the entry whose append found the heap full and rebuilt it.
            assertTrue(map.stats().usedBytes() <= EntryLayout.size(16, 200), map.stats().usedBytes() + " heap bytes");
            check(map, model);
        }
        try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(file).open()) {
            check(map, model);
        }
    }

    @Test
    void randomSizesAgainstAModel() {
        Random rnd = new Random(20261202);
        Path file = dir.resolve("r.ferrite");
        Map<Integer, byte[]> model = new HashMap<>();
        for (int round = 0; round < 6; round++) {
            try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(file)
                    .sections(2).averageValueSize(8 + rnd.nextInt(300)).createOrOpen()) {
                check(map, model);
                int typical = rnd.nextInt(260);
                for (int op = 0; op < 20_000; op++) {
                    int k = rnd.nextInt(4000);
                    if (rnd.nextInt(10) == 0) {
                        map.remove(key(k));
                        model.remove(k);
                    } else {
                        int len = rnd.nextInt(16) == 0 ? rnd.nextInt(600) : Math.max(0, typical + rnd.nextInt(33) - 16);
                        put(map, model, k, len);
                    }
                }
                check(map, model);
            }
        }
    }

    private static void put(FerriteMap<byte[], byte[]> map, Map<Integer, byte[]> model, int k, int length) {
        byte[] v = value(k * 31 + length, length);
        map.put(key(k), v);
        model.put(k, v);
    }

    private static void check(FerriteMap<byte[], byte[]> map, Map<Integer, byte[]> model) {
        assertEquals(model.size(), map.size());
        for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getValue(), map.get(key(e.getKey())), "key " + e.getKey());
        }
        assertEquals(0, map.verify(), "every entry's checksum matches");
    }

    private static List<Integer> sizes(FerriteMap<?, ?> map) {
        MapStore store = map.store();
        List<Integer> out = new ArrayList<>();
        for (int s = 0; s < map.stats().sections(); s++) {
            out.add(store.views.current(s).bucketSize);
        }
        return out;
    }

    private static byte[] key(int i) {
        byte[] k = new byte[16];
        for (int j = 0; j < 4; j++) {
            k[j] = (byte) (i >>> 8 * j);
        }
        Arrays.fill(k, 4, 16, (byte) 'k');
        return k;
    }

    private static byte[] value(int seed, int length) {
        byte[] v = new byte[length];
        for (int j = 0; j < length; j++) {
            v[j] = (byte) (seed * 7 + j);
        }
        return v;
    }
}
