package dev.ferrite.kv;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link FerriteMap#scan}: SCAN's guarantees, checked against a HashMap. */
class MapScanTest {

    @Test
    void aScanVisitsEveryEntryAndCountBoundsEachStep() {
        try (FerriteMap<Long, Long> map = FerriteMap.builder(Codec.int64(), Codec.int64()).create()) {
            Map<Long, Long> model = new HashMap<>();
            Random r = new Random(7);
            for (int i = 0; i < 20_000; i++) {
                long k = r.nextInt(1 << 20);
                map.put(k, k * 5);
                model.put(k, k * 5);
            }
            for (int count : new int[] {1, 10, 1000, Integer.MAX_VALUE}) {
                Map<Long, Long> seen = new HashMap<>();
                long cursor = 0;
                int steps = 0;
                do {
                    int[] visited = {0};
                    cursor = map.scan(cursor, count, (k, v) -> {
                        visited[0]++;
                        assertEquals(null, seen.put(k, v), "visited twice although no section grew: " + k);
                    });
                    // A step never splits a hash bucket, so it may take a bucket's few entries more.
                    assertTrue(visited[0] <= (long) count + 8, visited[0] + " entries in a step of count " + count);
                    assertTrue(cursor >= 0);
                    steps++;
                } while (cursor != 0);
                assertEquals(model, seen, "count " + count);
                if (count == 1) {
                    assertTrue(steps >= model.size() / 2, "about one entry per step: " + steps);
                }
            }
        }
    }

    @Test
    void entriesPresentThroughoutAreVisitedWhileSectionsGrowAndChurn() {
        try (FerriteMap<Long, Long> map = FerriteMap.builder(Codec.int64(), Codec.int64())
                .expectedEntries(100).create()) {
            Set<Long> stable = new HashSet<>();
            for (long k = 0; k < 2_000; k++) {
                map.put(k, k);
                stable.add(k);
            }
            long rebuildsBefore = map.stats().rebuilds();
            Map<Long, Integer> seen = new HashMap<>();
            Random r = new Random(11);
            long next = 1_000_000;
            long cursor = 0;
            do {
                cursor = map.scan(cursor, 5, (k, v) -> seen.merge(k, 1, Integer::sum));
                // Between steps: new keys (sections grow: their tables double) and churn of others.
                for (int i = 0; i < 40; i++) {
                    long k = next++;
                    map.put(k, k);
                    if (r.nextBoolean()) {
                        map.remove(k - r.nextInt(200));
                    }
                }
            } while (cursor != 0);
            assertTrue(map.stats().rebuilds() > rebuildsBefore, "sections grew during the scan");
            for (long k : stable) {
                // Tables only doubled: the reverse-binary cursor visits each such key exactly once.
                assertEquals(1, seen.getOrDefault(k, 0), "visits of key " + k + ", present throughout");
            }
        }
    }

    @Test
    void badArgumentsAreRefusedAndAForeignCursorEndsTheIteration() {
        try (FerriteMap<Long, Long> map = FerriteMap.builder(Codec.int64(), Codec.int64()).create()) {
            map.put(1L, 1L);
            assertThrows(IllegalArgumentException.class, () -> map.scan(0, 0, (k, v) -> { }));
            assertThrows(IllegalArgumentException.class, () -> map.scan(-5, 10, (k, v) -> { }));
            int[] visited = {0};
            assertEquals(0, map.scan(Long.MAX_VALUE, 10, (k, v) -> visited[0]++));
            assertEquals(0, visited[0]);
        }
    }
}
