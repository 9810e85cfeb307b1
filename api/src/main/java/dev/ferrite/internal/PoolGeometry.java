package dev.ferrite.internal;

import dev.ferrite.PoolSpec;

/**
 * The arithmetic of a pool: chunk and extent sizes as shifts and masks, and how chunk ids map to
 * extents. Chunk {@code id} lives in extent {@code id >>> chunksPerExtentShift} at byte
 * {@code (id & chunksPerExtentMask) << chunkShift}. Immutable.
 */
public final class PoolGeometry {

    /** Bytes per chunk, a power of two. */
    public final long chunkSize;
    /** log2 of {@link #chunkSize}. */
    public final int chunkShift;
    /** {@code chunkSize - 1}. */
    public final long chunkMask;
    /** Bytes the pool may hold, a multiple of the chunk size. */
    public final long capacity;
    /** Chunks the pool may hold. */
    public final int totalChunks;
    /** Bytes per extent (the last one may be shorter), a power of two. */
    public final long extentSize;
    /** log2 of chunks per extent. */
    public final int chunksPerExtentShift;
    /** Chunks per full extent minus one. */
    public final int chunksPerExtentMask;
    /** Extents needed to reach capacity. */
    public final int extentCount;

    /**
     * @param spec a validated spec
     */
    public PoolGeometry(PoolSpec spec) {
        this(spec.chunkSize(), spec.capacity(), spec.extentSize());
    }

    /**
     * @param chunkSize  bytes per chunk, a power of two
     * @param capacity   bytes, a multiple of chunkSize
     * @param extentSize bytes per extent, a power of two at least chunkSize
     */
    public PoolGeometry(long chunkSize, long capacity, long extentSize) {
        this.chunkSize = chunkSize;
        this.chunkShift = Long.numberOfTrailingZeros(chunkSize);
        this.chunkMask = chunkSize - 1;
        this.capacity = capacity;
        this.totalChunks = Math.toIntExact(capacity >>> chunkShift);
        this.extentSize = extentSize;
        this.chunksPerExtentShift = Long.numberOfTrailingZeros(extentSize) - chunkShift;
        this.chunksPerExtentMask = (1 << chunksPerExtentShift) - 1;
        this.extentCount = Math.toIntExact((capacity + extentSize - 1) / extentSize);
    }

    /**
     * @param extent extent index in [0, extentCount)
     * @return its size in bytes: the extent size, or what remains of capacity for the last one
     */
    public long extentBytes(int extent) {
        return Math.min(extentSize, capacity - extent * extentSize);
    }

    /**
     * @param extent extent index
     * @return the id of its first chunk
     */
    public int firstChunk(int extent) {
        return extent << chunksPerExtentShift;
    }

    /**
     * @param bytes a size in bytes, at least 0
     * @return chunks needed to hold it
     */
    public long chunksFor(long bytes) {
        return (bytes + chunkMask) >>> chunkShift;
    }
}
