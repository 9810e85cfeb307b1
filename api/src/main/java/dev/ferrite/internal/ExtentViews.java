package dev.ferrite.internal;

import java.nio.MappedByteBuffer;
import java.util.function.Function;

/**
 * Chunk tables for backends that reach memory through the store's mapping of each extent: the
 * base of a chunk is one view of its extent's mapping (a little-endian buffer, a memory segment
 * ...), made on first use and shared, so chunks of one extent share their base and a contiguous
 * segment is addressed directly; the position is the chunk's offset in its extent. Thread-safe.
 */
public final class ExtentViews {

    private final MappedChunkPool pool;
    private final Function<MappedByteBuffer, Object> view;
    private final Object[] views;

    /**
     * @param pool the pool
     * @param view makes the backend's view of one extent's mapping
     */
    public ExtentViews(MappedChunkPool pool, Function<MappedByteBuffer, Object> view) {
        this.pool = pool;
        this.view = view;
        this.views = new Object[pool.geometry().extentCount];
    }

    /**
     * @param chunks a segment's chunk ids, in segment order
     * @return their table: each chunk's extent view and offset in it
     */
    public ChunkTable chunkTable(int[] chunks) {
        long[] positions = new long[chunks.length];
        Object[] bases = new Object[chunks.length];
        for (int i = 0; i < chunks.length; i++) {
            positions[i] = pool.offsetInExtent(chunks[i]);
            bases[i] = viewOf(chunks[i]);
        }
        return new ChunkTable(positions, bases, pool.chunkSize());
    }

    private synchronized Object viewOf(int chunk) {
        int e = chunk >>> pool.geometry().chunksPerExtentShift;
        if (views[e] == null) {
            views[e] = view.apply(pool.extentOf(chunk));
        }
        return views[e];
    }
}
