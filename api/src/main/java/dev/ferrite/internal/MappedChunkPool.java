package dev.ferrite.internal;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.PoolSpec;
import dev.ferrite.RecoveryReport;
import dev.ferrite.Segment;
import dev.ferrite.internal.pool.NamedSegments;
import dev.ferrite.internal.pool.PoolLayout;
import dev.ferrite.internal.pool.PoolStore;
import dev.ferrite.spi.MemoryBackend;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The pool every backend shares: a {@link PoolStore} (the pool file with its header, directory,
 * chunk table and extents, shared with other processes) plus this process's segments and handles.
 * Backends supply only a {@link MemoryAccess}. Thread-safe; segment accesses never take a lock.
 */
public final class MappedChunkPool implements ChunkPool {

    private final PoolSpec spec;
    private final MemoryBackend backend;
    private final MemoryAccess access;
    private final PoolStore store;
    private final PoolAccess poolAccess;
    private final PoolGeometry geometry;
    private final boolean leakDetection;

    private final Object lock = new Object();
    /**
     * Every operation that touches the pool's bookkeeping holds the read side; {@link #close()}
     * takes the write side, so it waits for the operations in flight and later ones find the pool
     * closed: nothing is unmapped under a running operation.
     */
    private final ReentrantReadWriteLock operations = new ReentrantReadWriteLock();
    private final Set<SegmentMemory> live = new HashSet<>();
    private final Map<Integer, SegmentMemory> openNamed = new HashMap<>();
    private volatile boolean closed;

    private MappedChunkPool(PoolSpec spec, MemoryBackend backend, MemoryAccess access, PoolStore store) {
        this.spec = spec;
        this.backend = backend;
        this.access = access;
        this.store = store;
        this.geometry = store.layout().geometry();
        this.leakDetection = LeakTracker.enabled();
        PoolAccess opened;
        try {
            opened = access.open(this);
        } catch (RuntimeException | Error e) {
            // Leave the pool file as if this process had never opened it; the mappings go with GC.
            store.detach();
            throw e;
        }
        this.poolAccess = opened;
    }

    /**
     * Creates a pool in a new, empty file.
     *
     * @param spec    the validated spec
     * @param backend the backend reported by {@link #backend()}
     * @param access  how the backend reaches memory
     * @param file    the new file; the pool closes it
     * @return the open pool
     */
    public static MappedChunkPool create(PoolSpec spec, MemoryBackend backend, MemoryAccess access, PoolFile file) {
        try {
            PoolStore store = PoolStore.create(file, PoolLayout.of(spec), spec.describe(), spec.initialSize());
            return new MappedChunkPool(spec, backend, access, store);
        } catch (RuntimeException | Error e) {
            // A pool that could not be made leaves no file behind (a full file system, say).
            file.closeAndDelete();
            throw e;
        }
    }

    /**
     * Opens the pool in an existing file; its geometry comes from the file's header.
     *
     * @param spec    where the pool is and whether read-only
     * @param backend the backend reported by {@link #backend()}
     * @param access  how the backend reaches memory
     * @param file    the open file; the pool closes it
     * @return the open pool
     * @throws dev.ferrite.CorruptFileException if the file is not a sound pool
     */
    public static MappedChunkPool open(PoolSpec spec, MemoryBackend backend, MemoryAccess access, PoolFile file) {
        try {
            PoolStore store = PoolStore.open(file, spec.describe());
            PoolLayout l = store.layout();
            PoolSpec actual = spec.toBuilder().chunkSize(l.geometry().chunkSize).capacity(l.geometry().capacity)
                    .extentSize(l.geometry().extentSize).maxNamedSegments(l.directorySlots()).initialSize(0)
                    .overwrite(false).build();
            return new MappedChunkPool(actual, backend, access, store);
        } catch (RuntimeException | Error e) {
            file.close();
            throw e;
        }
    }

    /** @return the pool's arithmetic */
    public PoolGeometry geometry() {
        return geometry;
    }

    /**
     * @param chunkId a chunk id held by a segment of this process
     * @return the mapping of the extent holding it
     */
    public MappedByteBuffer extentOf(int chunkId) {
        return store.extentOf(chunkId);
    }

    /**
     * @param chunkId a chunk id
     * @return the chunk's byte offset inside its extent
     */
    public int offsetInExtent(int chunkId) {
        return (chunkId & geometry.chunksPerExtentMask) << geometry.chunkShift;
    }

    /** @return the pool's file store: layout, file, bookkeeping */
    public PoolStore store() {
        return store;
    }

    /**
     * Runs an operation on the open pool.
     *
     * @throws FerriteException if the pool is closed, or closes before the operation starts
     */
    private <T> T operate(Supplier<T> operation) {
        operations.readLock().lock();
        try {
            ensureOpen();
            return operation.get();
        } finally {
            operations.readLock().unlock();
        }
    }

    @Override
    public Segment allocate(long bytes) {
        return operate(() -> allocateUnnamed(bytes));
    }

    private Segment allocateUnnamed(long bytes) {
        ensureWritable();
        checkSize(bytes);
        int[] chunks = store.claim((int) geometry.chunksFor(bytes));
        SegmentMemory memory;
        try {
            memory = new SegmentMemory(this, null, bytes, chunks, poolAccess.chunkTable(chunks));
        } catch (RuntimeException | Error e) {
            store.release(chunks);
            throw e;
        }
        synchronized (lock) {
            if (closed) {
                store.release(chunks);
                throw closedError();
            }
            live.add(memory);
        }
        return newHandle(memory);
    }

    private void checkSize(long bytes) {
        if (bytes < 0) {
            throw new OutOfBoundsException("segment size " + bytes + " is negative; the limit is [0, capacity "
                    + geometry.capacity + "]");
        }
        long needed = geometry.chunksFor(bytes);
        long free = freeChunks();
        if (needed > free) {
            throw new PoolExhaustedException("cannot allocate " + bytes + " bytes (" + needed + " chunks of "
                    + geometry.chunkSize + "): " + free + " chunks free of " + geometry.totalChunks + " (capacity "
                    + geometry.capacity + " bytes) in " + spec.describe());
        }
    }

    @Override
    public Segment allocate(String name, long bytes) {
        return operate(() -> allocateNamed(name, bytes));
    }

    private Segment allocateNamed(String name, long bytes) {
        ensureWritable();
        checkSize(bytes);
        return store.withLock(() -> {
            NamedSegments.Named named = store.named().allocate(name, bytes);
            SegmentMemory memory = new SegmentMemory(this, named, bytes, named.chunks(),
                    poolAccess.chunkTable(named.chunks()));
            synchronized (lock) {
                openNamed.put(named.slot(), memory);
                live.add(memory);
            }
            return newHandle(memory);
        });
    }

    @Override
    public Optional<Segment> open(String name) {
        return operate(() -> openNamed(name));
    }

    private Optional<Segment> openNamed(String name) {
        if (store.isReadOnly()) {
            NamedSegments.Named named = store.named().open(name);
            if (named == null) {
                return Optional.empty();
            }
            SegmentMemory memory = new SegmentMemory(this, named, named.size(), named.chunks(),
                    poolAccess.chunkTable(named.chunks()));
            synchronized (lock) {
                live.add(memory);
            }
            return Optional.of(newHandle(memory));
        }
        return store.withLock(() -> {
            NamedSegments.Named named = store.named().open(name);
            if (named == null) {
                return Optional.empty();
            }
            synchronized (lock) {
                SegmentMemory cached = openNamed.get(named.slot());
                if (cached != null && cached.named().generation() == named.generation()) {
                    AbstractSegment handle = poolAccess.newHandle(cached);
                    if (cached.register(handle)) {
                        trackLeaks(handle, cached);
                        return Optional.of(handle);
                    }
                }
            }
            SegmentMemory memory = new SegmentMemory(this, named, named.size(), named.chunks(),
                    poolAccess.chunkTable(named.chunks()));
            synchronized (lock) {
                openNamed.put(named.slot(), memory);
                live.add(memory);
            }
            return Optional.of(newHandle(memory));
        });
    }

    /**
     * Makes a new registered handle on a segment's memory.
     *
     * @param memory the segment, with at least one open handle or just made
     * @return the open handle
     */
    AbstractSegment newHandle(SegmentMemory memory) {
        AbstractSegment handle = poolAccess.newHandle(memory);
        if (!memory.register(handle)) {
            throw new dev.ferrite.SegmentClosedException(memory.describe() + " is closed");
        }
        trackLeaks(handle, memory);
        return handle;
    }

    private void trackLeaks(AbstractSegment handle, SegmentMemory memory) {
        if (leakDetection) {
            handle.trackLeaks(LeakTracker.track(handle, memory.describe() + " in " + spec.describe()));
        }
    }

    /**
     * The last handle on a segment in this process closed: give back or let go of its chunks. A
     * no-op once the pool is closed (closing gave everything back).
     */
    void lastHandleClosed(SegmentMemory memory) {
        operations.readLock().lock();
        try {
            if (!closed) {
                giveBack(memory);
            }
        } finally {
            operations.readLock().unlock();
        }
    }

    private void giveBack(SegmentMemory memory) {
        if (memory.named() == null) {
            synchronized (lock) {
                if (!live.remove(memory)) {
                    return;
                }
            }
            store.release(memory.chunks());
            return;
        }
        if (store.isReadOnly()) {
            synchronized (lock) {
                live.remove(memory);
            }
            return;
        }
        store.withLock(() -> {
            synchronized (lock) {
                if (!live.remove(memory)) {
                    return null;
                }
                if (openNamed.get(memory.named().slot()) != memory) {
                    // A newer handle set of this process holds the directory entry now.
                    return null;
                }
                openNamed.remove(memory.named().slot());
            }
            store.named().closed(memory.named());
            return null;
        });
    }

    @Override
    public boolean delete(String name) {
        return operate(() -> {
            ensureWritable();
            return store.withLock(() -> store.named().delete(name));
        });
    }

    @Override
    public Set<String> segmentNames() {
        return operate(() -> {
            List<String> names = store.isReadOnly() ? store.named().names() : store.withLock(store.named()::names);
            return Set.copyOf(new TreeSet<>(names));
        });
    }

    @Override
    public long chunkSize() {
        return geometry.chunkSize;
    }

    @Override
    public long capacity() {
        return geometry.capacity;
    }

    @Override
    public long freeChunks() {
        return operate(() -> geometry.totalChunks - store.usedChunks());
    }

    @Override
    public long usedChunks() {
        return operate(store::usedChunks);
    }

    @Override
    public PoolSpec spec() {
        return spec;
    }

    @Override
    public void force() {
        operate(() -> {
            if (spec.kind() != PoolSpec.Kind.ANONYMOUS && !store.isReadOnly()) {
                try {
                    store.force();
                    poolAccess.force(); // a backend's own mapping of the data (ffm's) is not the store's
                } catch (UncheckedIOException e) {
                    throw new FerriteException("cannot write " + spec.describe() + " to its file: " + e.getCause(), e);
                }
            }
            return null;
        });
    }

    @Override
    public RecoveryReport recover() {
        return operate(() -> {
            ensureWritable();
            return store.recover();
        });
    }

    @Override
    public RecoveryReport openReport() {
        return store.openReport();
    }

    @Override
    public MemoryBackend backend() {
        return backend;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        operations.writeLock().lock();
        try {
            closeNow();
        } finally {
            operations.writeLock().unlock();
        }
    }

    private void closeNow() {
        List<SegmentMemory> mine;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            mine = new ArrayList<>(live);
            live.clear();
            openNamed.clear();
        }
        if (leakDetection) {
            LeakTracker.reportCollected();
        }
        boolean handlesWereOpen = false;
        try {
            for (SegmentMemory m : mine) {
                handlesWereOpen |= m.invalidate();
            }
            if (!store.isReadOnly()) {
                store.withLock(() -> {
                    for (SegmentMemory m : mine) {
                        if (m.named() == null) {
                            store.release(m.chunks());
                        } else {
                            store.named().closed(m.named());
                        }
                    }
                    return null;
                });
                store.detach();
            }
        } finally {
            poolAccess.release(store.bookkeepingMappings(), store.extentMappings(), handlesWereOpen);
            store.closeFile();
        }
    }

    private FerriteException closedError() {
        return new FerriteException(spec.describe() + " is closed");
    }

    private void ensureOpen() {
        if (closed) {
            throw closedError();
        }
    }

    private void ensureWritable() {
        ensureOpen();
        if (store.isReadOnly()) {
            throw new FerriteException(spec.describe() + " is open read-only");
        }
    }

    @Override
    public String toString() {
        return "ChunkPool[" + backend.name() + ", " + spec.describe() + ", chunkSize=" + geometry.chunkSize
                + ", capacity=" + geometry.capacity + "]";
    }
}
