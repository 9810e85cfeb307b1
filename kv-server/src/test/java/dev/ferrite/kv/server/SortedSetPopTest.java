package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * ZPOPMIN and ZPOPMAX in the store: members leave in the order of their scores (a {@code TreeMap}
 * by score and member is the model), and a pop of one member reads that member, not the run of
 * its leaf an iterator would copy (counted in bytes the thread allocates, not in time).
 */
class SortedSetPopTest {

    /** A member, its score and the key by score: what one pop may allocate, far below a leaf's run of ~100 members. */
    private static final long MOST_BYTES_PER_POP = 2048;

    @Test
    void popsTakeTheLowestAndHighestScoresInOrder(@TempDir Path dir) {
        try (CollectionStore store = new CollectionStore(new DataDirectory(dir), null)) {
            long id = 7;
            TreeMap<Double, List<String>> model = new TreeMap<>();
            Random r = new Random(3);
            store.locked(() -> store.change(() -> {
                for (int i = 0; i < 3_000; i++) {
                    String member = "m" + i;
                    double score = r.nextInt(500) - 250.5;
                    SortedSetStore.add(store, id, bytes(member), score);
                    model.computeIfAbsent(score, s -> new ArrayList<>()).add(member);
                }
                return null;
            }));
            model.values().forEach(members -> members.sort(SortedSetPopTest::byBytes));
            for (int round = 0; round < 700; round++) {
                boolean highest = round % 3 == 0;
                long count = round % 5 == 0 ? 1 + r.nextInt(4) : 1;
                List<byte[]> taken = store.locked(() -> store.change(() -> SortedSetStore.pop(store, id, count, highest)));
                assertEquals(count, taken.size(), "round " + round);
                for (byte[] k : taken) {
                    Map.Entry<Double, List<String>> end = highest ? model.lastEntry() : model.firstEntry();
                    List<String> members = end.getValue();
                    String expected = highest ? members.remove(members.size() - 1) : members.remove(0);
                    if (members.isEmpty()) {
                        model.remove(end.getKey());
                    }
                    assertEquals(end.getKey(), CollectionLayout.scoreOf(k), "round " + round);
                    assertEquals(expected, new String(CollectionLayout.scoreMember(k), StandardCharsets.UTF_8), "round " + round);
                    assertEquals(null, store.get(id, CollectionLayout.scoreMember(k)), "the member is gone too");
                }
            }
            long left = model.values().stream().mapToLong(List::size).sum();
            assertEquals(left, store.scores(id).size());
            assertEquals(left, store.size(id));
        }
    }

    @Test
    void aPopOfOneMemberReadsOnlyThatMember(@TempDir Path dir) {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM does not count allocated bytes");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "this JVM does not count allocated bytes");
        try (CollectionStore store = new CollectionStore(new DataDirectory(dir), null)) {
            long id = 9;
            int n = 60_000;
            store.locked(() -> store.change(() -> {
                for (int i = 0; i < n; i++) {
                    SortedSetStore.add(store, id, bytes("member:" + i), i);
                }
                return null;
            }));
            long perPop = 0;
            int popped = 0;
            for (int round = 0; round < 5; round++) {
                long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
                for (int i = 0; i < 5_000; i++) {
                    boolean highest = (i & 1) == 0;
                    List<byte[]> taken = store.locked(() -> store.change(() -> SortedSetStore.pop(store, id, 1, highest)));
                    assertEquals(1, taken.size());
                    popped++;
                }
                perPop = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before) / 5_000;
            }
            assertEquals(n - popped, store.size(id));
            assertTrue(perPop < MOST_BYTES_PER_POP, "a pop of one member allocated " + perPop + " bytes");
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static int byBytes(String a, String b) {
        return java.util.Arrays.compareUnsigned(bytes(a), bytes(b));
    }
}
