package dev.ferrite.internal;

import java.nio.MappedByteBuffer;
import java.util.List;

/**
 * A backend's access to one pool's memory: how a segment's chunks are reached and how handles
 * are made. Made by {@link MemoryAccess#open}; thread-safe.
 */
public interface PoolAccess {

    /**
     * Where a segment's chunks are for the backend's primitives: a base object and a position per
     * chunk. Called once per segment and process; the handles made by {@link #newHandle} share it.
     *
     * @param chunks the segment's chunk ids, in segment order
     * @return the chunk table
     */
    ChunkTable chunkTable(int[] chunks);

    /**
     * Makes a new handle on a segment; the caller counts the reference.
     *
     * @param memory the segment's shared state, whose {@link SegmentMemory#chunkTable()} came from
     *               {@link #chunkTable}
     * @return the handle
     */
    AbstractSegment newHandle(SegmentMemory memory);

    /**
     * Writes to the file what the backend's own mappings of the pool's data changed, for a pool
     * whose data the backend maps itself rather than through the store's extent mappings (which
     * the store forces). Called by {@code ChunkPool.force()} of a file or shm pool opened for
     * writing, after the store's mappings were forced, while the pool is open.
     *
     * @throws java.io.UncheckedIOException if the system cannot write the pages
     */
    default void force() {
    }

    /**
     * Lets go of the pool's memory as it closes, after every operation on the pool has finished
     * and every handle was marked closed. The bookkeeping mappings are touched by nothing any
     * more. The extents may still be: when {@code handlesWereOpen}, another thread may be in the
     * middle of an access that passed its check before the close, so the backend must not unmap
     * what such an access reaches until the handles are unreachable (leave it to the garbage
     * collector); otherwise it may unmap at once.
     *
     * @param bookkeeping     the store's mappings of header, directory and chunk table
     * @param extents         the store's mappings of data extents
     * @param handlesWereOpen whether handles of the pool were still open when it closed
     */
    void release(List<MappedByteBuffer> bookkeeping, List<MappedByteBuffer> extents, boolean handlesWereOpen);
}
