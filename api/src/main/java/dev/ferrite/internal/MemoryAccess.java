package dev.ferrite.internal;

/**
 * What a backend supplies to a {@link MappedChunkPool}: a {@link PoolAccess} per pool, which says
 * how segments' memory is reached. Everything else (the file, extents, free list, directory,
 * reference counts) is the pool's, written once for every backend. Implementations are
 * thread-safe.
 */
public interface MemoryAccess {

    /**
     * Sets up access to a new or newly opened pool: maps what the backend needs, once.
     *
     * @param pool the pool, whose store is open
     * @return the pool's access, released when the pool closes
     */
    PoolAccess open(MappedChunkPool pool);
}
