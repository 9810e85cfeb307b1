package dev.ferrite.internal;

/**
 * Where a segment's chunks are in a backend's address space: for each chunk, a base object and a
 * position, the pair a backend's primitive accesses take (as {@code sun.misc.Unsafe} takes an
 * object and an offset). The {@code unsafe} backend uses no base and absolute addresses,
 * {@code bytebuffer} the extent's buffer and an index into it, {@code ffm} the pool's mapped
 * {@code MemorySegment} and an offset into it. Immutable; shared by every handle on a segment.
 */
public final class ChunkTable {

    private final long[] positions;
    private final Object[] bases;
    private final boolean contiguous;

    /**
     * @param positions where each chunk starts, in segment order
     * @param bases     each chunk's base object (null entries where the backend needs none)
     * @param chunkSize bytes per chunk
     */
    public ChunkTable(long[] positions, Object[] bases, long chunkSize) {
        this.positions = positions;
        this.bases = bases;
        boolean endToEnd = positions.length > 0;
        for (int i = 1; i < positions.length && endToEnd; i++) {
            endToEnd = bases[i] == bases[0] && positions[i] == positions[0] + i * chunkSize;
        }
        this.contiguous = endToEnd;
    }

    /** @return where each chunk starts; not to be modified */
    long[] positions() {
        return positions;
    }

    /** @return each chunk's base object; not to be modified */
    Object[] bases() {
        return bases;
    }

    /**
     * @return whether the chunks lie end to end on one base, so that byte {@code off} of the
     *         segment is at position {@code positions[0] + off}; false for a segment of no chunk
     */
    boolean contiguous() {
        return contiguous;
    }
}
