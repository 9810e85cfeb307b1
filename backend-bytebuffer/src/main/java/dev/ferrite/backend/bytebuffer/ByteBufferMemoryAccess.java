package dev.ferrite.backend.bytebuffer;

import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.MappedChunkPool;
import dev.ferrite.internal.MemoryAccess;
import dev.ferrite.internal.SegmentMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;

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
    public Object chunkTable(MappedChunkPool pool, int[] chunks) {
        int chunkSize = (int) pool.chunkSize();
        ByteBuffer[] slices = new ByteBuffer[chunks.length];
        for (int i = 0; i < chunks.length; i++) {
            slices[i] = pool.extentOf(chunks[i]).slice(pool.offsetInExtent(chunks[i]), chunkSize)
                    .order(ByteOrder.LITTLE_ENDIAN);
        }
        return slices;
    }

    @Override
    public AbstractSegment newHandle(SegmentMemory memory) {
        return new ByteBufferSegment(memory);
    }

    @Override
    public void unmap(MappedByteBuffer extent) {
        // Without Unsafe the JDK unmaps only when the buffer is garbage-collected.
    }

    @Override
    public boolean isChecked() {
        return true;
    }
}
