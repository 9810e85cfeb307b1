package dev.ferrite.internal;

import dev.ferrite.SegmentClosedException;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The state every handle on one segment shares: its chunks, its size, its name, how many handles
 * are open, and whether the pool's directory holds it. The chunks go back to the pool when no
 * handle is open and no name holds it. Thread-safe (guarded by this object's monitor; the pool's
 * lock, when both are taken, is taken first).
 */
public final class SegmentMemory {

    private final MappedChunkPool pool;
    private final String name;
    private final long size;
    private final int[] chunks;
    private final Object chunkTable;
    // Weak, so a handle that is dropped without close() can be collected and reported as a leak.
    private final Set<AbstractSegment> handles = Collections.newSetFromMap(new WeakHashMap<>());
    private int openHandles;
    private boolean named;
    private boolean freed;

    SegmentMemory(MappedChunkPool pool, String name, long size, int[] chunks, Object chunkTable) {
        this.pool = pool;
        this.name = name;
        this.size = size;
        this.chunks = chunks;
        this.chunkTable = chunkTable;
        this.named = name != null;
    }

    /** @return the pool of the chunks */
    public MappedChunkPool pool() {
        return pool;
    }

    /** @return the name, or null for an unnamed segment */
    public String name() {
        return name;
    }

    /** @return the size in bytes */
    public long size() {
        return size;
    }

    /** @return the chunk ids in segment order; not to be modified */
    public int[] chunks() {
        return chunks;
    }

    /** @return the backend's table for reaching the chunks */
    public Object chunkTable() {
        return chunkTable;
    }

    /** @return the number of open handles */
    public synchronized int openHandles() {
        return openHandles;
    }

    synchronized void register(AbstractSegment handle) {
        if (freed) {
            throw new SegmentClosedException(describe() + " is closed");
        }
        openHandles++;
        handles.add(handle);
    }

    /** Counts a handle's close; frees the chunks if it was the last reference. */
    void release(AbstractSegment handle) {
        boolean free;
        synchronized (this) {
            if (!handles.remove(handle)) {
                return;
            }
            openHandles--;
            free = openHandles == 0 && !named && !freed;
            if (free) {
                freed = true;
            }
        }
        if (free) {
            pool.free(this);
        }
    }

    /** Drops the directory's reference; returns whether the chunks are now to be freed. */
    synchronized boolean unname() {
        named = false;
        if (openHandles == 0 && !freed) {
            freed = true;
            return true;
        }
        return false;
    }

    /** Closes every open handle: the pool is closing. */
    synchronized void invalidate() {
        freed = true;
        for (AbstractSegment h : handles) {
            h.markClosed();
        }
        handles.clear();
        openHandles = 0;
    }

    String describe() {
        return (name == null ? "segment" : "segment '" + name + "'") + " of " + size + " bytes";
    }
}
