package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.IntConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a sorted map's operations cost, counted in bytes the calling thread allocates (a count, not
 * a time). A change that splits or merges nothing writes the path's pages from their bytes,
 * without decoding a node, so it allocates about what its answer needs; only the rare change that
 * splits or merges decodes its nodes. A list drained from its head (Redis's LPOP) after it grew at
 * its head (LPUSH) keeps small pages at the tree's left edge beside full ones. A range's iteration
 * copies the entries in the range, not the rest of their leaf. Keys put in order (a list's pushes
 * at either end) fill their pages.
 */
class SortedMapCostTest {

    /** Far below a decoded page (a {@code Long} and an array per entry of ~100): what a change on the in-place path may allocate. */
    private static final long MOST_BYTES_PER_CHANGE = 1024;

    private ChunkPool pool;

    @BeforeEach
    void pool() {
        pool = Ferrite.backend().createPool(PoolSpec.anonymous().chunkSize(1 << 20).capacity(4L << 30).build());
    }

    @AfterEach
    void close() {
        pool.close();
    }

    @Test
    void keysPutInOrderFillTheirPages() {
        // An entry of an 8-byte key and a 100-byte value takes 117 bytes of a leaf with its slot.
        long entry = 2 + PageLayout.LEAF_ENTRY_HEADER + 8 + 100;
        int n = 50_000;
        // A run at the tree's end, and one in the middle of other keys (a list of the server among
        // others, or after its header key): each new entry lands between two others in its leaf.
        for (String order : new String[] {"ascending", "descending", "ascending before others", "descending after one"}) {
            try (FerriteSortedMap<Long, byte[]> map = FerriteSortedMap.builder(Codec.int64Ordered(), Codec.bytes())
                    .pool(pool, order.replace(' ', '-')).create()) {
                if (order.endsWith("others")) {
                    for (long j = 0; j < 20; j++) {
                        map.put(Long.MAX_VALUE - j, new byte[100]);
                    }
                } else if (order.endsWith("one")) {
                    map.put(Long.MIN_VALUE, new byte[100]);
                }
                long others = map.size();
                for (long i = 0; i < n; i++) {
                    map.put(order.startsWith("ascending") ? i : -i, new byte[100]);
                }
                double perEntry = (double) map.usedBytes() / (n + others);
                // Split evenly, or short of a page by the largest entry, pages are 3/4 full: 155 bytes an entry.
                assertTrue(perEntry < entry * 1.1, order + ": " + perEntry + " bytes an entry");
            }
        }
    }

    /**
     * Keys added in order after a few others (a list of the server grown at its head, after its
     * header): a page split by the run is not merged again by the next change, so the general
     * path runs about once per page filled, not twice; and it decodes the split leaf, not the
     * branches above it.
     */
    @Test
    void aRunBesideFewKeysSplitsOncePerPage() {
        for (boolean descending : new boolean[] {true, false}) {
            try (FerriteSortedMap<Long, byte[]> map = FerriteSortedMap.builder(Codec.int64Ordered(), Codec.bytes())
                    .pool(pool, "run-" + descending).create()) {
                map.put(descending ? Long.MIN_VALUE : Long.MAX_VALUE, new byte[10]);
                map.put(descending ? Long.MIN_VALUE + 1 : Long.MAX_VALUE - 1, new byte[10]);
                SortedStore store = SortedMapModelTest.storeOf(map);
                long before = store.write(w -> w.rewrites);
                long decodedBefore = store.write(w -> w.rewriter.branchesDecoded);
                int n = 30_000;
                for (long i = 0; i < n; i++) {
                    map.put(descending ? -i : i, new byte[100]);
                }
                long rewrites = store.write(w -> w.rewrites) - before;
                long decoded = store.write(w -> w.rewriter.branchesDecoded) - decodedBefore;
                int pages = store.write(TreeWriter::heldPages);
                String order = descending ? "descending" : "ascending";
                assertTrue(rewrites <= pages + 3, order + ": " + rewrites + " changes on the general path for a tree of "
                        + pages + " pages");
                // A leaf's split adds an entry to its parent's page: only a parent that splits in turn is decoded.
                assertTrue(decoded <= rewrites / 10, order + ": " + decoded + " branches decoded by " + rewrites + " splits");
                assertEquals(n + 2, map.size());
            }
        }
    }

    @Test
    void popsFromTheHeadStayOnTheInPlacePath() {
        try (FerriteSortedMap<Long, byte[]> map = FerriteSortedMap.builder(Codec.int64Ordered(), Codec.bytes()).pool(pool, "pops").create()) {
            int n = 400_000;
            for (long i = 0; i < n; i++) {
                map.put(i, new byte[20]);
            }
            long[] next = {0};
            long perPop = allocatedPerCall(i -> {
                Map.Entry<Long, byte[]> e = map.pollFirstEntry();
                assertEquals(next[0]++, e.getKey());
            }, 60_000);
            assertEquals(n - next[0], map.size());
            assertTrue(perPop < MOST_BYTES_PER_CHANGE, "a pop allocated " + perPop + " bytes");
        }
    }

    @Test
    void pushesAtTheHeadStayOnTheInPlacePath() {
        try (FerriteSortedMap<Long, byte[]> map = FerriteSortedMap.builder(Codec.int64Ordered(), Codec.bytes()).pool(pool, "pushes").create()) {
            long[] head = {0};
            long perPush = allocatedPerCall(i -> map.put(--head[0], new byte[20]), 60_000);
            assertEquals(-head[0], map.size());
            assertTrue(perPush < MOST_BYTES_PER_CHANGE, "a push allocated " + perPush + " bytes");
            long[] next = {head[0]};
            long perPop = allocatedPerCall(i -> assertEquals(next[0]++, map.pollFirstEntry().getKey()), 50_000);
            assertTrue(perPop < MOST_BYTES_PER_CHANGE, "a pop allocated " + perPop + " bytes");
        }
    }

    /**
     * A compute that gives back the value it was given (a sorted set's member given its own score)
     * publishes no new tree: the root word stays; a value in a new array, equal or not, is written.
     */
    @Test
    void aComputeGivingBackItsValueWritesNothing() {
        try (FerriteSortedMap<Long, byte[]> map = FerriteSortedMap.builder(Codec.int64Ordered(), Codec.bytes()).pool(pool, "same").create();
             FerriteSortedMap<Long, Long> longs = FerriteSortedMap.builder(Codec.int64Ordered(), Codec.int64Ordered())
                     .pool(pool, "same-longs").create()) {
            for (long i = 0; i < 1_000; i++) {
                map.put(i, new byte[100]);
                longs.put(i, i);
            }
            long root = root(map);
            assertEquals(100, map.compute(500L, (k, v) -> v).length);
            assertEquals(null, map.compute(5_000L, (k, v) -> v)); // absent, and left absent
            assertEquals(root, root(map), "the root after computes that changed nothing");
            map.compute(500L, (k, v) -> new byte[100]);
            assertTrue(root != root(map), "the root after a compute that gave a new array");
            long longsRoot = root(longs);
            assertEquals(7L, longs.compute(7L, (k, v) -> v));
            assertEquals(longsRoot, root(longs), "the root after a compute that gave back its Long");
            assertEquals(8L, longs.compute(7L, (k, v) -> v + 1));
            assertTrue(longsRoot != root(longs), "the root after a compute that changed a value");
            assertEquals(1_000, map.size());
        }
    }

    private static long root(FerriteSortedMap<?, ?> map) {
        return SortedMapModelTest.storeOf(map).header.getLongVolatile(SortedLayout.ROOT);
    }

    @Test
    void aRangeReadsOnlyItsEntries() {
        try (FerriteSortedMap<Long, byte[]> map = FerriteSortedMap.builder(Codec.int64Ordered(), Codec.bytes()).pool(pool, "ranges").create()) {
            int n = 100_000;
            for (long i = 0; i < n; i++) {
                map.put(i, new byte[20]);
            }
            long[] seen = {0};
            long perRange = allocatedPerCall(i -> {
                long from = (i * 7919L) % (n - 10);
                for (byte[] v : map.subMap(from, true, from + 9, true).values()) {
                    seen[0] += v.length;
                }
            }, 20_000);
            assertEquals(5 * 20_000 * 10 * 20L, seen[0], "each range has its ten values");
            // Ten entries (a key, a value and their record each, ~100 bytes) and the view, not a leaf of ~200.
            assertTrue(perRange < 3 * 1024, "a range of ten entries allocated " + perRange + " bytes");
        }
    }

    /** @return bytes the calling thread allocated per call in the last of five rounds of {@code calls} */
    private static long allocatedPerCall(IntConsumer change, int calls) {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM does not count allocated bytes");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "this JVM does not count allocated bytes");
        long perCall = 0;
        for (int round = 0; round < 5; round++) {
            long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            for (int i = 0; i < calls; i++) {
                change.accept(i);
            }
            perCall = (threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before) / calls;
            System.out.println("round " + round + ": " + perCall + " bytes a call");
        }
        return perCall;
    }
}
