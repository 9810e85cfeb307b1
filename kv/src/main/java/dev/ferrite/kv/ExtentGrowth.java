package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import static dev.ferrite.kv.SortedLayout.EXTENTS;

/**
 * Where a sorted map's extent segments come from. Making one reserves its memory in the file
 * system first (on a RAM file system by writing it: about 0.4 s a GiB here), so the write that
 * needs a new extent would wait for all of it. With a growth executor the next extent is made
 * there ahead of need, once the writer has taken three quarters of the last one, and the writer
 * adopts it: an extent segment found under the next extent's name with the extent's size (made
 * ahead, or left by a writer killed before it counted it) is used as it is; a smaller one is
 * replaced. A page's bytes are written whole before it is published, so an adopted extent's old
 * bytes are never read. Thread-safe: the writer's methods run under the map's lock, the
 * preparation on the executor.
 */
final class ExtentGrowth {

    private static final Logger LOG = LoggerFactory.getLogger(ExtentGrowth.class);

    private final ChunkPool pool;
    private final String name;
    private final Segment header;
    private final long firstExtentPages;
    private final int pageSize;
    private final int pageShift;
    /** Where the next extent is made ahead of need; null: the writer makes each when it needs it. */
    private final Executor executor;
    /** The extent last handed to the executor (the writer's, under the map's lock): one request each. */
    private int requested = -1;
    private volatile boolean closed;
    /** Extents the writer made itself when it needed them. */
    final AtomicLong madeAtNeed = new AtomicLong();
    /** Extents the writer found made and adopted. */
    final AtomicLong adopted = new AtomicLong();
    /** Extents the executor made ahead of need. */
    final AtomicLong madeAhead = new AtomicLong();

    ExtentGrowth(ChunkPool pool, String name, Segment header, long firstExtentPages, int pageSize, Executor executor) {
        this.pool = pool;
        this.name = name;
        this.header = header;
        this.firstExtentPages = firstExtentPages;
        this.pageSize = pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.executor = executor;
    }

    /**
     * Makes extent {@code e}, the next one, for the writer (under the map's lock), or adopts it if
     * it is there; the caller counts it in the header afterwards.
     *
     * @throws dev.ferrite.PoolExhaustedException if the pool has no room for it
     */
    void make(int e) {
        String n = SortedLayout.extentName(name, e);
        long bytes = bytes(e);
        if (present(n, bytes)) {
            adopted.incrementAndGet();
            return;
        }
        try {
            pool.allocate(n, bytes).close();
        } catch (FerriteException refused) {
            if (!present(n, bytes)) { // not the executor's extent, made meanwhile: the pool's own error
                throw refused;
            }
            adopted.incrementAndGet();
            return;
        }
        madeAtNeed.incrementAndGet();
    }

    /**
     * After the writer took page {@code high} from extent {@code e}, the last made: asks the
     * executor for extent {@code e + 1} once three quarters of extent {@code e} are taken.
     */
    void taken(int high, int e) {
        if (executor == null || requested > e) {
            return;
        }
        long into = high - 1L - SortedLayout.extentStart(e, firstExtentPages, pageSize);
        if (into < SortedLayout.extentPages(e, firstExtentPages, pageSize) / 4 * 3) {
            return;
        }
        requested = e + 1;
        try {
            executor.execute(() -> prepare(e + 1));
        } catch (RejectedExecutionException ex) {
            LOG.debug("sorted map '{}': extent {} will be made when it is needed ({})", name, e + 1, ex.toString());
        }
    }

    /** The executor's task: makes extent {@code e} unless it is made, or the map is closed. */
    private void prepare(int e) {
        String n = SortedLayout.extentName(name, e);
        try {
            if (closed || header.getIntVolatile(EXTENTS) > e || sizeOf(n) >= 0) {
                return;
            }
            pool.allocate(n, bytes(e)).close();
            madeAhead.incrementAndGet();
        } catch (RuntimeException ex) {
            // Made meanwhile, the pool full or closed: the writer makes it, or says why, when it needs it.
            LOG.debug("sorted map '{}': extent {} not made ahead: {}", name, e, ex.toString());
        }
    }

    /** @return whether the pool holds a segment of that name and at least that size */
    private boolean present(String n, long bytes) {
        long size = sizeOf(n);
        if (size >= bytes) {
            return true;
        }
        if (size >= 0) {
            pool.delete(n); // smaller than the extent: no extent this map made
        }
        return false;
    }

    /** @return the size in bytes of the pool's segment of that name, or -1 if it has none */
    private long sizeOf(String n) {
        Optional<Segment> found = pool.open(n);
        if (found.isEmpty()) {
            return -1;
        }
        try (Segment s = found.get()) {
            return s.size();
        }
    }

    private long bytes(int e) {
        return SortedLayout.extentPages(e, firstExtentPages, pageSize) << pageShift;
    }

    /** Stops asking for extents ahead; a preparation already running may still make one (adopted on the next growth). */
    void close() {
        closed = true;
    }
}
