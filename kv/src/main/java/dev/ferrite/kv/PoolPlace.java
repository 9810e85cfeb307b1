package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.spi.MemoryBackend;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a builder keeps a map: a pool file of its own, an shm pool of its own, a pool of the
 * caller's, or (none of them) a process-local pool; and the backend of a pool it makes or opens.
 * The map builders' shared part. Not thread-safe.
 */
final class PoolPlace {

    private Path file;
    private String shm;
    private ChunkPool pool;
    private String backend;

    void file(Path path) {
        file = Objects.requireNonNull(path, "path");
        shm = null;
        pool = null;
    }

    void shm(String shmName) {
        shm = Objects.requireNonNull(shmName, "shmName");
        file = null;
        pool = null;
    }

    void pool(ChunkPool chunkPool) {
        pool = Objects.requireNonNull(chunkPool, "chunkPool");
        file = null;
        shm = null;
    }

    void backend(String backendName) {
        backend = backendName;
    }

    /** @return the caller's pool, or null if the builder makes or opens one of its own */
    ChunkPool callersPool() {
        return pool;
    }

    /** @return whether the place names a pool file (not shm, not the caller's pool, not process-local) */
    boolean inFile() {
        return file != null;
    }

    /** @return whether the place names a file or shm pool (which can be opened again) */
    boolean persistent() {
        return file != null || shm != null;
    }

    /** @return whether a map named so is there: its segment in the caller's pool, else the pool's file */
    boolean exists(String name) {
        if (pool != null) {
            return pool.segmentNames().contains(name);
        }
        Path backing = spec().build().backingFile();
        return backing != null && Files.exists(backing);
    }

    /** @return the place of a pool of its own, as messages name it */
    String where() {
        Path backing = spec().build().backingFile();
        return shm == null ? String.valueOf(backing) : "shm '" + shm + "' (" + backing + ")";
    }

    MemoryBackend backend() {
        return backend == null ? Ferrite.backend() : Ferrite.backend(backend);
    }

    /** @return a spec of a pool of its own at this place */
    PoolSpec.Builder spec() {
        if (file != null) {
            return PoolSpec.file(file);
        }
        if (shm != null) {
            return PoolSpec.shm(shm);
        }
        return PoolSpec.anonymous();
    }
}
