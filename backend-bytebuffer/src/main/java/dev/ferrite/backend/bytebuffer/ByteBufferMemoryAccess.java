package dev.ferrite.backend.bytebuffer;

import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.ChunkTable;
import dev.ferrite.internal.ExtentViews;
import dev.ferrite.internal.MappedChunkPool;
import dev.ferrite.internal.MemoryAccess;
import dev.ferrite.internal.PoolAccess;
import dev.ferrite.internal.SegmentMemory;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.util.List;

/**
 * Reaches memory through one little-endian view of each extent's mapping, at the chunk's index in
 * the extent: an access is a shift, a mask, two table loads and the JDK's checked absolute access;
 * a segment whose chunks lie end to end in one extent is addressed directly. Public so the
 * {@code shm} backend can use it where Unsafe is not usable.
 */
public final class ByteBufferMemoryAccess implements MemoryAccess {

    /** The one instance. */
    public static final ByteBufferMemoryAccess INSTANCE = new ByteBufferMemoryAccess();

    private ByteBufferMemoryAccess() {
    }

    @Override
    public PoolAccess open(MappedChunkPool pool) {
        ExtentViews views = new ExtentViews(pool, extent -> extent.duplicate().order(ByteOrder.LITTLE_ENDIAN));
        return new PoolAccess() {
            @Override
            public ChunkTable chunkTable(int[] chunks) {
                return views.chunkTable(chunks);
            }

            @Override
            public AbstractSegment newHandle(SegmentMemory memory) {
                return new ByteBufferSegment(memory);
            }

            @Override
            public void release(List<MappedByteBuffer> bookkeeping, List<MappedByteBuffer> extents,
                    boolean handlesWereOpen) {
                // Without Unsafe the JDK unmaps a buffer only when it is garbage-collected.
            }
        };
    }
}
