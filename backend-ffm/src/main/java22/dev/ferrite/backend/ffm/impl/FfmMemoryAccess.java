package dev.ferrite.backend.ffm.impl;

import dev.ferrite.FerriteException;
import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.ChunkTable;
import dev.ferrite.internal.ExtentViews;
import dev.ferrite.internal.MappedChunkPool;
import dev.ferrite.internal.MemoryAccess;
import dev.ferrite.internal.PoolAccess;
import dev.ferrite.internal.SegmentMemory;
import dev.ferrite.internal.pool.PoolLayout;
import dev.ferrite.internal.pool.PoolStore;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.ref.Cleaner;
import java.lang.foreign.MemorySegment;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * Maps a writable pool's whole data region as one {@link MemorySegment} in a shared {@link Arena}
 * owned by the pool, and gives each segment a table of chunk offsets into it (a read-only pool
 * cannot map past the file's end, so it maps extent by extent instead). The arena is closed once,
 * when the pool closes: closing a shared arena is a handshake with every thread, so it never
 * happens on an access path (see JDK-8335480; Lucene groups its mappings the same way).
 */
public final class FfmMemoryAccess implements MemoryAccess {

    private static final Cleaner CLEANER = Cleaner.create();

    /** The one instance; found by reflection from the Java 17 provider class. */
    public static final FfmMemoryAccess INSTANCE = new FfmMemoryAccess();

    private FfmMemoryAccess() {
    }

    @Override
    public PoolAccess open(MappedChunkPool pool) {
        PoolStore store = pool.store();
        PoolLayout layout = store.layout();
        if (store.isReadOnly()) {
            return readOnly(pool);
        }
        int chunkShift = layout.geometry().chunkShift;
        Arena arena = Arena.ofShared();
        MemorySegment data;
        try {
            FileChannel channel = store.file().channel();
            data = channel.map(FileChannel.MapMode.READ_WRITE, layout.dataOffset(), layout.geometry().capacity, arena);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw new FerriteException("cannot map the " + layout.geometry().capacity + "-byte data region of "
                    + pool.spec().describe() + " as one memory segment: " + e, e);
        }
        return new PoolAccess() {
            @Override
            public ChunkTable chunkTable(int[] chunks) {
                long[] offsets = new long[chunks.length];
                Object[] bases = new Object[chunks.length];
                for (int i = 0; i < chunks.length; i++) {
                    offsets[i] = (long) chunks[i] << chunkShift;
                    bases[i] = data;
                }
                return new ChunkTable(offsets, bases, layout.geometry().chunkSize);
            }

            @Override
            public AbstractSegment newHandle(SegmentMemory memory) {
                return new FfmSegment(memory);
            }

            /** The data region is this mapping, not the store's extents: msync it. */
            @Override
            public void force() {
                data.force();
            }

            @Override
            public void release(List<MappedByteBuffer> bookkeeping, List<MappedByteBuffer> extents,
                    boolean handlesWereOpen) {
                if (handlesWereOpen) {
                    // An access that passed Ferrite's check just before the close may be running:
                    // closing the arena now would make it fail with the JDK's IllegalStateException.
                    // The handles reach this object through the pool; once they are unreachable,
                    // the arena closes.
                    CLEANER.register(this, arena::close);
                } else {
                    arena.close();
                }
            }
        };
    }

    /**
     * A read-only opener cannot map past the end of the file, and a writer may lengthen it later:
     * each extent is reached through the store's read-only mapping of it, made when a segment in
     * it is first opened, as a {@link MemorySegment} view (one per extent, so chunks of one extent
     * share their base and contiguous segments stay direct).
     */
    private static PoolAccess readOnly(MappedChunkPool pool) {
        ExtentViews views = new ExtentViews(pool, MemorySegment::ofBuffer);
        return new PoolAccess() {
            @Override
            public ChunkTable chunkTable(int[] chunks) {
                return views.chunkTable(chunks);
            }

            @Override
            public AbstractSegment newHandle(SegmentMemory memory) {
                return new FfmSegment(memory);
            }

            @Override
            public void release(List<MappedByteBuffer> bookkeeping, List<MappedByteBuffer> extents,
                    boolean handlesWereOpen) {
                // The store's read-only mappings are unmapped by the garbage collector.
            }
        };
    }
}
