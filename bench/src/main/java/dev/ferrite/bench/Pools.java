package dev.ferrite.bench;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import java.nio.file.Path;

/** Pools for the benchmarks: 1 MiB chunks, capacity rounded up from what a benchmark needs. */
final class Pools {

    static final long CHUNK = 1L << 20;

    private Pools() {
    }

    static long capacityFor(long bytes) {
        return Math.max(CHUNK, (bytes + CHUNK - 1) / CHUNK * CHUNK);
    }

    /** An anonymous pool (RAM) of the named backend. */
    static ChunkPool anonymous(String backend, long bytes) {
        return Ferrite.backend(backend).createPool(PoolSpec.anonymous().chunkSize(CHUNK).capacity(capacityFor(bytes)).build());
    }

    /**
     * A pool in a file (or, for the shm backend, in /dev/shm): the backend's mapped pool.
     *
     * @return the spec, to delete it afterwards
     */
    static PoolSpec mappedSpec(String backend, Path dir, String name, long bytes) {
        PoolSpec.Builder b = Ferrite.backend(backend).supports(PoolSpec.Kind.FILE)
                ? PoolSpec.file(dir.resolve(name + ".pool")) : PoolSpec.shm(name + "-" + ProcessHandle.current().pid());
        return b.chunkSize(CHUNK).capacity(capacityFor(bytes)).overwrite(true).build();
    }
}
