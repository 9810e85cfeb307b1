package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where a sorted map's extents come from ({@link ExtentGrowth}): made ahead of need on a growth
 * executor and adopted by the write that needs them, so that no write waits for an extent's
 * memory to be reserved; a leftover extent segment of the extent's size is adopted, a smaller
 * one replaced; a preparation that comes too late changes nothing. The map's entries equal a
 * {@code TreeMap}'s throughout, and after a reopen.
 */
class SortedMapGrowthTest {

    /** Small chunks: extents of 16, 32, 64... pages of 4 KiB. */
    private final ChunkPool pool = Ferrite.backend().createPool(
            PoolSpec.anonymous().chunkSize(64 << 10).capacity(1L << 30).build());
    private final TreeMap<String, String> model = new TreeMap<>();

    @AfterEach
    void close() {
        pool.close();
    }

    private static FerriteSortedMapBuilder<String, String> builder() {
        return FerriteSortedMap.builder(Codec.utf8(), Codec.utf8());
    }

    private void fill(FerriteSortedMap<String, String> map, int from, int to) {
        for (int i = from; i < to; i++) {
            String k = String.format("key-%08d", i * 7919 % 1_000_003);
            String v = "value-" + i + "-" + "x".repeat(i % 90);
            map.put(k, v);
            model.put(k, v);
        }
    }

    private void assertMatchesModel(FerriteSortedMap<String, String> map) {
        assertEquals(model.size(), map.size());
        assertEquals(model, new TreeMap<>(map));
        assertEquals(model.firstKey(), map.firstKey());
        assertEquals(model.lastEntry(), Map.entry(map.lastEntry().getKey(), map.lastEntry().getValue()));
    }

    private static ExtentGrowth growthOf(FerriteSortedMap<?, ?> map) {
        return SortedMapModelTest.storeOf(map).pages.growth;
    }

    private static int extents(FerriteSortedMap<?, ?> map) {
        return SortedMapModelTest.storeOf(map).header.getIntVolatile(SortedLayout.EXTENTS);
    }

    @Test
    void withAGrowthExecutorEveryExtentAfterTheFirstIsMadeAheadAndAdopted() {
        // The executor runs each preparation at once, in the writer's call: no thread can lag here.
        try (FerriteSortedMap<String, String> map = builder().pool(pool, "grown").growthExecutor(Runnable::run).create()) {
            fill(map, 0, 20_000);
            ExtentGrowth growth = growthOf(map);
            assertTrue(extents(map) >= 5, "the map grew over several extents: " + extents(map));
            assertEquals(1, growth.madeAtNeed.get(), "only the first extent is made by a write");
            assertEquals(extents(map) - 1, growth.adopted.get(), "every later one was found made");
            assertTrue(growth.madeAhead.get() >= growth.adopted.get(), "made ahead: " + growth.madeAhead.get());
            assertMatchesModel(map);
        }
        try (FerriteSortedMap<String, String> again = builder().pool(pool, "grown").open()) {
            assertMatchesModel(again);
            fill(again, 20_000, 26_000); // grows on, adopting the extent made ahead and not yet counted
            assertMatchesModel(again);
            assertEquals(0, growthOf(again).madeAhead.get());
        }
    }

    @Test
    void writesRunWhileTheExecutorMakesExtentsConcurrently() {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (FerriteSortedMap<String, String> map = builder().pool(pool, "raced").growthExecutor(executor).create()) {
            fill(map, 0, 30_000);
            assertMatchesModel(map);
            ExtentGrowth growth = growthOf(map);
            assertEquals(extents(map), growth.madeAtNeed.get() + growth.adopted.get(),
                    "each counted extent was made once: by a write, or ahead and adopted");
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aPreparationThatComesAfterTheWriteMadeTheExtentChangesNothing() {
        Queue<Runnable> held = new ArrayDeque<>();
        try (FerriteSortedMap<String, String> map = builder().pool(pool, "late").growthExecutor(held::add).create()) {
            fill(map, 0, 20_000);
            ExtentGrowth growth = growthOf(map);
            assertEquals(extents(map), growth.madeAtNeed.get(), "nothing ran ahead: every extent made by a write");
            assertFalse(held.isEmpty(), "preparations were asked for");
            int asked = held.size();
            long segments = pool.segmentNames().size();
            while (!held.isEmpty()) {
                held.poll().run(); // each for an extent a write made since, but the last
            }
            assertTrue(growth.madeAhead.get() <= 1, "at most the one extent not yet needed was made ahead");
            assertEquals(segments + growth.madeAhead.get(), pool.segmentNames().size());
            assertTrue(asked >= extents(map) - 1);
            assertMatchesModel(map);
        }
    }

    @Test
    void aLeftoverExtentOfTheExtentsSizeIsAdoptedAndASmallerOneReplaced() {
        try (FerriteSortedMap<String, String> map = builder().pool(pool, "left").create()) {
            fill(map, 0, 2_000);
            int next = extents(map);
            long first = SortedMapModelTest.storeOf(map).header.getInt(SortedLayout.EXTENT_PAGES);
            long bytes = SortedLayout.extentPages(next, first, 4096) * 4096;
            try (Segment leftover = pool.allocate(SortedLayout.extentName("left", next), bytes)) {
                leftover.fill(0, bytes, (byte) 0x5A); // bytes a write never reads before it writes them
            }
            try (Segment small = pool.allocate(SortedLayout.extentName("left", next + 1), 4096)) {
                small.fill(0, 4096, (byte) 0x5A);
            }
            ExtentGrowth growth = growthOf(map);
            int from = 2_000;
            while (extents(map) < next + 2) {
                fill(map, from, from + 500);
                from += 500;
            }
            assertEquals(1, growth.adopted.get(), "the leftover of the extent's size");
            assertTrue(growth.madeAtNeed.get() >= 1, "the smaller one was replaced");
            try (Segment replaced = pool.open(SortedLayout.extentName("left", next + 1)).orElseThrow()) {
                assertEquals(SortedLayout.extentPages(next + 1, first, 4096) * 4096, replaced.size());
            }
            assertMatchesModel(map);
        }
        try (FerriteSortedMap<String, String> again = builder().pool(pool, "left").open()) {
            assertMatchesModel(again);
        }
    }

    @Test
    void withoutAnExecutorEachExtentIsMadeByTheWriteThatNeedsIt() {
        try (FerriteSortedMap<String, String> map = builder().pool(pool, "plain").create()) {
            fill(map, 0, 20_000);
            ExtentGrowth growth = growthOf(map);
            assertEquals(extents(map), growth.madeAtNeed.get());
            assertEquals(0, growth.adopted.get());
            assertEquals(0, growth.madeAhead.get());
            assertMatchesModel(map);
        }
    }

    @Test
    void deletingTheMapDeletesAnExtentMadeAheadAndNotYetCounted() {
        Queue<Runnable> held = new ArrayDeque<>();
        try (FerriteSortedMap<String, String> map = builder().pool(pool, "gone").growthExecutor(held::add).create()) {
            for (int i = 0; growthOf(map).madeAhead.get() == 0; i += 100) {
                fill(map, i, i + 100);
                while (!held.isEmpty()) {
                    held.poll().run();
                }
            }
            assertTrue(pool.segmentNames().contains(SortedLayout.extentName("gone", extents(map))),
                    "the next extent is made, not yet counted: " + pool.segmentNames());
        }
        assertTrue(pool.segmentNames().stream().anyMatch(n -> n.startsWith("gone.x")));
        assertTrue(FerriteSortedMap.delete(pool, "gone"));
        assertTrue(pool.segmentNames().stream().noneMatch(n -> n.startsWith("gone")), pool.segmentNames().toString());
    }
}
