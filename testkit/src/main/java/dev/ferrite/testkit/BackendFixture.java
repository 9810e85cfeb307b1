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
     * @param spec what to create
     * @return a new pool, closed and deleted by {@link TestPool#close()}
     */
    default TestPool pool(PoolSpec spec) {
        return new TestPool(backend().createPool(spec), spec);
    }
}
