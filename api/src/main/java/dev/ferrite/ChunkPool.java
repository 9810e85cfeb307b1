package dev.ferrite;

import dev.ferrite.spi.MemoryBackend;
import java.util.Optional;
import java.util.Set;

/**
 * A pool of equal, power-of-two sized chunks from which {@link Segment}s of any size are
 * allocated. Memory is obtained lazily in extents (one mapping of at most 1 GiB, carved into
 * chunks) up to {@link #capacity()}; file pools are sparse, so capacity may far exceed RAM and
 * only chunks handed out cost memory or disk. Each chunk's blocks are reserved the first time it
 * is handed out (zeros written on tmpfs, a usable-space check on other file systems), so a full
 * file system makes {@code allocate} throw {@link PoolExhaustedException} rather than a later
 * write fault.
 *
 * <p>File and shm pools are persistent and shared: the free list, the chunk chains and the
 * directory of named segments live in the file (see {@code docs/FORMAT.md}), so a closed pool
 * reopens with the same named segments and bytes, and up to 64 processes may have one pool open
 * at once, allocating and freeing concurrently. Unnamed segments belong to the process that
 * allocated them: they are freed when it closes the pool, or by recovery if it dies.
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
     * Allocates a segment under a name, findable with {@link #open(String)} (in this process and,
     * for file and shm pools, in others and after a reopen) until {@link #delete(String)}. The
     * name holds a reference of its own: the chunks stay allocated after every handle is closed.
     *
     * @param name  1 to 255 bytes of UTF-8, not null
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
     * on it, in any process, is closed (at once if there is none).
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
     * Checks the pool's bookkeeping and repairs what crashed processes left: chunks held by dead
     * processes, free chunks on no free list, named segments half made or half deleted, dead
     * processes' holds on named segments. Other threads and processes keep running: segment
     * accesses are never blocked, allocations wait a moment.
     *
     * @return what was found and done
     * @throws CorruptFileException if the bookkeeping is corrupt beyond what a crash can leave
     *                              (nothing is changed then)
     * @throws FerriteException     if the pool is closed or read-only
     */
    RecoveryReport recover();

    /**
     * What opening the pool found and repaired. {@link dev.ferrite.spi.MemoryBackend#openPool}
     * checks every pool it opens, and recovers automatically after an unclean shutdown.
     *
     * @return the report; clean for a newly created pool
     */
    RecoveryReport openReport();

    /** @return the backend that made this pool */
    MemoryBackend backend();

    /** @return whether {@link #close()} was called */
    boolean isClosed();

    /**
     * Closes every segment handle of this pool and releases the pool's memory (unmaps, frees).
     * A second call is a no-op. File and shm pools keep their files. If handles were open, their
     * memory (an anonymous pool's RAM too) stays mapped until they are garbage-collected, so that
     * an access another thread had begun does not touch unmapped memory.
     */
    @Override
    void close();
}
