package dev.ferrite.spi;

import dev.ferrite.BackendUnavailableException;
import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;

/**
 * A way of obtaining and accessing memory: the service Ferrite's pools are made by. Found with
 * {@link java.util.ServiceLoader} (register the class in
 * {@code META-INF/services/dev.ferrite.spi.MemoryBackend}); needs a public no-argument
 * constructor that does no work that can fail, so discovery never breaks.
 *
 * <p>Implementations are thread-safe.
 */
public interface MemoryBackend {

    /** @return the name users select it by, e.g. {@code unsafe}; lower case, unique */
    String name();

    /** @return whether it can run on this JVM and machine */
    boolean isAvailable();

    /** @return why it is unavailable, or an empty string when it is available */
    String unavailableReason();

    /**
     * @return the preference for the default backend, higher first: the fastest backend that
     *         makes the JVM print no warning on the running JDK ranks highest
     */
    int priority();

    /**
     * @return whether this backend checks offsets, closed handles and closed pools on every
     *         access: true unless the JVM runs with {@code -Dferrite.checks=false}; false for an
     *         unavailable backend. Writes to read-only pools are refused either way.
     */
    boolean isChecked();

    /**
     * Whether {@link #createPool(PoolSpec)} accepts specs of this kind.
     *
     * @param kind where the memory would live
     * @return whether this backend can make such a pool
     */
    boolean supports(PoolSpec.Kind kind);

    /**
     * Creates a new pool.
     *
     * @param spec what to create
     * @return the open pool
     * @throws BackendUnavailableException if this backend is unavailable
     * @throws FerriteException if the file exists and {@code spec.overwrite()} is false, the kind is
     *                          not supported, or the memory cannot be obtained
     */
    ChunkPool createPool(PoolSpec spec);

    /**
     * Opens an existing file or shm pool; its geometry comes from the pool's header.
     *
     * @param spec where the pool is, and whether to map it read-only
     * @return the open pool
     * @throws FerriteException if there is no such pool, or it cannot be opened
     */
    ChunkPool openPool(PoolSpec spec);

    /**
     * Deletes a file or shm pool's file. The pool should be closed first: open mappings stay
     * valid until closed, but the name is gone.
     *
     * @param spec the pool
     * @return whether a file was deleted
     * @throws FerriteException if the file exists but cannot be deleted
     */
    boolean deletePool(PoolSpec spec);
}
