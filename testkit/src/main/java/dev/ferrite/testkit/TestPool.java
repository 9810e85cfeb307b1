package dev.ferrite.testkit;

import dev.ferrite.ChunkPool;
import dev.ferrite.PoolSpec;

/**
 * A pool made for one test, which closes it and deletes its file or shm name afterwards.
 *
 * @param pool the open pool
 * @param spec the spec it was made from
 */
public record TestPool(ChunkPool pool, PoolSpec spec) implements AutoCloseable {

    /** Closes the pool and deletes its file or shm name. */
    @Override
    public void close() {
        pool.close();
        pool.backend().deletePool(spec);
    }
}
