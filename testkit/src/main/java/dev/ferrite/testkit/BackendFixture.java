package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.PoolSpec;
import dev.ferrite.spi.MemoryBackend;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every contract needs from a backend's test class: the backend, and pools of each kind it
 * supports. A backend's test class implements the contract interfaces and {@link #backend()}.
 */
public interface BackendFixture {

    /** Counter that keeps shm names unique within a test JVM. */
    AtomicInteger SHM_COUNTER = new AtomicInteger();

    /** @return the backend under test */
    MemoryBackend backend();

    /**
     * @param kind where the pool's memory lives; the test is skipped if the backend does not support it
     * @param dir  a temporary directory for file pools
     * @return a spec builder for a fresh pool of that kind
     */
    default PoolSpec.Builder spec(PoolSpec.Kind kind, Path dir) {
        assumeTrue(backend().supports(kind), () -> backend().name() + " does not support " + kind + " pools");
        switch (kind) {
            case FILE:
                return PoolSpec.file(dir.resolve("pool-" + SHM_COUNTER.incrementAndGet() + ".ferrite"));
            case SHM:
                ShmLeftovers.sweepOnce(); // what killed test JVMs left in /dev/shm
                return PoolSpec.shm("ferrite-test-" + ProcessHandle.current().pid() + "-" + SHM_COUNTER.incrementAndGet());
            default:
                return PoolSpec.anonymous();
        }
    }

    /**
     * @param kind      where the pool's memory lives
     * @param dir       a temporary directory for file pools
     * @param chunkSize bytes per chunk
     * @param capacity  bytes
     * @return a new pool, closed and deleted by {@link TestPool#close()}
     */
    default TestPool pool(PoolSpec.Kind kind, Path dir, long chunkSize, long capacity) {
        return pool(spec(kind, dir).chunkSize(chunkSize).capacity(capacity).build());
    }

    /**
     * Allocates a segment whose chunks are neither adjacent nor in order, so that accesses take the
     * chunk-table path (a fresh pool hands out contiguous chunks, which backends address directly).
     * Leaves single-chunk filler segments allocated in the pool.
     *
     * @param pool  a pool with room for the segment and as many filler chunks
     * @param bytes the segment size
     * @return the segment
     */
    default dev.ferrite.Segment fragmented(dev.ferrite.ChunkPool pool, long bytes) {
        long chunks = (bytes + pool.chunkSize() - 1) / pool.chunkSize();
        java.util.List<dev.ferrite.Segment> freed = new java.util.ArrayList<>();
        for (long i = 0; i < chunks; i++) {
            freed.add(pool.allocate(pool.chunkSize()));
            pool.allocate(pool.chunkSize());
        }
        for (dev.ferrite.Segment s : freed) {
            s.close();
        }
        return pool.allocate(bytes);
    }

    /**
     * @param spec what to create
     * @return a new pool, closed and deleted by {@link TestPool#close()}
     */
    default TestPool pool(PoolSpec spec) {
        return new TestPool(backend().createPool(spec), spec);
    }
}
