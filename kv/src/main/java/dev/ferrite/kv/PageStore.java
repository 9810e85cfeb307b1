package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.Segment;

import java.lang.invoke.VarHandle;
import java.util.BitSet;
import java.util.concurrent.Executor;

import static dev.ferrite.kv.PageLayout.KIND;
import static dev.ferrite.kv.PageLayout.NEXT;
import static dev.ferrite.kv.PageLayout.STAMP;
import static dev.ferrite.kv.SortedLayout.EXTENTS;
import static dev.ferrite.kv.SortedLayout.FREE_HEAD;
import static dev.ferrite.kv.SortedLayout.HIGH_WATER;

/**
 * A sorted map's pages: where each lives (its extent segment, opened on first use), the checked
 * copy a reader makes of one, and for the writer (who holds the map's lock) the page allocator:
 * a free list threaded through the free pages, then pages never used, then a new extent. A writer
 * that dies loses the pages it took and did not publish or free; {@link #rebuildFreeList} finds
 * them again. Reads are thread-safe; the writer's methods need the map's lock.
 */
final class PageStore {

    final ChunkPool pool;
    final String name;
    final Segment header;
    final int pageSize;
    private final int pageShift;
    private final long firstExtentPages;
    private volatile Segment[] extents = new Segment[0];
    /** Where new extents come from. */
    final ExtentGrowth growth;

    /**
     * @param growth where the next extent is made ahead of need, or null: the writer makes each
     *               when it needs it ({@link ExtentGrowth})
     */
    PageStore(ChunkPool pool, String name, Segment header, Executor growth) {
        this.pool = pool;
        this.name = name;
        this.header = header;
        this.pageSize = header.getInt(SortedLayout.PAGE_SIZE);
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.firstExtentPages = header.getInt(SortedLayout.EXTENT_PAGES);
        this.growth = new ExtentGrowth(pool, name, header, firstExtentPages, pageSize, growth);
    }

    /**
     * Copies a page a reference names, whole as the reference meant it.
     *
     * @param ref  a reference: page number and the even stamp it was written with
     * @param into a buffer of {@link #pageSize} bytes
     * @return whether the copy is the page the reference meant (false: the page was freed or
     *         rewritten since, and the reader starts over from the root)
     * @throws CorruptFileException if the reference names no page of the map
     */
    boolean read(long ref, byte[] into) {
        int page = SortedLayout.refPage(ref);
        Segment s = segment(page);
        long at = offset(page);
        int stamp = SortedLayout.refStamp(ref);
        if (s.getIntVolatile(at + STAMP) != stamp) {
            return false;
        }
        int used = s.getInt(at + PageLayout.USED);
        s.copyTo(at, into, 0, used < PageLayout.BODY || used > pageSize ? pageSize : used);
        VarHandle.acquireFence();
        return s.getIntVolatile(at + STAMP) == stamp;
    }

    /**
     * Copies value bytes of an overflow page a reference names, with its link to the next.
     *
     * @return the next overflow page's reference (0 after the last), or -1 if the page is no
     *         longer the one the reference meant
     */
    long readOverflow(long ref, byte[] into, int intoOff, int len) {
        int page = SortedLayout.refPage(ref);
        Segment s = segment(page);
        long at = offset(page);
        int stamp = SortedLayout.refStamp(ref);
        if (s.getIntVolatile(at + STAMP) != stamp) {
            return -1;
        }
        long next = s.getLong(at + PageLayout.OVERFLOW_NEXT);
        s.copyTo(at + PageLayout.OVERFLOW_DATA, into, intoOff, len);
        VarHandle.acquireFence();
        return s.getIntVolatile(at + STAMP) == stamp ? next : -1;
    }

    /**
     * The writer's copy of a page of the tree it holds the lock of, which no one else changes.
     *
     * @return {@code into}
     * @throws CorruptFileException if the page does not have the stamp its reference names
     */
    byte[] readStable(long ref, byte[] into) {
        if (!read(ref, into)) {
            throw PageLayout.corrupt(SortedLayout.refPage(ref), "its stamp is not the one its reference names ("
                    + SortedLayout.refStamp(ref) + ") while the writer holds the lock");
        }
        return into;
    }

    /** @return the int at {@code from} of a page (the writer's read of a stable page) */
    int getInt(int page, int from) {
        return segment(page).getInt(offset(page) + from);
    }

    /** @return the long at {@code from} of a page (the writer's read of a stable page) */
    long getLong(int page, int from) {
        return segment(page).getLong(offset(page) + from);
    }

    // ---------------------------------------------------------------- the writer's

    /**
     * Takes a page for the writer: its stamp made odd (readers of what it held start over).
     *
     * @return the page number
     * @throws dev.ferrite.PoolExhaustedException if a new extent does not fit the pool
     */
    int allocate() {
        int page = header.getInt(FREE_HEAD);
        if (page != 0) {
            Segment s = segment(page);
            long at = offset(page);
            int next = s.getInt(at + NEXT);
            if (next < 0 || next >= header.getInt(HIGH_WATER)) {
                throw new CorruptFileException("sorted map '" + name + "': free page " + page + " links to page "
                        + next + ", past the last page used, " + (header.getInt(HIGH_WATER) - 1));
            }
            header.putIntOrdered(FREE_HEAD, next); // the lock holder's alone: the lock's CAS orders it for the next
            makeOdd(s, at);
            return page;
        }
        int high = header.getInt(HIGH_WATER);
        if (high == Integer.MAX_VALUE) {
            throw new dev.ferrite.PoolExhaustedException("sorted map '" + name + "' has used " + high
                    + " pages, the most a map may have");
        }
        int e = SortedLayout.extentOf(high - 1, firstExtentPages, pageSize);
        int made = header.getInt(EXTENTS);
        if (e >= made) {
            growth.make(e);
            header.putIntVolatile(EXTENTS, e + 1);
        }
        header.putIntVolatile(HIGH_WATER, high + 1);
        growth.taken(high, e);
        Segment s = segment(high);
        makeOdd(s, offset(high));
        return high;
    }

    /**
     * Writes a taken page whole and makes its stamp even.
     *
     * @param page  a page from {@link #allocate}
     * @param bytes its bytes; [0, 4) (the stamp) are not written
     * @param used  how many of them to write
     * @return the reference to the page as written
     */
    long write(int page, byte[] bytes, int used) {
        put(page, 4, bytes, 4, used - 4);
        return publish(page);
    }

    /**
     * Copies bytes into a taken page, before {@link #publish}.
     *
     * @param page a page from {@link #allocate}
     * @param to   where in the page they go, at least 4 (past the stamp); {@code to + len} at most the page size
     */
    void put(int page, int to, byte[] bytes, int from, int len) {
        segment(page).copyFrom(bytes, from, offset(page) + to, len);
    }

    /**
     * Makes a taken page's stamp even: a release store, after the page's bytes.
     *
     * @return the reference to the page as written
     */
    long publish(int page) {
        Segment s = segment(page);
        long at = offset(page);
        int stamp = s.getInt(at + STAMP) + 1;
        s.putIntOrdered(at + STAMP, stamp); // a release: the bytes before the even stamp
        return SortedLayout.ref(page, stamp);
    }

    /** Gives a page back to the free list (its stamp made odd first, so readers of it start over). */
    void free(int page) {
        Segment s = segment(page);
        long at = offset(page);
        makeOdd(s, at);
        s.putByte(at + KIND, PageLayout.FREE);
        s.putInt(at + NEXT, header.getInt(FREE_HEAD));
        header.putIntOrdered(FREE_HEAD, page);
    }

    /**
     * Rebuilds the free list from the pages that are not in use: after a writer died holding the
     * lock, the pages it had taken and not published, and those it had not yet freed.
     *
     * @param inUse the pages the published tree holds
     * @return pages now free
     */
    int rebuildFreeList(BitSet inUse) {
        int high = header.getInt(HIGH_WATER);
        int head = 0;
        int free = 0;
        for (int page = high - 1; page >= 1; page--) {
            if (inUse.get(page)) {
                continue;
            }
            Segment s = segment(page);
            long at = offset(page);
            makeOdd(s, at);
            s.putByte(at + KIND, PageLayout.FREE);
            s.putInt(at + NEXT, head);
            head = page;
            free++;
        }
        header.putIntVolatile(FREE_HEAD, head);
        return free;
    }

    /** @return pages on the free list (walks it: for checks and statistics) */
    int freePages() {
        int n = 0;
        int high = header.getInt(HIGH_WATER);
        for (int page = header.getIntVolatile(FREE_HEAD); page != 0 && n < high; page = segment(page).getInt(offset(page) + NEXT)) {
            n++;
        }
        return n;
    }

    /** @return the next page number never used */
    int highWater() {
        return header.getIntVolatile(HIGH_WATER);
    }

    private static void makeOdd(Segment s, long at) {
        int stamp = s.getInt(at + STAMP);
        if ((stamp & 1) == 0) {
            s.putIntOrdered(at + STAMP, stamp + 1);
        }
        VarHandle.storeStoreFence(); // the odd stamp before any byte of the new contents
    }

    // ---------------------------------------------------------------- where pages live

    private long offset(int page) {
        long index = page - 1L;
        int e = SortedLayout.extentOf(index, firstExtentPages, pageSize);
        return (index - SortedLayout.extentStart(e, firstExtentPages, pageSize)) << pageShift;
    }

    private Segment segment(int page) {
        if (page < 1) {
            throw new CorruptFileException("sorted map '" + name + "': page number " + page + " is below 1");
        }
        int e = SortedLayout.extentOf(page - 1L, firstExtentPages, pageSize);
        Segment[] known = extents;
        if (e < known.length && known[e] != null) {
            return known[e];
        }
        return openExtent(e, page);
    }

    private synchronized Segment openExtent(int e, int page) {
        Segment[] known = extents;
        if (e < known.length && known[e] != null) {
            return known[e];
        }
        int made = header.getIntVolatile(EXTENTS);
        if (e >= made) {
            throw new CorruptFileException("sorted map '" + name + "': page " + page + " lies in extent " + e
                    + ", but " + made + " extents exist");
        }
        Segment s = pool.open(SortedLayout.extentName(name, e)).orElseThrow(() -> new CorruptFileException(
                "sorted map '" + name + "': extent segment '" + SortedLayout.extentName(name, e) + "' is missing"));
        long want = SortedLayout.extentPages(e, firstExtentPages, pageSize) << pageShift;
        if (s.size() < want) {
            s.close();
            throw new CorruptFileException("sorted map '" + name + "': extent '" + SortedLayout.extentName(name, e)
                    + "' has " + s.size() + " bytes, fewer than its " + want);
        }
        Segment[] grown = java.util.Arrays.copyOf(known, Math.max(known.length, e + 1));
        grown[e] = s;
        extents = grown;
        return s;
    }

    /** Closes the extents this process opened. */
    synchronized void close() {
        growth.close();
        for (Segment s : extents) {
            if (s != null) {
                s.close();
            }
        }
        extents = new Segment[0];
    }
}
