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
     * Lets go of the pool's memory as it closes: the backend's own mappings, and the extent
     * mappings the pool's store made (unmapped now if the backend can, else left to the garbage
     * collector). No handle is used afterwards.
     *
     * @param storeMappings the mappings of the pool's file that the store made
     */
    void release(List<MappedByteBuffer> storeMappings);
}
