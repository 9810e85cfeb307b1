package dev.ferrite.internal;

import dev.ferrite.internal.pool.NamedSegments;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * What every handle on one segment in this process shares: its chunks, its size, its name, and
 * how many handles are open. When the last handle closes, the pool is told: an unnamed segment's
 * chunks go back at once; a named one stays in the pool's directory until deleted. Thread-safe
 * (guarded by this object's monitor).
 */
public final class SegmentMemory {

    private final MappedChunkPool pool;
    private final NamedSegments.Named named;
    private final long size;
    private final int[] chunks;
    private final ChunkTable chunkTable;
    // Weak, so a handle that is dropped without close() can be collected and reported as a leak.
    private final Set<AbstractSegment> handles = Collections.newSetFromMap(new WeakHashMap<>());
    private int openHandles;
    private boolean released;

    SegmentMemory(MappedChunkPool pool, NamedSegments.Named named, long size, int[] chunks, ChunkTable chunkTable) {
        this.pool = pool;
        this.named = named;
        this.size = size;
        this.chunks = chunks;
        this.chunkTable = chunkTable;
    }

    /** @return the pool of the chunks */
    public MappedChunkPool pool() {
        return pool;
    }

    /** @return the name, or null for an unnamed segment */
    public String name() {
        return named == null ? null : named.name();
    }

    /** @return the directory entry of a named segment, or null */
    NamedSegments.Named named() {
        return named;
    }

    /** @return the size in bytes */
    public long size() {
        return size;
    }

    /** @return the chunk ids in segment order; not to be modified */
    public int[] chunks() {
        return chunks;
    }

    /** @return where the chunks are for the backend's primitives */
    public ChunkTable chunkTable() {
        return chunkTable;
    }

    /** @return the number of open handles */
    public synchronized int openHandles() {
        return openHandles;
    }

    /** Counts a new handle; returns false if the last handle has already closed (the memory is gone). */
    synchronized boolean register(AbstractSegment handle) {
        if (released) {
            return false;
        }
        openHandles++;
        handles.add(handle);
        return true;
    }

    /** Counts a handle's close; tells the pool when it was the last. */
    void release(AbstractSegment handle) {
        synchronized (this) {
            if (!handles.remove(handle)) {
                return;
            }
            openHandles--;
            if (openHandles > 0 || released) {
                return;
            }
            released = true;
        }
        pool.lastHandleClosed(this);
    }

    /** Closes every open handle, because the pool is closing; returns whether any was open. */
    synchronized boolean invalidate() {
        boolean wasOpen = !released;
        released = true;
        for (AbstractSegment h : handles) {
            h.markClosed();
        }
        handles.clear();
        openHandles = 0;
        return wasOpen;
    }

    String describe() {
        return (named == null ? "segment" : "segment '" + named.name() + "'") + " of " + size + " bytes";
    }
}
