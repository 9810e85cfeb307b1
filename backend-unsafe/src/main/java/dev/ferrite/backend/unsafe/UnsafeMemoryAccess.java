package dev.ferrite.backend.unsafe;

import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.ChunkTable;
import dev.ferrite.internal.MappedChunkPool;
import dev.ferrite.internal.MemoryAccess;
import dev.ferrite.internal.PoolAccess;
import dev.ferrite.internal.SegmentMemory;
import java.nio.MappedByteBuffer;
import java.util.List;

/**
 * Reaches memory with {@code sun.misc.Unsafe} through a flat table of chunk base addresses per
 * segment, so an access is a shift, a mask, a load and the access itself; a segment whose chunks
 * lie end to end is addressed directly. Extents are mapped as
 * segments need them and unmapped at once when the pool closes. Public so the {@code shm} backend
 * can use it.
 */
public final class UnsafeMemoryAccess implements MemoryAccess {

    /** The one instance. */
    public static final UnsafeMemoryAccess INSTANCE = new UnsafeMemoryAccess();

    private UnsafeMemoryAccess() {
    }

    /** @return whether Unsafe is usable on this JVM */
    public static boolean isUsable() {
        return UnsafeAccess.UNSAFE != null;
    }

    /** @return why Unsafe is not usable, or an empty string */
    public static String unusableReason() {
        return UnsafeAccess.UNAVAILABLE_REASON;
    }

    @Override
    public PoolAccess open(MappedChunkPool pool) {
        return new PoolAccess() {
            @Override
            public ChunkTable chunkTable(int[] chunks) {
                long[] addresses = new long[chunks.length];
                for (int i = 0; i < chunks.length; i++) {
                    addresses[i] = UnsafeAccess.address(pool.extentOf(chunks[i])) + pool.offsetInExtent(chunks[i]);
                }
                return new ChunkTable(addresses, new Object[chunks.length], pool.chunkSize());
            }

            @Override
            public AbstractSegment newHandle(SegmentMemory memory) {
                return new UnsafeSegment(memory);
            }

            @Override
            public void release(List<MappedByteBuffer> bookkeeping, List<MappedByteBuffer> extents,
                    boolean handlesWereOpen) {
                bookkeeping.forEach(UnsafeAccess.UNSAFE::invokeCleaner);
                if (!handlesWereOpen) {
                    extents.forEach(UnsafeAccess.UNSAFE::invokeCleaner);
                }
                // Else an access that passed its check just before the close may still be running:
                // the extents stay mapped until the handles (which reach them through the pool)
                // are garbage-collected, and the buffers' own cleaners unmap them.
            }
        };
    }
}
