package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.Segment;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Map internals damaged on purpose, in the words of the header and section layouts: a damaged
 * word may cost the entries it names, but never hangs a caller or makes an iteration mislead.
 */
class MapDamageTest {

    /**
     * A lock word that names the writer's own client slot and generation, while no thread of its
     * process holds the lock, can only be damage (the process's own holders are known to it): the
     * writer takes the lock over and repairs the section instead of waiting for itself.
     */
    @Test
    void aLockWordNamingTheWritersOwnSlotIsTakenOverNotWaitedFor() {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m").create()) {
            map.put("before", "1");
            long mine;
            try (Segment h = pool.open("m").orElseThrow()) {
                int sections = h.getInt(MapLayout.SECTIONS);
                mine = map.store().clientLockValue();
                for (int s = 0; s < sections; s++) {
                    h.putLongVolatile(MapLayout.line(s) + MapLayout.LINE_LOCK, mine);
                }
            }
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                map.put("after", "2");
                assertEquals("1", map.put("before", "3"));
            }, "a writer waited for a lock its own slot holds and no thread of its own");
            assertEquals("3", map.get("before"));
            assertEquals("2", map.get("after"));
        }
    }

    /**
     * A slot word copied over its neighbour names one entry twice; iteration, scan and
     * {@code containsValue} meet that entry once (the copy is the duplicate of an entry already met
     * in the same probe run), and a copy placed in another bucket's run fails its home check.
     */
    @Test
    void aSlotWordCopiedOverAnotherDoesNotRepeatAKey() {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m")
                     .expectedEntries(200).create()) {
            for (int i = 0; i < 200; i++) {
                map.put("key-" + i, "value-" + i);
            }
            int copies = copyBucketsOverTheirNeighbours(pool, "m");
            assertTrue(copies > 0, "no bucket was copied");

            List<String> iterated = new ArrayList<>();
            for (Map.Entry<String, String> e : map.entrySet()) {
                iterated.add(e.getKey());
            }
            assertEquals(new HashSet<>(iterated).size(), iterated.size(), "iteration repeated a key: " + iterated);

            List<String> scanned = new ArrayList<>();
            long cursor = 0;
            do {
                cursor = map.scan(cursor, 7, (k, v) -> scanned.add(k));
            } while (cursor != 0);
            assertEquals(new HashSet<>(scanned).size(), scanned.size(), "scan repeated a key: " + scanned);
            assertEquals(new HashSet<>(iterated), new HashSet<>(scanned), "iteration and scan met the same keys");
        }
    }

    /**
     * A table with no empty bucket (its empty ones damaged into tombstones that bear the tag of the
     * key looked up, so that the probe stops at each as a candidate) ends a probe where it began: a
     * get of a key not in it answers null, of a key in it its value, and a put of the missing key
     * takes a tombstone's place.
     */
    @Test
    void aTableWithNoEmptyBucketEndsAProbeWhereItBegan() {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m")
                     .expectedEntries(100).create()) {
            for (int i = 0; i < 50; i++) {
                map.put("key-" + i, "value-" + i);
            }
            byte[] missing = "missing".getBytes(StandardCharsets.UTF_8);
            long tombstone = BucketLayout.TOMBSTONE | BucketLayout.tagBits(MapStore.hash(missing, 0, missing.length));
            int[] filled = {0};
            MapBytes.forEachBucket(pool, "m", w -> w == 0, (s, i, b, size) -> {
                s.putLong(b, tombstone);
                filled[0]++;
            });
            assertTrue(filled[0] > 0, "no empty bucket was filled");
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                assertNull(map.get("missing"));
                assertFalse(map.containsKey("missing"));
                for (int i = 0; i < 50; i++) {
                    assertEquals("value-" + i, map.get("key-" + i));
                }
                assertNull(map.put("missing", "now"));
                assertEquals("now", map.get("missing"));
            }, "a probe of a table with no empty bucket did not end");
        }
    }

    /**
     * In every section, copies each third occupied bucket over the bucket after it when
     * that one is occupied too (so the copy sits in the same probe run as the original).
     *
     * @return how many words were copied
     */
    private static int copyBucketsOverTheirNeighbours(ChunkPool pool, String name) {
        int[] copies = {0};
        int[] occupied = {0};
        Set<Long> written = new HashSet<>();
        MapBytes.forEachBucket(pool, name, w -> BucketLayout.kind(w) >= BucketLayout.INLINE, (s, i, b, size) -> {
            long next = b + size;
            if (i + 1 < s.getInt(SectionLayout.BUCKETS) && BucketLayout.kind(s.getLong(next)) >= BucketLayout.INLINE
                    && !written.contains(b) && occupied[0]++ % 3 == 0) {
                s.copyTo(b, s, next, size);
                written.add(next);
                copies[0]++;
            }
        });
        return copies[0];
    }
}
