package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sorted map whose pages were damaged on purpose: reads and writes end with a
 * {@code CorruptFileException} naming the page, never a hang or a crash.
 */
class SortedMapDamageTest {

    private ChunkPool pool;
    private FerriteSortedMap<String, String> map;

    @BeforeEach
    void fill() {
        pool = Ferrite.backend().createPool(PoolSpec.anonymous().chunkSize(64 << 10).capacity(1L << 30).build());
        map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "damaged").create();
        for (int i = 0; i < 5000; i++) {
            map.put("key-" + i, "value-" + i);
        }
    }

    @AfterEach
    void close() {
        map.close();
        pool.close();
    }

    private long firstExtentPages() {
        return SortedMapModelTest.storeOf(map).header.getInt(SortedLayout.EXTENT_PAGES);
    }

    private Segment extentOf(int page) {
        int e = SortedLayout.extentOf(page - 1L, firstExtentPages(), 4096);
        return pool.open(SortedLayout.extentName("damaged", e)).orElseThrow();
    }

    private long offsetOf(int page) {
        int e = SortedLayout.extentOf(page - 1L, firstExtentPages(), 4096);
        return (page - 1L - SortedLayout.extentStart(e, firstExtentPages(), 4096)) * 4096;
    }

    /**
     * A lock word that names the writer's own client slot, while no thread of its process holds
     * the lock, can only be damage: the next change takes the lock over (the free list rebuilt, a
     * repair counted) instead of waiting for itself, as the hash map's section locks do.
     */
    @Test
    void aLockWordNamingTheWritersOwnSlotIsTakenOverNotWaitedFor() {
        SortedStore store = SortedMapModelTest.storeOf(map);
        long repairs = map.repairs();
        store.header.putLongVolatile(SortedLayout.LOCK, store.clientLockValue());
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            map.put("after", "2");
            assertEquals("value-1", map.put("key-1", "3"));
        }, "a writer waited for a lock its own slot holds and no thread of its own");
        assertEquals(repairs + 1, map.repairs());
        assertEquals(5001, map.size());
        assertEquals("3", map.get("key-1"));
        assertEquals(0, store.header.getLongVolatile(SortedLayout.LOCK), "the lock is free after the change");
    }

    @Test
    void aPublishedPageWhoseStampChangedIsReportedNotRetriedForever() {
        int root = SortedLayout.refPage(SortedMapModelTest.storeOf(map).header.getLongVolatile(SortedLayout.ROOT));
        try (Segment extent = extentOf(root)) {
            long at = offsetOf(root);
            extent.putInt(at + PageLayout.STAMP, extent.getInt(at + PageLayout.STAMP) + 2);
        }
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            CorruptFileException e = assertThrows(CorruptFileException.class, () -> map.get("key-17"));
            assertTrue(e.getMessage().contains("page " + root), e.getMessage());
            assertThrows(CorruptFileException.class, () -> map.ceilingKey("key-17"));
            assertThrows(CorruptFileException.class, () -> map.put("key-17", "x"));
        });
    }

    @Test
    void aBranchThatReferencesItselfIsReportedNotFollowedForever() {
        long rootRef = SortedMapModelTest.storeOf(map).header.getLongVolatile(SortedLayout.ROOT);
        int root = SortedLayout.refPage(rootRef);
        try (Segment extent = extentOf(root)) {
            long at = offsetOf(root);
            assertTrue(extent.getByte(at + PageLayout.KIND) == PageLayout.BRANCH, "5,000 entries make a branch root");
            int first = extent.getShort(at + PageLayout.BODY) & 0xFFFF;
            extent.putLong(at + first, rootRef); // child 0 is the root itself
        }
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThrows(CorruptFileException.class, () -> map.get("key-0"));
            assertThrows(CorruptFileException.class, () -> map.firstKey());
            assertThrows(CorruptFileException.class, () -> map.put("key-0", "x"));
        });
    }
}
