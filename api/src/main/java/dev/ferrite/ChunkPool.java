package dev.ferrite;

import dev.ferrite.spi.MemoryBackend;
import java.util.Optional;
import java.util.Set;

/**
 * A pool of equal, power-of-two sized chunks from which {@link Segment}s of any size are
 * allocated. Memory is obtained lazily in extents (one mapping or one allocation of at most 1 GiB,
 * carved into chunks) up to {@link #capacity()}; file pools are sparse, so capacity may far exceed
 * RAM and only touched chunks cost memory or disk.
 *
 * <p>Thread-safe: any thread may allocate, open, delete and free at any time. Made by a
 * {@link MemoryBackend}; see {@link PoolSpec} for the settings.
 */
public interface ChunkPool extends AutoCloseable {

    /**
     * Allocates an unnamed segment. Its bytes are unspecified (see {@link Segment}).
     *
     * @param bytes the segment size, in [0, capacity]; 0 makes an empty segment holding no chunk
     * @return an open handle, the only reference
     * @throws PoolExhaustedException if fewer free chunks remain than needed; nothing is allocated
     * @throws OutOfBoundsException   if {@code bytes} is negative
     * @throws FerriteException       if the pool is closed or read-only
     */
    Segment allocate(long bytes);

    /**
     * Allocates a segment under a name, findable with {@link #open(String)} until
     * {@link #delete(String)}. The name holds a reference of its own: the chunks stay allocated
     * after every handle is closed.
     *
     * @param name  1 to 255 characters, not null
     * @param bytes the segment size, in [0, capacity]
     * @return an open handle
     * @throws FerriteException       if the name is taken or invalid, or the pool is closed
     * @throws PoolExhaustedException if fewer free chunks remain than needed; nothing is allocated
     */
    Segment allocate(String name, long bytes);

    /**
     * Opens a new handle on a named segment.
     *
     * @param name the segment's name
     * @return a new handle (to be closed), or empty if no segment has that name
     * @throws FerriteException if the pool is closed
     */
    Optional<Segment> open(String name);

    /**
     * Removes a name from the directory. Its chunks return to the pool when the last open handle
     * on it is closed (at once if there is none).
     *
     * @param name the segment's name
     * @return whether the name existed
     * @throws FerriteException if the pool is closed
     */
    boolean delete(String name);

    /** @return a snapshot of the names of the named segments */
    Set<String> segmentNames();

    /** @return bytes per chunk */
    long chunkSize();

    /** @return the most bytes the chunks may add up to */
    long capacity();

    /** @return chunks still allocatable, counting memory not yet obtained, up to capacity */
    long freeChunks();

    /** @return chunks held by segments */
    long usedChunks();

    /** @return the spec the pool was made from */
    PoolSpec spec();

    /**
     * Flushes written memory to the file ({@code msync}); a no-op for anonymous pools.
     *
     * @throws FerriteException if the flush fails or the pool is closed
     */
    void force();

    /**
     * Rebuilds the free list from what segments own: chunks owned by no segment and missing from
     * the free list go back to it. Safe while other threads use the pool.
     *
     * @return what was found and done
     * @throws FerriteException if the pool is closed
     */
    RecoveryReport recover();

    /** @return the backend that made this pool */
    MemoryBackend backend();

    /** @return whether {@link #close()} was called */
    boolean isClosed();

    /**
     * Closes every segment handle of this pool and releases the pool's memory (unmaps, frees).
     * A second call is a no-op. File and shm pools keep their files.
     */
    @Override
    void close();
}
