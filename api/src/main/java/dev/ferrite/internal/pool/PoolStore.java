package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.ChunkTableLayout.NIL;
import static dev.ferrite.internal.pool.PoolHeaderLayout.FREE_HEAD_OFFSET;
import static dev.ferrite.internal.pool.PoolHeaderLayout.HEADER_SIZE;
import static dev.ferrite.internal.pool.PoolHeaderLayout.MAGIC;
import static dev.ferrite.internal.pool.PoolHeaderLayout.MAGIC_OFFSET;
import static dev.ferrite.internal.pool.PoolHeaderLayout.MAX_OWNERS;
import static dev.ferrite.internal.pool.PoolHeaderLayout.RECOVERIES_OFFSET;
import static dev.ferrite.internal.pool.PoolHeaderLayout.STATE_CLEAN;
import static dev.ferrite.internal.pool.PoolHeaderLayout.STATE_OFFSET;
import static dev.ferrite.internal.pool.PoolHeaderLayout.STATE_OPEN;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.RecoveryReport;
import dev.ferrite.internal.PoolFile;
import dev.ferrite.internal.PoolGeometry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * A pool file and everything about it that lives in the file: the header, the owner table, the
 * directory of named segments ({@link NamedSegments}), the chunk table with its free stack, and the
 * data extents mapped into this process ({@link DataExtents}). Several processes (and several
 * {@code PoolStore}s in one process) may have one file open at once; each holds an owner slot.
 *
 * <p>Unnamed allocations and frees are lock-free (CAS on the free stack and on owner codes);
 * named segments, extent growth and recovery take the meta lock, which a dead holder cannot keep.
 * Thread-safe.
 */
public final class PoolStore {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PoolStore.class);
    /** Recovery notes quoted in the warning of an unclean open; RecoveryReport.notes() has them all. */
    static final int NOTES_LOGGED = 3;

    private final PoolFile file;
    private final PoolLayout layout;
    private final PoolGeometry geometry;
    private final String where;
    private final boolean readOnly;
    private final MetaRegion meta;
    private final OwnerTable owners;
    private final ChunkLedger ledger;
    private final Directory directory;
    private final NamedSegments named;
    private final int slot;
    private final MetaLock lock;
    private final DataExtents extents;
    private final RecoveryReport openReport;
    private boolean inheritedSlot;
    private final Liveness.Stamp stamp;

    private PoolStore(PoolFile file, PoolLayout layout, String where, boolean create, long initialSize) {
        this.file = file;
        this.layout = layout;
        this.geometry = layout.geometry();
        this.where = where;
        this.readOnly = file.isReadOnly();
        if (create) {
            // The whole bookkeeping area exists from the start (sparse), so a pool that never
            // obtained an extent still reopens.
            file.reserve(0, layout.dataOffset(), "the bookkeeping (header, directory, chunk table)");
            file.ensureLength(layout.dataOffset());
        }
        this.meta = new MetaRegion(file, layout);
        if (create) {
            writeNewHeader();
        }
        this.owners = new OwnerTable(meta, where);
        this.ledger = new ChunkLedger(meta, geometry, where);
        this.directory = new Directory(meta, layout, where);
        if (readOnly) {
            this.extents = new DataExtents(file, layout, meta, ledger, null);
            this.named = new NamedSegments(this, meta, directory, ledger, owners, -1, where);
            this.slot = -1;
            this.lock = null;
            this.stamp = null;
            this.openReport = new RecoveryReport(ledger.used(), geometry.totalChunks - ledger.used(), 0, 0,
                    List.of("opened read-only: the pool was not checked or recovered"));
            return;
        }
        this.slot = attachSlot();
        this.named = new NamedSegments(this, meta, directory, ledger, owners, slot, where);
        this.stamp = owners.keepStamping(slot);
        // A file made before the reserved count existed: never write over what it already handed out.
        meta.compareAndSetLong(PoolHeaderLayout.RESERVED_OFFSET, 0, PoolHeaderLayout.RESERVED_KNOWN
                | (layout.requiredLength(ledger.obtainedExtents()) - layout.dataOffset()));
        this.lock = new MetaLock(meta, owners, slot, inheritedSlot);
        this.extents = new DataExtents(file, layout, meta, ledger, lock);
        RecoveryReport report;
        try {
            if (create) {
                report = new RecoveryReport(0, geometry.totalChunks, 0, 0, List.of());
                while ((long) ledger.obtainedExtents() * geometry.extentSize < initialSize) {
                    extents.grow(ledger.obtainedExtents());
                }
            } else {
                report = checkAndRecover();
            }
        } catch (RuntimeException | Error e) {
            stamp.cancel();
            owners.detach(slot);
            throw e;
        }
        this.openReport = report;
        if (report.reclaimedChunks() > 0 || !report.notes().isEmpty()) {
            LOG.warn("pool {} was not closed cleanly; recovered on open: {} chunks reclaimed; {}", where,
                    report.reclaimedChunks(), summary(report.notes(), NOTES_LOGGED));
        }
        meta.putIntVolatile(STATE_OFFSET, STATE_OPEN);
    }

    /**
     * @param notes what a recovery did, one line each
     * @param shown how many to quote
     * @return their count and the first {@code shown} of them, for one log line
     */
    static String summary(List<String> notes, int shown) {
        if (notes.isEmpty()) {
            return "no notes";
        }
        if (notes.size() <= shown) {
            return notes.size() + (notes.size() == 1 ? " note: " : " notes: ") + String.join("; ", notes);
        }
        return notes.size() + " notes, the first " + shown + ": " + String.join("; ", notes.subList(0, shown))
                + "; and " + (notes.size() - shown) + " more (RecoveryReport.notes() lists them)";
    }

    /**
     * Writes a new pool's header into an empty file and attaches to it.
     *
     * @param file        a new, empty, writable file
     * @param layout      the pool's layout
     * @param where       the pool, for messages
     * @param initialSize bytes of memory to obtain at once
     * @return the open store
     */
    public static PoolStore create(PoolFile file, PoolLayout layout, String where, long initialSize) {
        return new PoolStore(file, layout, where, true, initialSize);
    }

    /**
     * Opens an existing pool file: reads and checks the header before mapping anything, attaches,
     * then checks the bookkeeping and repairs what a crash left (see {@link PoolRecovery}).
     *
     * @param file  the open file
     * @param where the pool, for messages
     * @return the open store
     * @throws CorruptFileException naming the field and value if the file is not a sound pool
     */
    public static PoolStore open(PoolFile file, String where) {
        ByteBuffer header = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        // Header first, length second: growth lengthens the file before it counts the new extent,
        // so a length read afterwards covers every extent the header counts.
        file.read(header, 0);
        long length = file.length();
        PoolLayout layout = PoolLayout.read(header, length, where);
        return new PoolStore(file, layout, where, false, 0);
    }

    private void writeNewHeader() {
        ByteBuffer image = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        layout.writeGeometry(image, System.currentTimeMillis());
        image.putLong(FREE_HEAD_OFFSET, NIL & 0xFFFFFFFFL);
        image.putInt(STATE_OFFSET, STATE_OPEN);
        image.putLong(PoolHeaderLayout.RESERVED_OFFSET, PoolHeaderLayout.RESERVED_KNOWN);
        // The magic goes last: a crash while creating leaves a file that is plainly not a pool.
        byte[] body = new byte[HEADER_SIZE - 8];
        image.get(8, body);
        meta.putBytes(8, body);
        meta.putLongVolatile(MAGIC_OFFSET, MAGIC);
    }

    private int attachSlot() {
        int s = owners.attach();
        if (s >= 0) {
            return s;
        }
        s = owners.takeOverDead();
        if (s >= 0) {
            inheritedSlot = true;
            return s;
        }
        throw new FerriteException(where + " is open in " + MAX_OWNERS + " live processes; the limit is " + MAX_OWNERS);
    }

    private RecoveryReport checkAndRecover() {
        lock.lock();
        owners.beginExclusive(slot);
        try {
            RecoveryReport report = new PoolRecovery(meta, layout, owners, ledger, directory, slot, where)
                    .run(lock.takeOverSinceLastAsked(), inheritedSlot);
            inheritedSlot = false;
            if (!report.wasClean()) {
                meta.getAndAddLong(RECOVERIES_OFFSET, 1);
            }
            return report;
        } finally {
            owners.endExclusive();
            lock.unlock();
        }
    }

    /** @return what opening found and repaired; clean for a new pool */
    public RecoveryReport openReport() {
        return openReport;
    }

    /**
     * Checks the bookkeeping and repairs what crashed processes left, while other processes keep
     * running (their allocations wait a moment).
     *
     * @return what was found and done
     */
    public RecoveryReport recover() {
        requireWritable();
        return checkAndRecover();
    }

    /** @return the layout */
    public PoolLayout layout() {
        return layout;
    }

    /** @return whether the file is mapped read-only */
    public boolean isReadOnly() {
        return readOnly;
    }

    /** @return chunks held by segments in every process */
    public long usedChunks() {
        return ledger.used();
    }

    /** @return the pool's named segments, whose methods a writable store calls holding the meta lock ({@link #withLock}) */
    public NamedSegments named() {
        return named;
    }

    /** @return this store's owner slot, -1 if read-only */
    public int ownerSlot() {
        return slot;
    }

    /**
     * Runs an action holding the meta lock.
     *
     * @param action the action
     * @param <T>    its result type
     * @return its result
     */
    public <T> T withLock(Supplier<T> action) {
        requireWritable();
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    // ---- data extents -------------------------------------------------------------------

    /**
     * @param chunk a chunk id of an obtained extent
     * @return the mapping of its extent in this process, mapped on first use
     */
    public MappedByteBuffer extentOf(int chunk) {
        return extents.extentOf(chunk);
    }

    // ---- unnamed segments ---------------------------------------------------------------

    /**
     * Claims chunks for this process, obtaining extents as needed.
     *
     * @param count chunks, at least 0
     * @return their ids, in allocation order
     * @throws PoolExhaustedException if the pool cannot supply them; nothing stays claimed
     */
    public int[] claim(int count) {
        return claim(count, ChunkTableLayout.processOwner(slot));
    }

    /** As {@link #claim(int)}, for an owner code of {@link ChunkTableLayout} (a process or a directory slot). */
    int[] claim(int count, int owner) {
        requireWritable();
        int[] ids = new int[count];
        int got = 0;
        while (got < count) {
            int seen = ledger.obtainedExtents();
            owners.enterBusy(slot);
            int before = got;
            try {
                while (got < count) {
                    int id = ledger.pop(owner);
                    if (id == NIL) {
                        break;
                    }
                    ids[got++] = id;
                }
                ledger.addUsed(got - before);
            } finally {
                owners.exitBusy(slot);
            }
            boolean grown = got == count;
            if (!grown) {
                try {
                    grown = extents.grow(seen);
                } catch (RuntimeException | Error e) {
                    // The file could not grow: give back what was claimed.
                    if (got > 0) {
                        release(Arrays.copyOf(ids, got), owner);
                    }
                    throw e;
                }
            }
            if (!grown) {
                if (got > 0) {
                    release(Arrays.copyOf(ids, got), owner);
                }
                long free = geometry.totalChunks - ledger.used();
                throw new PoolExhaustedException("cannot allocate " + count + " chunks of " + geometry.chunkSize
                        + " bytes: " + free + " chunks free of " + geometry.totalChunks + " (capacity "
                        + geometry.capacity + " bytes) in " + where);
            }
        }
        try {
            extents.reserveBlocks(ids);
        } catch (RuntimeException | Error e) {
            release(ids, owner);
            throw e;
        }
        return ids;
    }

    /**
     * Gives this process's chunks back.
     *
     * @param chunks ids from {@link #claim}
     */
    public void release(int[] chunks) {
        if (chunks.length > 0) {
            release(chunks, ChunkTableLayout.processOwner(slot));
        }
    }

    /** Gives back chunks held under an owner code of {@link ChunkTableLayout}. */
    void release(int[] chunks, int owner) {
        owners.enterBusy(slot);
        try {
            ledger.release(chunks, owner);
            ledger.addUsed(-chunks.length);
        } finally {
            owners.exitBusy(slot);
        }
    }

    // ---- lifecycle ----------------------------------------------------------------------

    /** Flushes the bookkeeping and every mapped extent to the file. */
    public void force() {
        if (readOnly) {
            return;
        }
        for (MappedByteBuffer m : meta.mappings()) {
            m.force();
        }
        extents.force();
    }

    /**
     * Leaves the pool: frees this process's owner slot and marks the pool clean if no other
     * process has it open. The caller has released its unnamed chunks and closed its named handles.
     */
    public void detach() {
        if (readOnly) {
            return;
        }
        lock.lock();
        try {
            boolean anyoneElse = false;
            for (int s = 0; s < MAX_OWNERS && !anyoneElse; s++) {
                anyoneElse = s != slot && owners.word(s) != 0;
            }
            if (!anyoneElse) {
                meta.putIntVolatile(STATE_OFFSET, STATE_CLEAN);
            }
        } finally {
            // Unlock before the slot is given back: a newcomer taking the slot must not find the
            // lock naming it while this process is still inside.
            lock.unlock();
        }
        stamp.cancel();
        owners.detach(slot);
    }

    /** @return the mappings of the header, directory and chunk table, for the backend to unmap */
    public List<MappedByteBuffer> bookkeepingMappings() {
        return meta.mappings();
    }

    /** @return the mappings of the data extents made so far, for the backend to unmap */
    public List<MappedByteBuffer> extentMappings() {
        return extents.mapped();
    }

    /** @return the pool file, for backends that map it themselves */
    public PoolFile file() {
        return file;
    }

    /** Closes the file; mappings stay valid until unmapped. */
    public void closeFile() {
        file.close();
    }

    private void requireWritable() {
        if (readOnly) {
            throw new FerriteException(where + " is open read-only");
        }
    }
}
