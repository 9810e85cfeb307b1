package dev.ferrite.internal;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.PoolSpec;
import dev.ferrite.RecoveryReport;
import dev.ferrite.Segment;
import dev.ferrite.spi.MemoryBackend;
import java.nio.MappedByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pool machinery every backend shares: memory obtained from a {@link PoolFile} in extents
 * (one mapping of at most 1 GiB each, carved into chunks, obtained lazily up to capacity), a free
 * list of chunk ids, the directory of named segments, and reference-counted segment memory.
 * Backends supply only a {@link MemoryAccess}. Thread-safe: one lock guards the bookkeeping;
 * segment accesses never take it.
 */
public final class MappedChunkPool implements ChunkPool {

    /** Longest segment name, in characters. */
    public static final int MAX_NAME_LENGTH = 255;

    private final PoolSpec spec;
    private final MemoryBackend backend;
    private final MemoryAccess access;
    private final PoolFile file;
    private final long dataOffset;
    private final PoolGeometry geometry;
    private final boolean leakDetection;

    private final Object lock = new Object();
    private final MappedByteBuffer[] extents;
    private int obtainedExtents;
    private final FreeList free = new FreeList();
    private long usedChunks;
    private final Map<String, SegmentMemory> directory = new HashMap<>();
    private final Set<SegmentMemory> live = new HashSet<>();
    private volatile boolean closed;

    /**
     * Makes a pool and obtains its initial extents.
     *
     * @param spec       the validated spec
     * @param backend    the backend reported by {@link #backend()}
     * @param access     how the backend reaches memory
     * @param file       where extents are mapped from; the pool closes it
     * @param dataOffset file offset of extent 0
     * @throws FerriteException if the initial memory cannot be obtained; the file is closed then
     */
    public MappedChunkPool(PoolSpec spec, MemoryBackend backend, MemoryAccess access, PoolFile file, long dataOffset) {
        this.spec = spec;
        this.backend = backend;
        this.access = access;
        this.file = file;
        this.dataOffset = dataOffset;
        this.geometry = new PoolGeometry(spec);
        this.extents = new MappedByteBuffer[geometry.extentCount];
        this.leakDetection = LeakTracker.enabled();
        try {
            long initialExtents = (spec.initialSize() + geometry.extentSize - 1) / geometry.extentSize;
            synchronized (lock) {
                for (int i = 0; i < initialExtents; i++) {
                    obtainExtent();
                }
            }
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /** @return the pool's arithmetic */
    public PoolGeometry geometry() {
        return geometry;
    }

    /**
     * @param chunkId a chunk id of an obtained extent
     * @return the mapping of the extent holding it
     */
    public MappedByteBuffer extentOf(int chunkId) {
        return extents[chunkId >>> geometry.chunksPerExtentShift];
    }

    /**
     * @param chunkId a chunk id
     * @return the chunk's byte offset inside its extent
     */
    public int offsetInExtent(int chunkId) {
        return (chunkId & geometry.chunksPerExtentMask) << geometry.chunkShift;
    }

    @Override
    public Segment allocate(long bytes) {
        return allocate(null, bytes, false);
    }

    @Override
    public Segment allocate(String name, long bytes) {
        validateName(name);
        return allocate(name, bytes, true);
    }

    private Segment allocate(String name, long bytes, boolean named) {
        if (bytes < 0) {
            throw new OutOfBoundsException("segment size " + bytes + " is negative; the limit is [0, capacity "
                    + geometry.capacity + "]");
        }
        SegmentMemory memory;
        synchronized (lock) {
            ensureWritable();
            if (named && directory.containsKey(name)) {
                throw new FerriteException("segment '" + name + "' already exists in " + spec.describe()
                        + "; open it, or delete it first");
            }
            long needed = geometry.chunksFor(bytes);
            long available = geometry.totalChunks - usedChunks;
            if (needed > available) {
                throw new PoolExhaustedException("cannot allocate " + bytes + " bytes (" + needed + " chunks of "
                        + geometry.chunkSize + "): " + available + " chunks free of " + geometry.totalChunks
                        + " (capacity " + geometry.capacity + " bytes) in " + spec.describe());
            }
            while (free.size() < needed) {
                obtainExtent();
            }
            int[] chunks = free.pop((int) needed);
            try {
                memory = new SegmentMemory(this, name, bytes, chunks, access.chunkTable(this, chunks));
            } catch (RuntimeException | Error e) {
                free.pushAll(chunks);
                throw e;
            }
            usedChunks += needed;
            live.add(memory);
            if (named) {
                directory.put(name, memory);
            }
        }
        return newHandle(memory);
    }

    /**
     * Makes a new registered handle on a segment's memory.
     *
     * @param memory the segment
     * @return the open handle
     */
    AbstractSegment newHandle(SegmentMemory memory) {
        AbstractSegment handle = access.newHandle(memory);
        memory.register(handle);
        if (leakDetection) {
            handle.trackLeaks(LeakTracker.track(handle, memory.describe() + " in " + spec.describe()));
        }
        return handle;
    }

    private void obtainExtent() {
        int index = obtainedExtents;
        long bytes = geometry.extentBytes(index);
        MappedByteBuffer mapping = file.map(dataOffset + index * geometry.extentSize, bytes);
        extents[index] = mapping;
        obtainedExtents++;
        free.pushRange(geometry.firstChunk(index), (int) (bytes >>> geometry.chunkShift));
    }

    /** Gives a segment's chunks back; called once, when its last reference is gone. */
    void free(SegmentMemory memory) {
        synchronized (lock) {
            if (closed || !live.remove(memory)) {
                return;
            }
            free.pushAll(memory.chunks());
            usedChunks -= memory.chunks().length;
        }
    }

    @Override
    public Optional<Segment> open(String name) {
        synchronized (lock) {
            ensureOpen();
            SegmentMemory memory = directory.get(name);
            return memory == null ? Optional.empty() : Optional.of(newHandle(memory));
        }
    }

    @Override
    public boolean delete(String name) {
        synchronized (lock) {
            ensureWritable();
            SegmentMemory memory = directory.remove(name);
            if (memory == null) {
                return false;
            }
            if (memory.unname()) {
                free(memory);
            }
            return true;
        }
    }

    @Override
    public Set<String> segmentNames() {
        synchronized (lock) {
            return Set.copyOf(new TreeSet<>(directory.keySet()));
        }
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
        synchronized (lock) {
            return geometry.totalChunks - usedChunks;
        }
    }

    @Override
    public long usedChunks() {
        synchronized (lock) {
            return usedChunks;
        }
    }

    /** @return whether the backend's handles check every access */
    public boolean isChecked() {
        return access.isChecked();
    }

    /** @return extents mapped so far */
    public int obtainedExtents() {
        synchronized (lock) {
            return obtainedExtents;
        }
    }

    @Override
    public PoolSpec spec() {
        return spec;
    }

    @Override
    public void force() {
        synchronized (lock) {
            ensureOpen();
            if (spec.kind() == PoolSpec.Kind.ANONYMOUS || file.isReadOnly()) {
                return;
            }
            for (int i = 0; i < obtainedExtents; i++) {
                extents[i].force();
            }
        }
    }

    @Override
    public RecoveryReport recover() {
        synchronized (lock) {
            ensureOpen();
            int obtainedChunks = obtainedChunks();
            BitSet owned = new BitSet(obtainedChunks);
            List<String> notes = new ArrayList<>();
            long ownedCount = 0;
            for (SegmentMemory m : live) {
                for (int id : m.chunks()) {
                    if (owned.get(id)) {
                        notes.add("chunk " + id + " is owned by two segments");
                    }
                    owned.set(id);
                    ownedCount++;
                }
            }
            BitSet seen = new BitSet(obtainedChunks);
            FreeList rebuilt = new FreeList();
            for (int id : free.snapshot()) {
                if (owned.get(id) || seen.get(id)) {
                    notes.add("chunk " + id + (owned.get(id) ? " is free and owned at once" : " is free twice")
                            + "; dropped from the free list");
                    continue;
                }
                seen.set(id);
                rebuilt.push(id);
            }
            long leaked = 0;
            for (int id = obtainedChunks - 1; id >= 0; id--) {
                if (!owned.get(id) && !seen.get(id)) {
                    rebuilt.push(id);
                    leaked++;
                }
            }
            if (leaked > 0) {
                notes.add(leaked + " chunks were owned by nothing and not free; given back");
            }
            if (!notes.isEmpty()) {
                free.replaceWith(rebuilt);
                usedChunks = ownedCount;
            }
            return new RecoveryReport(ownedCount, geometry.totalChunks - usedChunks, leaked, leaked, notes);
        }
    }

    private int obtainedChunks() {
        if (obtainedExtents == 0) {
            return 0;
        }
        int last = obtainedExtents - 1;
        return geometry.firstChunk(last) + (int) (geometry.extentBytes(last) >>> geometry.chunkShift);
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
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (SegmentMemory m : live) {
                m.invalidate();
            }
            live.clear();
            directory.clear();
            release();
        }
    }

    private void release() {
        for (int i = 0; i < obtainedExtents; i++) {
            access.unmap(extents[i]);
            extents[i] = null;
        }
        file.close();
    }

    private void ensureOpen() {
        if (closed) {
            throw new FerriteException(spec.describe() + " is closed");
        }
    }

    private void ensureWritable() {
        ensureOpen();
        if (file.isReadOnly()) {
            throw new FerriteException(spec.describe() + " is open read-only");
        }
    }

    private static void validateName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            throw new FerriteException("segment name " + (name == null ? "null" : "'" + name + "' of " + name.length()
                    + " characters") + " is not allowed; give 1 to " + MAX_NAME_LENGTH + " characters");
        }
    }

    @Override
    public String toString() {
        return "ChunkPool[" + backend.name() + ", " + spec.describe() + ", chunkSize=" + geometry.chunkSize
                + ", capacity=" + geometry.capacity + "]";
    }
}
