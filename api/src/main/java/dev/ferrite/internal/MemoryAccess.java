package dev.ferrite.internal;

import java.nio.MappedByteBuffer;

/**
 * What a backend supplies to a {@link MappedChunkPool}: how a segment's memory is accessed, and
 * how an extent is let go. Everything else (extents, free list, directory, reference counts) is
 * the pool's, written once for every backend.
 */
public interface MemoryAccess {

    /**
     * Builds what the backend's handles need to reach a segment's chunks (a table of chunk base
     * addresses, of chunk buffers, ...). Called once per segment; handles made by
     * {@link #newHandle} share it.
     *
     * @param pool   the pool the chunks belong to
     * @param chunks the segment's chunk ids, in segment order
     * @return the backend's chunk table
     */
    Object chunkTable(MappedChunkPool pool, int[] chunks);

    /**
     * Makes a new open handle on a segment; the caller has counted the reference.
     *
     * @param memory the segment's shared state, whose {@link SegmentMemory#chunkTable()} came from
     *               {@link #chunkTable}
     * @return the handle
     */
    AbstractSegment newHandle(SegmentMemory memory);

    /**
     * Lets an extent go when its pool closes: unmap it now if the backend can, else leave it to
     * the garbage collector.
     *
     * @param extent the mapping
     */
    void unmap(MappedByteBuffer extent);

    /** @return whether handles check offsets and closed state on every access */
    boolean isChecked();
}
