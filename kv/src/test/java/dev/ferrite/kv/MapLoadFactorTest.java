package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.Ferrite;
import dev.ferrite.InvalidSpecException;
import dev.ferrite.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FerriteMapBuilder#loadFactor}: a section grows when a new key would take its load past the
 * factor, the map records the factor for every later opener, a damaged record is named, a
 * table at the highest factor answers as a {@code HashMap} does through puts and removes, and a
 * pool the builder makes has chunks small enough that rounding to them costs little memory.
 */
class MapLoadFactorTest {

    @ParameterizedTest
    @ValueSource(doubles = {0.5, 0.8, 0.9})
    void aSectionGrowsWhenANewKeyWouldPassItsLoadFactor(double factor) {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes())
                     .pool(pool, "m").sections(1).expectedEntries(100).loadFactor(factor).create()) {
            List<double[]> growths = fill(map, 0, 20_000);
            assertTrue(growths.size() >= 3, "grew " + growths.size() + " times");
            assertGrewAt(factor, growths);
            for (double[] g : growths) {
                // The rebuilt table holds them at 5/8 of the factor, or less where the chunks it
                // takes leave room for more buckets.
                assertTrue((g[0] + 1) / g[2] <= factor * 5 / 8 + 1e-9,
                        "rebuilt to " + g[2] + " buckets for " + (g[0] + 1) + " entries, factor " + factor);
            }
            check(map, 0, 20_000);
        }
    }

    @Test
    void theFactorIsRecordedInTheMapAndKeptByLaterOpeners() {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name())) {
            try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes())
                    .pool(pool, "m").sections(1).expectedEntries(100).loadFactor(0.9).create()) {
                fill(map, 0, 1_000);
            }
            try (Segment h = pool.open("m").orElseThrow()) {
                assertEquals(900, h.getInt(MapLayout.LOAD_LIMIT));
            }
            try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes())
                    .pool(pool, "m").loadFactor(0.5).open()) {
                assertEquals(0.9, map.stats().loadFactor());
                assertGrewAt(0.9, fill(map, 1_000, 20_000));
                check(map, 0, 20_000);
            }
        }
    }

    @Test
    void aFactorOutsideItsRangeIsRefusedNamingTheRange() {
        for (double bad : new double[] {0.49, 0.91, 1.0, -0.8, Double.NaN}) {
            InvalidSpecException e = assertThrows(InvalidSpecException.class,
                    () -> FerriteMap.builder(Codec.bytes(), Codec.bytes()).loadFactor(bad));
            assertEquals("loadFactor " + bad + " is outside [0.5, 0.9]", e.getMessage());
        }
    }

    @Test
    void aDamagedRecordIsNamedAndAMapMadeBeforeTheRecordReadsAsTheDefault() {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name())) {
            try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes())
                    .pool(pool, "m").sections(1).expectedEntries(100).loadFactor(0.6).create()) {
                fill(map, 0, 500);
            }
            try (Segment h = pool.open("m").orElseThrow()) {
                h.putInt(MapLayout.LOAD_LIMIT, 700); // changed, CRC not
            }
            CorruptFileException crc = assertThrows(CorruptFileException.class, () -> open(pool).close());
            assertTrue(crc.getMessage().contains("header CRC"), crc.getMessage());
            try (Segment h = pool.open("m").orElseThrow()) {
                h.putInt(MapLayout.LOAD_LIMIT, 950);
                h.putInt(MapLayout.CRC, MapHeader.mapCrc(h));
            }
            CorruptFileException range = assertThrows(CorruptFileException.class, () -> open(pool).close());
            assertTrue(range.getMessage().contains("load limit 950 thousandths is outside [500, 900]"), range.getMessage());
            try (Segment h = pool.open("m").orElseThrow()) {
                h.putInt(MapLayout.LOAD_LIMIT, 0); // as a map made before the field, its CRC without it
                h.putInt(MapLayout.CRC, MapHeader.crc(h));
            }
            try (FerriteMap<byte[], byte[]> map = open(pool)) {
                assertEquals(0.8, map.stats().loadFactor());
                check(map, 0, 500);
                assertGrewAt(0.8, fill(map, 500, 10_000));
                check(map, 0, 10_000);
            }
        }
    }

    @Test
    void aTableAtTheHighestFactorAnswersAsAHashMapThroughPutsAndRemoves() {
        Random r = new Random(55);
        Map<Integer, byte[]> model = new HashMap<>();
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes())
                     .pool(pool, "m").sections(1).expectedEntries(2_000).loadFactor(0.9).create()) {
            for (int op = 0; op < 60_000; op++) {
                int k = r.nextInt(2_500); // a table near its limit, tombstones among the entries
                if (r.nextInt(3) == 0) {
                    assertArrayEquals(model.remove(k), map.remove(key(k)), "remove " + k);
                } else if (r.nextInt(4) == 0) {
                    assertArrayEquals(model.get(k), map.get(key(k)), "get " + k);
                } else {
                    byte[] v = value(r.nextInt(), 1 + r.nextInt(40));
                    assertArrayEquals(model.put(k, v), map.put(key(k), v), "put " + k);
                }
            }
            assertEquals(model.size(), map.size());
            for (int k = 0; k < 2_500; k++) {
                assertArrayEquals(model.get(k), map.get(key(k)), "key " + k);
            }
            assertEquals(0, map.verify());
        }
    }

    @Test
    void aPoolTheBuilderMakesHasChunksSmallEnoughThatRoundingCostsLittle(@TempDir Path dir) {
        // Two sections sized for 6,750 entries each: tables of about 1.1 MiB, which whole 256 KiB
        // chunks would round up to 1.25 MiB (194 bytes an entry), 1 MiB chunks to 2 MiB (310), where
        // the default load factor asks about 158.
        int expected = 13_500;
        FerriteMapBuilder<byte[], byte[]> b = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(dir.resolve("m"))
                .sections(2).expectedEntries(expected).averageKeySize(16).averageValueSize(100);
        try (FerriteMap<byte[], byte[]> map = b.create()) {
            assertEquals(0.85, map.stats().loadFactor(), "the default load factor");
            assertEquals(64 << 10, map.pool().chunkSize(), "a pool file's default chunk size");
            double perEntry = (double) map.stats().segmentBytes() / expected;
            assertTrue(perEntry < 170, perEntry + " bytes an entry");
        }
        try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).create()) {
            assertEquals(256 << 10, map.pool().chunkSize(), "a process-local pool's, whose bookkeeping is in RAM");
        }
        try (FerriteMap<byte[], byte[]> map = b.chunkSize(1 << 20).overwrite(true).create()) {
            assertEquals(1 << 20, map.pool().chunkSize(), "a chunk size set is the pool's");
            assertTrue(map.stats().segmentBytes() >= 4L << 20, "each section a whole 2 MiB");
        }
    }

    private static FerriteMap<byte[], byte[]> open(ChunkPool pool) {
        return FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m").open();
    }

    /**
     * Puts keys {@code [from, to)} into a one-section map and notes each growth of its table.
     *
     * @return per growth: entries before it, buckets before it, buckets after it
     */
    private static List<double[]> fill(FerriteMap<byte[], byte[]> map, int from, int to) {
        MapStore store = map.store();
        List<double[]> growths = new ArrayList<>();
        for (int i = from; i < to; i++) {
            int before = store.views.current(0).buckets;
            long entries = map.longSize();
            map.put(key(i), value(i, 20));
            int after = store.views.current(0).buckets;
            if (after != before) {
                growths.add(new double[] {entries, before, after});
            }
        }
        return growths;
    }

    /** Asserts that a table grew, each time when one more entry would have passed the factor and not before. */
    private static void assertGrewAt(double factor, List<double[]> growths) {
        assertTrue(!growths.isEmpty(), "never grew");
        for (double[] g : growths) {
            assertTrue(g[0] <= g[1] * factor && g[0] + 1 > g[1] * factor,
                    "grew at " + g[0] + " entries in " + g[1] + " buckets, factor " + factor);
        }
    }

    private static void check(FerriteMap<byte[], byte[]> map, int from, int to) {
        assertEquals(to - from, map.size());
        for (int i = from; i < to; i++) {
            assertArrayEquals(value(i, 20), map.get(key(i)), "key " + i);
        }
    }

    private static byte[] key(int i) {
        byte[] k = new byte[16];
        Arrays.fill(k, (byte) 'k');
        for (int j = 0; j < 4; j++) {
            k[j] = (byte) (i >>> 8 * j);
        }
        return k;
    }

    private static byte[] value(int seed, int length) {
        byte[] v = new byte[length];
        for (int j = 0; j < length; j++) {
            v[j] = (byte) (seed * 31 + j);
        }
        return v;
    }
}
