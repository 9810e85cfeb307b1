package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A sorted map's engine on keys and values as bytes: its header ({@link SortedLayout}), pages
 * ({@link PageStore}), reads ({@link TreeReader}) and the one writer at a time ({@link TreeWriter})
 * behind the map's lock: a lock word in the header ({@link LockWords}), taken over from a holder
 * that died, the free list then rebuilt. Thread-safe.
 */
final class SortedStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SortedStore.class);

    /** The longest value: 512 MiB, Redis's longest string. */
    static final int MAX_VALUE = 512 << 20;

    final String name;
    final Segment header;
    final PageStore pages;
    private final TreeReader reader;
    /** Reads the tree the open atomic change builds; used by that change's thread only. */
    private final TreeReader atomicReader;
    final int maxKey;
    final boolean readOnly;
    private final TreeWriter writer;
    private final MapClients.Held client;
    private final ReentrantLock local = new ReentrantLock();
    /** The thread running an atomic change ({@link #atomically}), or null; set and cleared by that thread under {@link #local}. */
    private volatile Thread atomicThread;
    /** Whether a change function runs now (under {@link #local}): a change inside it is recursion. */
    private boolean changing;
    /** Whether the thread holding {@link #local} runs {@link #exclusively}: its changes take no lock again. */
    private boolean exclusive;
    /** The map's lock word in the header, with this process's client slot; null if read-only. */
    private final LockWords lockWord;
    private volatile boolean closed;

    private SortedStore(ChunkPool pool, String name, Segment header, boolean readOnly, Executor growth) {
        this.name = name;
        this.header = header;
        this.readOnly = readOnly;
        this.pages = new PageStore(pool, name, header, growth);
        this.reader = new TreeReader(pages);
        this.maxKey = header.getInt(SortedLayout.MAX_KEY);
        this.writer = readOnly ? null : new TreeWriter(pages);
        this.atomicReader = readOnly ? null : new TreeReader(pages, writer::root);
        long lockAtOpen = header.getLongVolatile(SortedLayout.LOCK);
        long pidAtOpen = lockAtOpen == 0 ? 0 : MapClients.lockHolderPid(header, lockAtOpen); // before its slot is freed
        MapClients.deadSlots(header, !readOnly);
        this.client = readOnly ? null : MapClients.take(header, describe());
        this.lockWord = readOnly ? null
                : new LockWords(header, client, this::checkOpen, this::repairTakenOver, lockAtOpen, pidAtOpen);
        if (!readOnly) {
            long lock = header.getLongVolatile(SortedLayout.LOCK);
            if (lock != 0 && lock != client.lockValue) {
                try {
                    local.lock();
                    if (lockWord.takeOverIfDead(SortedLayout.LOCK, 0, lock)) { // a dead holder's: taken over, repaired, freed
                        release();
                    }
                } catch (RuntimeException e) {
                    close();
                    throw e;
                } finally {
                    if (local.isHeldByCurrentThread()) {
                        local.unlock();
                    }
                }
            }
        }
    }

    /**
     * Makes a new sorted map in a pool.
     *
     * @param growth where extents are made ahead of need ({@link ExtentGrowth}), or null
     * @throws FerriteException if the name is taken
     */
    static SortedStore create(ChunkPool pool, String name, int pageSize, Codec<?> keyCodec, Codec<?> valueCodec,
                              Executor growth) {
        Segment header = pool.allocate(name, SortedLayout.HEADER_SIZE);
        try {
            header.fill(0, header.size(), (byte) 0);
            header.putInt(SortedLayout.VERSION, SortedLayout.VERSION_VALUE);
            header.putInt(SortedLayout.PAGE_SIZE, pageSize);
            header.putInt(SortedLayout.CLIENTS, MapLayout.CLIENT_COUNT);
            header.putInt(SortedLayout.MAX_KEY, PageLayout.maxKey(pageSize));
            header.putInt(SortedLayout.EXTENT_PAGES, SortedLayout.firstExtentPages(pool.chunkSize(), pageSize));
            header.putLong(SortedLayout.CREATED_MILLIS, System.currentTimeMillis());
            header.putInt(SortedLayout.HIGH_WATER, 1);
            MapCodecs.record(header, keyCodec, valueCodec);
            header.putInt(SortedLayout.CRC, MapHeader.crc(header));
            header.putLongVolatile(SortedLayout.MAGIC, SortedLayout.MAGIC_VALUE);
        } catch (RuntimeException e) {
            header.close();
            pool.delete(name);
            throw e;
        }
        return new SortedStore(pool, name, header, false, growth);
    }

    /**
     * Opens an existing sorted map: checks its header and codecs, takes a client slot unless
     * read-only, and takes the lock over from a dead writer (rebuilding the free list).
     *
     * @return the store, or empty if the pool has no segment of that name
     * @throws CorruptFileException naming the field if the header is not a sorted map header of this version
     */
    static Optional<SortedStore> open(ChunkPool pool, String name, boolean readOnly, Codec<?> keyCodec, Codec<?> valueCodec,
                                      Executor growth) {
        Optional<Segment> found = pool.open(name);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Segment header = found.get();
        try {
            validate(header, name);
            MapCodecs.check(header, keyCodec, valueCodec, "sorted map '" + name + "' in " + pool.spec().describe());
            return Optional.of(new SortedStore(pool, name, header, readOnly, readOnly ? null : growth));
        } catch (RuntimeException e) {
            header.close();
            throw e;
        }
    }

    private static void validate(Segment header, String name) {
        String where = "sorted map '" + name + "' in " + header.pool().spec().describe();
        if (header.size() < SortedLayout.HEADER_SIZE) {
            throw new CorruptFileException(where + ": header segment of " + header.size()
                    + " bytes is shorter than a sorted map header, " + SortedLayout.HEADER_SIZE);
        }
        long magic = header.getLongVolatile(SortedLayout.MAGIC);
        for (int waited = 0; magic == 0 && waited < 200; waited++) {
            LockSupport.parkNanos(10_000_000); // another process may be creating it: its magic comes last
            magic = header.getLongVolatile(SortedLayout.MAGIC);
        }
        if (magic != SortedLayout.MAGIC_VALUE) {
            throw new CorruptFileException(where + ": magic 0x" + Long.toHexString(magic) + " is not 0x"
                    + Long.toHexString(SortedLayout.MAGIC_VALUE) + (magic == MapLayout.MAGIC_VALUE
                    ? " (it is a FerriteMap: open it with FerriteMap.builder)" : ""));
        }
        int version = header.getInt(SortedLayout.VERSION);
        if (version != SortedLayout.VERSION_VALUE) {
            throw new CorruptFileException(where + ": format version " + version + " is not "
                    + SortedLayout.VERSION_VALUE + ", the one this build reads");
        }
        int crc = header.getInt(SortedLayout.CRC);
        if (crc != MapHeader.crc(header)) {
            throw new CorruptFileException(where + ": header CRC 0x" + Integer.toHexString(crc)
                    + " does not match its bytes (0x" + Integer.toHexString(MapHeader.crc(header)) + ")");
        }
        int pageSize = header.getInt(SortedLayout.PAGE_SIZE);
        if (pageSize < SortedLayout.MIN_PAGE_SIZE || pageSize > SortedLayout.MAX_PAGE_SIZE || Integer.bitCount(pageSize) != 1) {
            throw new CorruptFileException(where + ": page size " + pageSize + " is not a power of two in ["
                    + SortedLayout.MIN_PAGE_SIZE + ", " + SortedLayout.MAX_PAGE_SIZE + "]");
        }
        int first = header.getInt(SortedLayout.EXTENT_PAGES);
        if (first < 1 || Integer.bitCount(first) != 1 || (long) first * pageSize > SortedLayout.MAX_EXTENT_BYTES
                || header.getInt(SortedLayout.MAX_KEY) != PageLayout.maxKey(pageSize)
                || header.getInt(SortedLayout.CLIENTS) != MapLayout.CLIENT_COUNT) {
            throw new CorruptFileException(where + ": extent pages " + first + " (a power of two, at most 1 GiB), longest key "
                    + header.getInt(SortedLayout.MAX_KEY) + " or client slots " + header.getInt(SortedLayout.CLIENTS)
                    + " are not those of its page size " + pageSize);
        }
    }

    // ---------------------------------------------------------------- writes

    /**
     * Runs a change as the map's one writer: takes the lock (waiting for the writer of this or
     * another process; taking it over from a dead one), runs the change, releases.
     *
     * @throws IllegalStateException if the calling thread already runs a change of this map (a
     *                               function given to a change may not change the map)
     */
    <T> T write(java.util.function.Function<TreeWriter, T> change) {
        checkWritable();
        if (local.isHeldByCurrentThread()) {
            if (changing || atomicThread != Thread.currentThread() && !exclusive) {
                throw new IllegalStateException("recursive update: this thread already changes sorted map '" + name
                        + "' (a function given to compute, merge or replaceAll must not write the map)");
            }
            checkOpen();
            return change(change); // inside this thread's atomic change, or its exclusive run (the lock is held)
        }
        return asWriter(() -> change(change));
    }

    private void checkWritable() {
        if (readOnly) {
            throw new UnsupportedOperationException("sorted map '" + name + "' is open read-only");
        }
    }

    /** Runs {@code body} holding this process's lock and the shared lock word; releases both after. */
    private <T> T asWriter(java.util.function.Supplier<T> body) {
        local.lock();
        try {
            checkOpen();
            acquire();
            try {
                return body.get();
            } finally {
                release();
            }
        } finally {
            local.unlock();
        }
    }

    private <T> T change(java.util.function.Function<TreeWriter, T> change) {
        changing = true;
        try {
            return change.apply(writer);
        } finally {
            changing = false;
        }
    }

    /**
     * Runs {@code body} as one atomic change: as the map's one writer, every change the calling
     * thread makes inside it builds a tree nobody else sees, published with one store when it
     * returns; if it throws, or the process dies, none is published. Inside an atomic change of
     * the same thread, runs {@code body} as part of it.
     *
     * @throws IllegalStateException if called inside a function given to a change, or if an
     *                               operation inside failed midway and the body went on
     */
    <T> T atomically(java.util.function.Supplier<T> body) {
        checkWritable();
        if (local.isHeldByCurrentThread()) {
            if (changing || atomicThread != Thread.currentThread() && !exclusive) {
                throw new IllegalStateException("an atomic change of sorted map '" + name
                        + "' cannot start inside a function given to one of its changes");
            }
            return atomicThread == Thread.currentThread() ? body.get() : atomic(body);
        }
        return asWriter(() -> atomic(body));
    }

    /** Runs {@code body} as one atomic change; the calling thread holds the lock. */
    private <T> T atomic(java.util.function.Supplier<T> body) {
        checkOpen();
        writer.begin();
        atomicThread = Thread.currentThread();
        try {
            T result;
            try {
                result = body.get();
            } catch (RuntimeException | Error e) {
                writer.rollback();
                throw e;
            }
            checkOpen();
            writer.commit();
            return result;
        } finally {
            atomicThread = null;
        }
    }

    /**
     * Runs {@code body} as the map's one writer of every process: it takes the lock (as a change
     * does) and keeps it until {@code body} returns, so that a sequence of reads and changes runs
     * with no other writer between them. Each change inside is published as it returns; an atomic
     * change inside is one change of its own (a throw out of it undoes it alone).
     *
     * @throws IllegalStateException if the calling thread already runs a change, an atomic change
     *                               or an exclusive run of this map
     */
    <T> T exclusively(java.util.function.Supplier<T> body) {
        checkWritable();
        if (local.isHeldByCurrentThread()) {
            throw new IllegalStateException("an exclusive run of sorted map '" + name
                    + "' cannot start inside one of its changes or exclusive runs");
        }
        return asWriter(() -> {
            exclusive = true;
            try {
                return body.get();
            } finally {
                exclusive = false;
            }
        });
    }

    /**
     * @return the reader of the tree the calling thread sees: its atomic change's, else the
     *         published one
     * @throws SegmentClosedException if the map is closed
     */
    TreeReader reader() {
        checkOpen();
        return atomicThread == Thread.currentThread() ? atomicReader : reader;
    }

    /** Takes the shared lock word; the calling thread holds {@link #local}. */
    private void acquire() {
        lockWord.take(SortedLayout.LOCK, 0);
    }

    /** What the new holder of a dead writer's lock does first: the free list rebuilt. */
    private void repairTakenOver(int which, String cause) {
        int free = writer.repair();
        header.getAndAddLong(SortedLayout.REPAIRS, 1);
        LOG.warn("sorted map {}: {}; taken over, {} pages free after the repair", describe(), cause, free);
    }

    private void release() {
        lockWord.release(SortedLayout.LOCK);
    }

    void checkOpen() {
        if (closed) {
            throw new SegmentClosedException("sorted map '" + name + "' is closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    String describe() {
        return "'" + name + "' in " + header.pool().spec().describe();
    }

    /** @return the lock word this map's client slot writes, or 0 if the map is read-only */
    long clientLockValue() {
        return client == null ? 0 : client.lockValue;
    }

    /** @return times a dead writer's lock was taken over */
    long repairs() {
        return header.getLongVolatile(SortedLayout.REPAIRS);
    }

    /** @return bytes of the pages in use: ever used less the free ones, times the page size */
    long usedBytes() {
        checkOpen();
        return (long) (pages.highWater() - pages.freePages()) * header.getInt(SortedLayout.PAGE_SIZE);
    }

    @Override
    public void close() {
        close(true);
    }

    /**
     * Closes the map. With {@code closeHandles} false its handles are left to the close of its
     * pool that follows (a pool the map made): a pool closed with handles open unmaps their memory
     * only once they are collected, so an operation another thread runs at that instant ends
     * without touching unmapped memory.
     */
    void close(boolean closeHandles) {
        if (closed) {
            return;
        }
        if (atomicThread == Thread.currentThread() || exclusive && local.isHeldByCurrentThread()) {
            throw new IllegalStateException("sorted map '" + name + "' cannot be closed inside its own atomic change or exclusive run");
        }
        local.lock();
        try {
            closed = true;
            if (client != null) {
                MapClients.release(header, client);
            }
            if (closeHandles) {
                pages.close();
                header.close();
            }
        } finally {
            local.unlock();
        }
    }
}
