package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reach of a home bucket ({@link BucketLayout#reach}): a probe stops after it, so every
 * writer must keep it covering the entries of the home's keys. Against a {@code HashMap} model at
 * the densest load, through growth, removals and tombstone reuse; a reach lowered by damage is
 * found by {@code verify()} and repaired, and a write of a key it leaves out loses nothing; a map
 * of version 3 (no reaches) is read and written as before.
 */
class MapReachTest {

    private static final int DENSE_KEYS = 2000;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void getsFindEveryKeyOfTheModelAtTheDensestLoad(String backend) {
        SplittableRandom random = new SplittableRandom(55);
        Map<String, String> model = new HashMap<>();
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m")
                     .sections(2).loadFactor(0.9).averageKeySize(8).averageValueSize(8).create()) {
            for (int op = 0; op < 60_000; op++) {
                String k = "k" + random.nextInt(4000);
                int what = random.nextInt(10);
                if (what < 5) {
                    String v = random.nextInt(8) == 0 ? "x".repeat(random.nextInt(100)) : "v" + op;
                    assertEquals(model.put(k, v), map.put(k, v));
                } else if (what < 8) {
                    assertEquals(model.remove(k), map.remove(k));
                } else {
                    assertEquals(model.get(k), map.get(k), k);
                    assertEquals(model.containsKey(k), map.containsKey(k), k);
                }
            }
            for (int i = 0; i < 4000; i++) {
                String k = "k" + i;
                assertEquals(model.get(k), map.get(k), k);
                byte[] raw = map.getBytes(k.getBytes(StandardCharsets.UTF_8));
                assertEquals(model.get(k), raw == null ? null : new String(raw, StandardCharsets.UTF_8), k);
            }
            assertEquals(model.size(), map.size());
            assertEquals(0, map.verify(), "every entry within its home's reach");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void aReachLoweredByDamageIsFoundByVerifyAndRepaired(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend); FerriteMap<String, String> map = denseMap(pool)) {
            String displaced = lowerTheReachOfADisplacedKey(pool);
            assertNull(map.get(displaced), "a get trusts the reach");
            assertTrue(map.verify() >= 1, "verify finds the entry its home's reach leaves out");
            assertEquals("v" + displaced.substring(1), map.get(displaced), "and the rebuild it runs sets the reach again");
            assertEquals(0, map.verify());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void aWriteAfterAReachLoweredByDamageLosesNothingAndKeepsOneEntry(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend); FerriteMap<String, String> map = denseMap(pool)) {
            String displaced = lowerTheReachOfADisplacedKey(pool);
            int size = map.size();
            assertEquals("v" + displaced.substring(1), map.put(displaced, "new"), "the write finds the entry past the reach");
            assertEquals("new", map.get(displaced), "and reads find what it wrote");
            assertEquals(size, map.size());
            assertEquals(1, map.keySet().stream().filter(displaced::equals).count(), "one entry of the key");
            assertEquals("new", map.remove(displaced));
            assertNull(map.get(displaced), "no older entry of the key comes back");
            assertEquals(0, map.verify());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void aWriteAfterAReachLoweredByDamageWithATombstoneAtTheHomeIsReadAndVerifyKeepsIt(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend); FerriteMap<String, String> map = denseMap(pool)) {
            String displaced = lowerTheReachOfADisplacedKey(pool);
            byte[] d = displaced.getBytes(StandardCharsets.UTF_8);
            long home;
            try (Segment s = MapBytes.sectionOf(pool, "m", MapStore.hash(d, 0, d.length))) {
                home = homeBucket(s, d);
            }
            String atHome;
            try (Segment s = MapBytes.sectionOf(pool, "m", MapStore.hash(d, 0, d.length))) {
                long w = s.getLong(home);
                assertEquals(BucketLayout.INLINE, BucketLayout.kind(w), "the displaced key's home holds another key inline");
                byte[] k = new byte[BucketLayout.keyLength(w)];
                s.copyTo(home + BucketLayout.KEY, k, 0, k.length);
                atHome = new String(k, StandardCharsets.UTF_8);
            }
            assertTrue(atHome != null, "the displaced key's home holds another key");
            map.remove(atHome); // a tombstone at the home, before the entry the damaged reach leaves out
            int size = map.size();
            map.put(displaced, "new"); // into the tombstone: the writer trusts the reach that far (a second entry)
            assertEquals("new", map.get(displaced), "the write is read");
            assertEquals(1, map.keySet().stream().filter(displaced::equals).count(), "iteration shows the key once");
            assertTrue(map.verify() >= 1, "verify finds the entry past the reach");
            assertEquals("new", map.get(displaced), "and its rebuild keeps the newer entry");
            assertEquals(size, map.size());
            assertEquals("new", map.remove(displaced));
            assertNull(map.get(displaced), "no older entry of the key comes back");
            assertEquals(0, map.verify());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void everyReachUnboundedProbesOnToAnEmptyBucketAcrossTheTablesEnd(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend); FerriteMap<String, String> map = denseMap(pool)) {
            byte[] any = "k0".getBytes(StandardCharsets.UTF_8);
            try (Segment s = MapBytes.sectionOf(pool, "m", MapStore.hash(any, 0, any.length))) {
                int buckets = s.getInt(SectionLayout.BUCKETS);
                int size = s.getInt(SectionLayout.BUCKET_SIZE);
                assertTrue(BucketLayout.kind(s.getLong(SectionLayout.bucketAt(buckets - 1, size))) != BucketLayout.EMPTY,
                        "the table's last bucket is in use: some probes wrap to its first");
                for (int i = 0; i < buckets; i++) {
                    long at = SectionLayout.bucketAt(i, size);
                    long w = s.getLong(at);
                    if (BucketLayout.kind(w) != BucketLayout.EMPTY) {
                        s.putLongVolatile(at, w | BucketLayout.REACH_BITS); // unbounded: probe to an empty bucket
                    }
                }
            }
            for (int i = 0; i < DENSE_KEYS; i++) {
                assertEquals("v" + i, map.get("k" + i), "k" + i);
                assertFalse(map.containsKey("absent" + i), "absent" + i);
            }
            assertEquals(0, map.verify(), "an unbounded reach covers every entry");
        }
    }

    /** @return the offset in its section of a key's home bucket */
    private static long homeBucket(Segment section, byte[] key) {
        int home = SectionLayout.home(MapStore.hash(key, 0, key.length), section.getInt(SectionLayout.BUCKETS));
        return SectionLayout.bucketAt(home, section.getInt(SectionLayout.BUCKET_SIZE));
    }

    /** @return a map "m" of one section at load 0.9, of {@link #DENSE_KEYS} keys "k" + i with values "v" + i */
    private static FerriteMap<String, String> denseMap(ChunkPool pool) {
        FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m")
                .sections(1).loadFactor(0.9).averageKeySize(8).averageValueSize(8).create();
        for (int i = 0; i < DENSE_KEYS; i++) {
            map.put("k" + i, "v" + i);
        }
        return map;
    }

    /** Lowers to 0 the reach of the home of the first key of a {@link #denseMap} lying past its home. */
    private static String lowerTheReachOfADisplacedKey(ChunkPool pool) {
        for (int i = 0; i < DENSE_KEYS; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            MapBytes.Located at = MapBytes.locate(pool, "m", key);
            try (Segment s = at.segment()) {
                long home = homeBucket(s, key);
                if (at.bucket() != home) {
                    s.putLongVolatile(home, s.getLong(home) & ~BucketLayout.REACH_BITS); // reach 0: damage
                    return "k" + i;
                }
            }
        }
        throw new AssertionError("at load 0.9 some key lies past its home");
    }

    @Test
    void aMapOfVersion3IsReadAndWrittenWithoutReaches() {
        try (ChunkPool pool = MapTargets.anonymousPool("unsafe")) {
            FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m").sections(1).loadFactor(0.9)
                    .averageKeySize(8).averageValueSize(8).create().close();
            try (Segment h = pool.open("m").orElseThrow()) {
                h.putInt(MapLayout.VERSION, MapLayout.VERSION_WITHOUT_REACH); // as a build before reaches made it
                h.putInt(MapLayout.CRC, MapHeader.mapCrc(h));
            }
            try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m").open()) {
                for (int i = 0; i < 3000; i++) {
                    map.put("k" + i, "v" + i);
                }
                for (int i = 0; i < 3000; i += 2) {
                    map.remove("k" + i);
                }
                for (int i = 0; i < 3000; i++) {
                    assertEquals(i % 2 == 0 ? null : "v" + i, map.get("k" + i));
                    assertFalse(map.containsKey("absent" + i));
                }
                assertEquals(0, map.verify());
            }
            try (Segment h = pool.open("m").orElseThrow()) {
                assertEquals(3, h.getInt(MapLayout.VERSION), "the map keeps its version");
                Segment s = pool.open(MapLayout.sectionName("m", 0, h.getLong(MapLayout.line(0)))).orElseThrow();
                int buckets = s.getInt(SectionLayout.BUCKETS);
                int size = s.getInt(SectionLayout.BUCKET_SIZE);
                for (int i = 0; i < buckets; i++) {
                    assertEquals(0, s.getLong(SectionLayout.TABLE + (long) i * size) & BucketLayout.REACH_BITS,
                            "no reach in a version-3 map's bucket " + i);
                }
                s.close();
            }
        }
    }
}
