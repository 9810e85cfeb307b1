package dev.ferrite.backend.bytebuffer;

import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.MappedChunkPool;
import dev.ferrite.internal.MemoryAccess;
import dev.ferrite.internal.PoolAccess;
import dev.ferrite.internal.SegmentMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.util.List;

/**
 * Reaches memory through one little-endian buffer slice per chunk, so an access is a shift, a
 * mask, a load of the slice and the JDK's checked absolute access. Public so the {@code shm}
 * backend can use it where Unsafe is not usable.
 */
public final class ByteBufferMemoryAccess implements MemoryAccess {

    /** The one instance. */
    public static final ByteBufferMemoryAccess INSTANCE = new ByteBufferMemoryAccess();

    private ByteBufferMemoryAccess() {
    }

    @Override
    public PoolAccess open(MappedChunkPool pool) {
        int chunkSize = (int) pool.chunkSize();
        return new PoolAccess() {
            @Override
            public Object chunkTable(int[] chunks) {
                ByteBuffer[] slices = new ByteBuffer[chunks.length];
                boolean contiguous = chunks.length > 0;
                for (int i = 0; i < chunks.length; i++) {
                    slices[i] = pool.extentOf(chunks[i]).slice(pool.offsetInExtent(chunks[i]), chunkSize)
                            .order(ByteOrder.LITTLE_ENDIAN);
                    contiguous &= chunks[i] == chunks[0] + i && pool.extentOf(chunks[i]) == pool.extentOf(chunks[0]);
                }
                ByteBuffer whole = contiguous ? pool.extentOf(chunks[0]).slice(pool.offsetInExtent(chunks[0]),
                        chunks.length * chunkSize).order(ByteOrder.LITTLE_ENDIAN) : null;
                return new ChunkBuffers(slices, whole);
            }

            @Override
            public AbstractSegment newHandle(SegmentMemory memory) {
                return new ByteBufferSegment(memory);
            }

            @Override
            public void release(List<MappedByteBuffer> storeMappings) {
                // Without Unsafe the JDK unmaps a buffer only when it is garbage-collected.
            }
        };
    }

    @Override
    public boolean isChecked() {
        return true;
    }
}
