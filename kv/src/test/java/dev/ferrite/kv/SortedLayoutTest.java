package dev.ferrite.kv;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The page-to-extent arithmetic of {@link SortedLayout}, against a walk through the extents. */
class SortedLayoutTest {

    @Test
    void extentsDoubleUpToAGibibyteAndEveryPageFallsInTheExtentThatHoldsIt() {
        SplittableRandom random = new SplittableRandom(7);
        for (int pageSize = SortedLayout.MIN_PAGE_SIZE; pageSize <= SortedLayout.MAX_PAGE_SIZE; pageSize <<= 1) {
            long most = SortedLayout.MAX_EXTENT_BYTES / pageSize;
            for (long first = 1; first <= most; first <<= 1) {
                long start = 0;
                for (int e = 0; e < 40; e++) {
                    long pages = Math.min(most, first << e);
                    String where = "page size " + pageSize + ", first extent " + first + " pages, extent " + e;
                    assertEquals(pages, SortedLayout.extentPages(e, first, pageSize), where);
                    assertEquals(start, SortedLayout.extentStart(e, first, pageSize), where);
                    long[] indices = {start, start + pages - 1, start + random.nextLong(pages), start + pages / 2};
                    for (long index : indices) {
                        assertEquals(e, SortedLayout.extentOf(index, first, pageSize), where + ", page index " + index);
                    }
                    start += pages;
                }
            }
        }
    }
}
