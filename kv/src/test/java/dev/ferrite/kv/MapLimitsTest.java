package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.FerriteException;
import dev.ferrite.InvalidSpecException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.PoolSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sizes past 2^32 bytes, a full pool, read-only opens and several maps in one pool. */
class MapLimitsTest {

    @TempDir
    Path dir;

    @Test
    void aMapHoldsMoreThanFourGibibytesOfEntries() {
        int valueBytes = 64 << 10;
        int n = 72 * 1024; // 72 Ki values of 64 KiB: 4.5 GiB
        try (FerriteMap<Long, byte[]> map = FerriteMap.builder(Codec.int64(), Codec.bytes()).backend("unsafe")
                .expectedEntries(n).averageKeySize(8).averageValueSize(valueBytes).capacity(16L << 30).create()) {
            byte[] v = new byte[valueBytes];
            ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
            for (long k = 0; k < n; k++) {
                b.putLong(0, k);
                b.putLong(valueBytes - 8, ~k);
                map.put(k, v);
            }
            MapStats s = map.stats();
            assertTrue(s.usedBytes() > 4L << 30, "more than 4 GiB of entries: " + s);
            assertEquals(n, map.size());
            for (long k = 0; k < n; k += 997) {
                ByteBuffer got = ByteBuffer.wrap(map.get(k)).order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(k, got.getLong(0));
                assertEquals(~k, got.getLong(valueBytes - 8));
            }
        }
    }

    @Test
    void aFullPoolRefusesThePutNamingItsCapacityAndLosesNothing() {
        try (ChunkPool pool = Ferrite.backend("unsafe").createPool(PoolSpec.anonymous().chunkSize(64 << 10)
                .capacity(4L << 20).build());
             FerriteMap<Integer, byte[]> map = FerriteMap.builder(Codec.int32(), Codec.bytes()).pool(pool, "full").create()) {
            byte[] v = new byte[1000];
            int stored = 0;
            PoolExhaustedException e = null;
            for (int k = 0; k < 100_000 && e == null; k++) {
                try {
                    map.put(k, v);
                    stored++;
                } catch (PoolExhaustedException x) {
                    e = x;
                }
            }
            assertTrue(e != null, "the pool filled");
            assertTrue(e.getMessage().contains(String.valueOf(4L << 20)) || e.getMessage().contains("capacity"), e.getMessage());
            assertEquals(stored, map.size());
            for (int k = 0; k < stored; k++) {
                assertArrayEquals(v, map.get(k), "key " + k);
            }
            map.remove(0);
            assertEquals(stored - 1, map.size(), "the map still works");
        }
    }

    @Test
    void readOnlyOpensReadWhatAWriterWritesAndRefuseWrites() {
        Path file = dir.resolve("ro.map");
        FerriteMapBuilder<String, String> b = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).capacity(1L << 30);
        try (FerriteMap<String, String> writer = b.create();
             FerriteMap<String, String> reader = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).readOnly().open()) {
            assertTrue(reader.isReadOnly());
            for (int i = 0; i < 5000; i++) {
                writer.put("k" + i, "v" + i);
                if (i % 500 == 0) {
                    assertEquals("v" + i, reader.get("k" + i), "a write is visible when the call returns");
                }
            }
            assertEquals(5000, reader.size());
            assertThrows(UnsupportedOperationException.class, () -> reader.put("x", "y"));
            assertThrows(UnsupportedOperationException.class, () -> reader.remove("k1"));
            assertEquals("v1", writer.get("k1"));
        }
    }

    @Test
    void severalMapsShareOnePoolUnderTheirNames() {
        try (ChunkPool pool = MapTargets.anonymousPool("unsafe")) {
            try (FerriteMap<String, Long> a = FerriteMap.builder(Codec.utf8(), Codec.int64()).pool(pool, "a").create();
                 FerriteMap<String, String> c = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "a.b").create()) {
                a.put("x", 1L);
                c.put("x", "one");
                assertEquals(1L, a.get("x"));
                assertEquals("one", c.get("x"));
            }
            assertTrue(FerriteMap.delete(pool, "a"));
            try (FerriteMap<String, String> c = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "a.b").open()) {
                assertEquals("one", c.get("x"), "deleting map 'a' left map 'a.b' alone");
            }
            assertTrue(FerriteMap.delete(pool, "a.b"));
            assertEquals(0, pool.segmentNames().size(), pool.segmentNames().toString());
        }
    }

    @Test
    void aSetSectionCountIsKeptAcrossReopeningAndGrowth() {
        Path file = dir.resolve("sections.pool");
        try (FerriteMap<Integer, Integer> map = FerriteMap.builder(Codec.int32(), Codec.int32()).file(file)
                .sections(256).create()) {
            assertEquals(256, map.stats().sections());
            for (int k = 0; k < 50_000; k++) {
                map.put(k, ~k);
            }
            assertTrue(map.stats().rebuilds() > 0, "sections grew: " + map.stats());
            assertEquals(256, map.stats().sections());
        }
        try (FerriteMap<Integer, Integer> map = FerriteMap.builder(Codec.int32(), Codec.int32()).file(file)
                .sections(16).open()) {
            assertEquals(256, map.stats().sections(), "an existing map keeps its own count");
            assertEquals(50_000, map.size());
            for (int k = 0; k < 50_000; k += 7) {
                assertEquals(~k, map.get(k));
            }
        }
    }

    @Test
    void aMapOfOneSectionHoldsEveryKey() {
        try (FerriteMap<Integer, Integer> map = FerriteMap.builder(Codec.int32(), Codec.int32()).sections(1).create()) {
            for (int k = 0; k < 20_000; k++) {
                map.put(k, k * 3);
            }
            assertEquals(1, map.stats().sections());
            assertEquals(20_000, map.size());
            for (int k = 0; k < 20_000; k++) {
                assertEquals(k * 3, map.get(k));
            }
        }
    }

    @Test
    void aSectionCountThatIsNoPowerOfTwoInRangeIsRefusedNamingIt() {
        for (int bad : new int[] {0, -4, 3, 48, 2048}) {
            InvalidSpecException e = assertThrows(InvalidSpecException.class,
                    () -> FerriteMap.builder(Codec.int32(), Codec.int32()).sections(bad));
            assertTrue(e.getMessage().contains("sections " + bad + " ") && e.getMessage().contains("[1, 1024]"),
                    e.getMessage());
        }
        try (ChunkPool pool = Ferrite.backend("unsafe").createPool(PoolSpec.anonymous().chunkSize(64 << 10)
                .capacity(64L << 20).maxNamedSegments(40).build())) {
            FerriteException e = assertThrows(FerriteException.class,
                    () -> FerriteMap.builder(Codec.int32(), Codec.int32()).pool(pool, "m").sections(32).create());
            assertTrue(e.getMessage().contains("has 40 free segment names; a map of 32 sections needs 65 (maxNamedSegments 40)"),
                    e.getMessage());
            assertEquals(0, pool.segmentNames().size(), "nothing was made: " + pool.segmentNames());
            try (FerriteMap<Integer, Integer> map = FerriteMap.builder(Codec.int32(), Codec.int32()).pool(pool, "m")
                    .sections(16).create()) {
                map.put(1, 2);
                assertEquals(16, map.stats().sections());
                assertEquals(2, map.get(1));
            }
        }
    }
}
