package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import dev.ferrite.internal.XxHash64;
import dev.ferrite.internal.pool.Backoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;

import static dev.ferrite.kv.MapLayout.LINE_COUNT;
import static dev.ferrite.kv.MapLayout.LINE_DROPPED;
import static dev.ferrite.kv.MapLayout.LINE_GENERATION;
import static dev.ferrite.kv.MapLayout.LINE_LOCK;
import static dev.ferrite.kv.MapLayout.LINE_REPAIRS;
import static dev.ferrite.kv.MapLayout.LINE_STAMP;
import static dev.ferrite.kv.SectionLayout.GARBAGE;
import static dev.ferrite.kv.SectionLayout.HEAP_TOP;
import static dev.ferrite.kv.SectionLayout.OFFSET_MASK;
import static dev.ferrite.kv.SectionLayout.TOMBSTONE;
import static dev.ferrite.kv.SectionLayout.USED;

/**
 * The map's engine on keys and values as bytes: sections, optimistic reads, section locks with
 * takeover from dead holders, copy-on-write entries, and rebuilds that grow or compact a section.
 * {@link FerriteMap} puts codecs and the {@code ConcurrentMap} contract on top. Thread-safe.
 *
 * <p>Readers take no lock and write nothing to shared memory: an entry is written whole before a
 * slot word refers to it and never changes afterwards, removal replaces a slot word with a
 * tombstone, and a section's data segment is replaced only as a whole (a new generation) by a
 * rebuild. So a reader reads the section's generation, probes, reads the entry, checks its
 * checksum and then that the generation did not move; if it moved, it reads again.
 */
final class MapStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MapStore.class);

    /** A wait for a section lock held by another: spins, then yields, then short parks. */
    private static final int SPINS = 100;
    private static final int YIELDS = 100;
    private static final long PARK_NANOS = 20_000;
    /** Holes of a free list a writer looks at for one of the size it needs before it appends. */
    private static final int HOLES_LOOKED_AT = 4;
    /** Keys warmed per pass of {@link #prefetch}: about as many misses as a core keeps in flight. */
    private static final int PREFETCH_BATCH = 16;
    /**
     * Bytes of an entry {@link #prefetch} touches, a load per 64: an entry of a 16-byte key and a
     * 100-byte value spans three lines.
     */
    private static final long PREFETCH_ENTRY_BYTES = 192;

    final ChunkPool pool;
    final String name;
    final Segment header;
    final int sectionCount;
    final int maxKey;
    final int maxValue;
    final boolean readOnly;
    /** Whether reads and writes check each entry they meet against its checksum (else its lengths only). */
    private final boolean verifyReads;
    private final int sectionShift;
    private final MapClients.Held client;
    private final AtomicReferenceArray<SectionView> views;
    /** The sum of what {@link #prefetch} loaded: stored so the JIT keeps the loads. */
    @SuppressWarnings("unused")
    private long prefetched;
    private final Object[] monitors;
    private final Thread[] lockOwners;
    private final AtomicLong rebuilds = new AtomicLong();
    private final AtomicLong damagedReads = new AtomicLong();
    private final int repairedAtOpen;
    private final boolean verifiedAtOpen;
    private volatile boolean closed;

    private MapStore(ChunkPool pool, String name, Segment header, boolean readOnly, boolean verifyReads) {
        this.pool = pool;
        this.name = name;
        this.header = header;
        this.readOnly = readOnly;
        this.sectionCount = header.getInt(MapLayout.SECTIONS);
        this.maxKey = header.getInt(MapLayout.MAX_KEY);
        this.maxValue = header.getInt(MapLayout.MAX_VALUE);
        this.sectionShift = 64 - Integer.numberOfTrailingZeros(sectionCount);
        this.views = new AtomicReferenceArray<>(sectionCount);
        this.monitors = new Object[sectionCount];
        for (int i = 0; i < sectionCount; i++) {
            monitors[i] = new Object();
        }
        this.lockOwners = new Thread[sectionCount];
        this.client = readOnly ? null : MapClients.take(header, describe());
        boolean unclean = readOnly ? MapClients.anyDead(header) : client.fromDead | MapClients.clearDead(header) > 0;
        this.verifyReads = verifyReads || readOnly && unclean;
        try {
            this.repairedAtOpen = readOnly ? 0 : repairDeadHolders();
            this.verifiedAtOpen = unclean && !readOnly;
            if (verifiedAtOpen) {
                // A process died with the map open: a machine crash may have kept some pages and lost others.
                long damaged = verify();
                LOG.info("map {}: a process that had it open died; every entry checked, {} damaged", describe(), damaged);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    // ---------------------------------------------------------------- create and open

    /** Sizes of a new map. */
    record Shape(int sections, int slotsPerSection, long heapPerSection, int maxKey, int maxValue) {
    }

    /**
     * Makes a new map in a pool: the header with its codecs' identities, then each section's first
     * data segment, then the header's CRC and magic.
     *
     * @throws FerriteException if the name is taken; nothing is left behind then
     */
    static MapStore create(ChunkPool pool, String name, Shape shape, Codec<?> keyCodec, Codec<?> valueCodec,
                           boolean verifyReads) {
        Segment header = pool.allocate(name, MapLayout.headerSize(shape.sections));
        List<String> made = new ArrayList<>();
        try {
            header.fill(0, header.size(), (byte) 0);
            for (int s = 0; s < shape.sections; s++) {
                String n = MapLayout.sectionName(name, s, 1);
                pool.delete(n); // a leftover of a creation that died
                try (Segment seg = pool.allocate(n, segmentSize(pool, shape.slotsPerSection, shape.heapPerSection))) {
                    made.add(n);
                    writeEmptySection(seg, s, 1, shape.slotsPerSection);
                }
                header.putLong(MapLayout.line(s) + LINE_GENERATION, 1);
            }
            header.putInt(MapLayout.VERSION, MapLayout.VERSION_VALUE);
            header.putInt(MapLayout.SECTIONS, shape.sections);
            header.putInt(MapLayout.CLIENTS, MapLayout.CLIENT_COUNT);
            header.putInt(MapLayout.MAX_KEY, shape.maxKey);
            header.putInt(MapLayout.MAX_VALUE, shape.maxValue);
            header.putLong(MapLayout.CREATED_MILLIS, System.currentTimeMillis());
            MapCodecs.record(header, keyCodec, valueCodec);
            header.putInt(MapLayout.CRC, headerCrc(header));
            header.putLongVolatile(MapLayout.MAGIC, MapLayout.MAGIC_VALUE);
        } catch (RuntimeException e) {
            header.close();
            pool.delete(name);
            made.forEach(pool::delete);
            throw e;
        }
        return new MapStore(pool, name, header, false, verifyReads);
    }

    /**
     * Opens an existing map: validates the header (no section is read: sections are checked when
     * first used), takes a client slot unless read-only and repairs sections whose lock a dead
     * process holds.
     *
     * @return the store, or empty if the pool has no segment of that name
     * @throws CorruptFileException naming the field if the header is not a map header of this version
     */
    static Optional<MapStore> open(ChunkPool pool, String name, boolean readOnly, boolean verifyReads) {
        Optional<Segment> found = pool.open(name);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Segment header = found.get();
        try {
            validateHeader(header, name);
            return Optional.of(new MapStore(pool, name, header, readOnly, verifyReads));
        } catch (RuntimeException e) {
            header.close();
            throw e;
        }
    }

    private static void validateHeader(Segment header, String name) {
        String where = "map '" + name + "' in " + header.pool().spec().describe();
        if (header.size() < MapLayout.headerSize(1)) {
            throw new CorruptFileException(where + ": header segment of " + header.size()
                    + " bytes is shorter than the least, " + MapLayout.headerSize(1));
        }
        long magic = header.getLongVolatile(MapLayout.MAGIC);
        for (int waited = 0; magic == 0 && waited < 200; waited++) {
            // Another process may be creating it this moment: its magic comes last.
            LockSupport.parkNanos(10_000_000);
            magic = header.getLongVolatile(MapLayout.MAGIC);
        }
        if (magic != MapLayout.MAGIC_VALUE) {
            throw new CorruptFileException(where + ": magic 0x" + Long.toHexString(magic) + " is not 0x"
                    + Long.toHexString(MapLayout.MAGIC_VALUE) + (magic == 0
                    ? " (its creation never finished: delete the segment '" + name + "' to start again)" : ""));
        }
        int version = header.getInt(MapLayout.VERSION);
        if (version != MapLayout.VERSION_VALUE) {
            throw new CorruptFileException(where + ": format version " + version + " is not "
                    + MapLayout.VERSION_VALUE + ", the one this build reads");
        }
        int crc = header.getInt(MapLayout.CRC);
        if (crc != headerCrc(header)) {
            throw new CorruptFileException(where + ": header CRC 0x" + Integer.toHexString(crc)
                    + " does not match its bytes (0x" + Integer.toHexString(headerCrc(header)) + ")");
        }
        int sections = header.getInt(MapLayout.SECTIONS);
        if (sections < 1 || sections > MapLayout.MAX_SECTIONS || Integer.bitCount(sections) != 1) {
            throw new CorruptFileException(where + ": section count " + sections
                    + " is not a power of two in [1, " + MapLayout.MAX_SECTIONS + "]");
        }
        if (header.size() < MapLayout.headerSize(sections)) {
            throw new CorruptFileException(where + ": header segment of " + header.size()
                    + " bytes cannot hold " + sections + " sections (" + MapLayout.headerSize(sections) + ")");
        }
        int clients = header.getInt(MapLayout.CLIENTS);
        if (clients != MapLayout.CLIENT_COUNT) {
            throw new CorruptFileException(where + ": client slot count " + clients + " is not " + MapLayout.CLIENT_COUNT);
        }
        if (header.getInt(MapLayout.MAX_KEY) < 1 || header.getInt(MapLayout.MAX_VALUE) < 0) {
            throw new CorruptFileException(where + ": size limits key " + header.getInt(MapLayout.MAX_KEY)
                    + ", value " + header.getInt(MapLayout.MAX_VALUE) + " are not positive");
        }
    }

    private static int headerCrc(Segment header) {
        byte[] b = new byte[MapLayout.CREATED_MILLIS + 8];
        header.copyTo(0, b, 0, b.length);
        CRC32C c = new CRC32C();
        c.update(b, MapLayout.VERSION, MapLayout.CRC - MapLayout.VERSION);
        c.update(b, MapLayout.CREATED_MILLIS, 8);
        return (int) c.getValue();
    }

    private static long segmentSize(ChunkPool pool, int slots, long heap) {
        long bytes = SectionLayout.TABLE + 8L * slots + Math.max(heap, 64);
        long chunk = pool.chunkSize();
        return (bytes + chunk - 1) / chunk * chunk;
    }

    private static void writeEmptySection(Segment seg, int section, long generation, int slots) {
        seg.fill(0, SectionLayout.TABLE + 8L * slots, (byte) 0);
        writeSectionHeader(seg, section, generation, slots, SectionLayout.TABLE + 8L * slots, 0, 0);
    }

    private static void writeSectionHeader(Segment seg, int section, long generation, int slots, long top,
                                           long garbage, int used) {
        seg.putLong(SectionLayout.GENERATION, generation);
        seg.putInt(SectionLayout.SECTION, section);
        seg.putInt(SectionLayout.SLOTS, slots);
        seg.putLong(SectionLayout.HEAP_START, SectionLayout.TABLE + 8L * slots);
        seg.putLong(SectionLayout.HEAP_END, Math.min(seg.size(), OFFSET_MASK));
        setTop(seg, top);
        seg.putLong(GARBAGE, garbage);
        seg.putInt(USED, used);
        seg.putInt(SectionLayout.CRC, SectionView.crc(seg));
        seg.putLongVolatile(SectionLayout.MAGIC, SectionLayout.MAGIC_VALUE);
    }

    /** Stores a section's HEAP_TOP and its check word. */
    private static void setTop(Segment seg, long top) {
        seg.putLong(HEAP_TOP, top);
        seg.putLong(SectionLayout.TOP_CHECK, SectionLayout.topCheck(top));
    }

    /** @return a section's HEAP_TOP, or -1 if it or its check word is damaged (the caller rebuilds) */
    private static long top(SectionView v) {
        long top = v.segment.getLong(HEAP_TOP);
        boolean sound = top >= v.heapStart && top <= v.heapEnd && (top & 7) == 0
                && v.segment.getLong(SectionLayout.TOP_CHECK) == SectionLayout.topCheck(top);
        return sound ? top : -1;
    }

    // ---------------------------------------------------------------- hashing and sections

    /** @return the hash of a key's bytes (XXH64, seed 0): the same as {@link Segment#hash64} over them */
    static long hash(byte[] key, int off, int len) {
        return XxHash64.hash(key, off, len);
    }

    int sectionOf(long hash) {
        return sectionCount == 1 ? 0 : (int) (hash >>> sectionShift);
    }

    /** @return the view of a section's current generation, opening it if this process has not yet */
    private SectionView current(int section) {
        while (true) {
            long g = header.getLongVolatile(MapLayout.line(section) + LINE_GENERATION);
            SectionView v = view(section, g);
            if (v != null) {
                return v;
            }
        }
    }

    /** @return the view of that generation, or null if the section has moved past it meanwhile */
    private SectionView view(int section, long generation) {
        SectionView v = views.get(section);
        if (v != null && v.generation == generation) {
            return v;
        }
        return refresh(section, generation);
    }

    private SectionView refresh(int section, long generation) {
        synchronized (monitors[section]) {
            checkOpen();
            SectionView v = views.get(section);
            if (v != null && v.generation == generation) {
                return v;
            }
            String n = MapLayout.sectionName(name, section, generation);
            Optional<Segment> s = pool.open(n);
            if (s.isEmpty()) {
                if (header.getLongVolatile(MapLayout.line(section) + LINE_GENERATION) != generation) {
                    return null;
                }
                throw new CorruptFileException("map '" + name + "' section " + section + ": its generation "
                        + generation + " names a segment '" + n + "' the pool does not have");
            }
            SectionView nv;
            try {
                nv = SectionView.open(s.get(), section, generation);
            } catch (RuntimeException e) {
                s.get().close();
                throw e;
            }
            install(section, nv, v);
            return nv;
        }
    }

    /** Puts a view in the cache and closes the one it replaces; the caller holds the section's monitor. */
    private void install(int section, SectionView nv, SectionView old) {
        views.set(section, nv);
        if (old != null) {
            old.segment.close();
        }
    }

    // ---------------------------------------------------------------- prefetch

    /**
     * Brings the home slots, then the entries they name, of several keys toward the CPU caches:
     * one pass over all the keys per level, so the cache misses of a pass overlap instead of
     * following one another as a get after a get's would. A hint: reads only, takes no lock,
     * skips keys it cannot place (absent, displaced, a section not yet opened here, a view closed
     * meanwhile) and never throws for them.
     */
    void prefetch(byte[][] keys, int from, int count) {
        int batch = Math.min(count, PREFETCH_BATCH);
        long[] words = new long[batch];
        SectionView[] at = new SectionView[batch];
        for (int start = from; start < from + count; start += PREFETCH_BATCH) {
            int n = Math.min(PREFETCH_BATCH, from + count - start);
            try {
                prefetched += prefetchBatch(keys, start, n, words, at);
            } catch (SegmentClosedException e) {
                // a section moved on meanwhile: nothing to warm there
            }
        }
    }

    /**
     * Three passes, each short per key so that a core keeps many of its loads in flight: the
     * hashes (into {@code words}), the home slots, the entries the matching slots name.
     */
    private long prefetchBatch(byte[][] keys, int start, int n, long[] words, SectionView[] at) {
        for (int i = 0; i < n; i++) {
            byte[] key = keys[start + i];
            if (key == null) {
                at[i] = null;
            } else {
                long hash = hash(key, 0, key.length);
                words[i] = hash;
                at[i] = views.get(sectionOf(hash));
            }
        }
        long touched = 0;
        for (int i = 0; i < n; i++) {
            SectionView v = at[i];
            if (v != null) {
                long hash = words[i];
                long w = v.segment.getLong(SectionLayout.slot((int) hash & v.mask));
                touched += w;
                boolean names = w != 0 && w != TOMBSTONE && (w >>> 48) == SectionLayout.tag(hash);
                words[i] = names ? w & OFFSET_MASK : -1;
            }
        }
        for (int i = 0; i < n; i++) {
            SectionView v = at[i];
            long off = words[i];
            if (v != null && off >= 0 && v.entryFits(off)) {
                long end = Math.min(off + PREFETCH_ENTRY_BYTES, v.heapEnd - Long.BYTES + 1);
                for (long line = off; line < end; line += 64) {
                    touched += v.segment.getLong(line);
                }
            }
        }
        return touched;
    }

    // ---------------------------------------------------------------- reads

    /**
     * Finds a key and hands its value to a reader, without locks and without writing shared memory.
     *
     * @return the reader's result, or {@code absent} if the key is not in the map
     */
    <R> R read(byte[] key, int koff, int klen, long hash, ValueReader<R> reader, R absent) {
        try {
            return readSection(key, koff, klen, hash, reader, absent);
        } catch (SegmentClosedException e) {
            checkOpen(); // the map was closed: say so, not which segment
            throw e;
        }
    }

    private <R> R readSection(byte[] key, int koff, int klen, long hash, ValueReader<R> reader, R absent) {
        int section = sectionOf(hash);
        long genAt = MapLayout.line(section) + LINE_GENERATION;
        long stampAt = MapLayout.line(section) + LINE_STAMP;
        while (true) {
            long g = header.getLongVolatile(genAt);
            long stamp = header.getLongVolatile(stampAt);
            SectionView v = views.get(section);
            if (v == null || v.generation != g) {
                v = view(section, g);
                if (v == null) {
                    continue;
                }
            }
            try {
                long off = find(v, key, koff, klen, hash);
                R result = absent;
                boolean damaged = false;
                if (off >= 0) {
                    Segment seg = v.segment;
                    int vl = seg.getInt(off + EntryLayout.VALUE_LENGTH);
                    long valueAt = off + EntryLayout.KEY + klen;
                    if ((stamp & 1) != 0 && off == undoEntry(v)) {
                        // changed in place right now (or cut short): the old value is the undo record's
                        result = reader.read(seg, SectionLayout.UNDO + UndoLayout.VALUE,
                                seg.getInt(SectionLayout.UNDO + UndoLayout.LENGTH));
                    } else if (Integer.compareUnsigned(vl, maxValue) > 0 || valueAt + vl > v.heapEnd
                            || verifyReads && !checksumMatches(v, off, klen, vl)) {
                        damaged = true;
                    } else {
                        result = reader.read(seg, valueAt, vl);
                    }
                }
                VarHandle.acquireFence();
                if (header.getLongVolatile(stampAt) == stamp && header.getLongVolatile(genAt) == g) {
                    if (damaged) {
                        reportDamage(v, off);
                    }
                    return result;
                }
            } catch (SegmentClosedException e) {
                checkOpen(); // a newer generation closed this view meanwhile: read again
            } catch (RuntimeException e) {
                // A reader that failed on bytes a writer was changing is run again; on current bytes its failure is the caller's.
                VarHandle.acquireFence();
                if (header.getLongVolatile(stampAt) == stamp && header.getLongVolatile(genAt) == g) {
                    throw e;
                }
            }
        }
    }

    /**
     * @return the offset of the entry holding exactly these key bytes in a view, or -1; never reads
     *         outside the view (an entry's offset and key length are bounded before its key is compared)
     */
    private static long find(SectionView v, byte[] key, int koff, int klen, long hash) {
        Segment seg = v.segment;
        long tag = SectionLayout.tag(hash);
        int mask = v.mask;
        long lastKeyStart = v.heapEnd - EntryLayout.KEY - klen; // an entry of this key must start at or before it
        int idx = (int) hash & mask;
        for (int n = 0; n <= mask; n++) {
            long w = seg.getLongVolatile(SectionLayout.slot(idx));
            if (w == 0) {
                return -1;
            }
            if ((w >>> 48) == tag && w != TOMBSTONE) {
                long off = w & OFFSET_MASK;
                if (off >= v.heapStart && off <= lastKeyStart && (off & 7) == 0
                        && seg.getInt(off + EntryLayout.KEY_LENGTH) == klen
                        && seg.mismatch(off + EntryLayout.KEY, key, koff, klen) < 0) {
                    return off;
                }
            }
            idx = (idx + 1) & mask;
        }
        return -1;
    }

    /** @return whether an entry's lengths are in range and its checksum matches its bytes */
    private boolean checksumMatches(SectionView v, long off, int k, int vl) {
        if (!lengthsFit(v, off, k, vl)) {
            return false;
        }
        Segment seg = v.segment;
        int sum = (int) seg.hash64(off + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(k, vl));
        return sum == seg.getInt(off + EntryLayout.CHECKSUM) && seg.getInt(off + EntryLayout.RESERVED) == 0;
    }

    /** @return whether an entry's key and value lengths are within the map's limits and the entry within the heap */
    private boolean lengthsFit(SectionView v, long off, int k, int vl) {
        return k >= 0 && k <= maxKey && vl >= 0 && vl <= maxValue
                && off + EntryLayout.KEY + (long) k + vl <= v.heapEnd;
    }

    private void reportDamage(SectionView v, long off) {
        if (damagedReads.getAndIncrement() < 16) {
            LOG.warn("map '{}' section {}: the entry at offset {} of segment '{}' fails its checksum; skipped "
                    + "(the section's next rebuild drops it)", name, v.section, off, v.segment.name());
        }
    }

    /**
     * Runs a read of one section at one instant: reads the section's generation and stamp, runs
     * {@code body} on that generation's view without a lock, and returns its result if neither
     * changed meanwhile; otherwise (a writer was active, or a rebuild happened) runs it again.
     * {@code body} must only read and must tolerate seeing a half-written section (it is then
     * discarded).
     */
    private <T> T readConsistently(int section, SectionRead<T> body) {
        checkOpen();
        long genAt = MapLayout.line(section) + LINE_GENERATION;
        long stampAt = MapLayout.line(section) + LINE_STAMP;
        while (true) {
            long g = header.getLongVolatile(genAt);
            long stamp = header.getLongVolatile(stampAt);
            SectionView v = view(section, g);
            if (v == null) {
                continue;
            }
            try {
                T result = body.apply(v, (stamp & 1) == 0 ? -1 : undoEntry(v));
                VarHandle.acquireFence();
                if (header.getLongVolatile(stampAt) == stamp && header.getLongVolatile(genAt) == g) {
                    return result;
                }
            } catch (SegmentClosedException e) {
                checkOpen(); // a newer generation closed this view meanwhile: read again
            }
        }
    }

    /** A read of one section's view, given where an in-place update is under way. */
    @FunctionalInterface
    private interface SectionRead<T> {
        /**
         * @param v         the section's view
         * @param undoEntry offset of the entry whose value is to be taken from the undo record, or -1
         * @return what the read found
         */
        T apply(SectionView v, long undoEntry);
    }

    /**
     * @return the offset of the entry whose old value the section's undo record holds, or -1 if
     * the record fails its check or names no place an entry can start; to be asked only while the
     * section's stamp is odd
     */
    private static long undoEntry(SectionView v) {
        Segment seg = v.segment;
        long u = SectionLayout.UNDO;
        int len = seg.getInt(u + UndoLayout.LENGTH);
        if (len < 0 || len > UndoLayout.MAX_VALUE
                || (int) seg.hash64(u + UndoLayout.LENGTH, UndoLayout.checkedLength(len)) != seg.getInt(u + UndoLayout.CHECK)) {
            return -1;
        }
        long entry = seg.getLong(u + UndoLayout.ENTRY);
        return v.entryFits(entry) ? entry : -1;
    }

    /** Writes the undo record of an in-place update of the entry at {@code entry}: its value and checksum. */
    private static void saveUndo(Segment seg, long entry, long valueAt, int len) {
        long u = SectionLayout.UNDO;
        seg.putInt(u + UndoLayout.LENGTH, len);
        seg.putLong(u + UndoLayout.ENTRY, entry);
        seg.putInt(u + UndoLayout.CHECKSUM, seg.getInt(entry + EntryLayout.CHECKSUM));
        seg.putInt(u + UndoLayout.RESERVED, 0);
        seg.copyTo(valueAt, seg, u + UndoLayout.VALUE, len);
        seg.putInt(u + UndoLayout.CHECK, (int) seg.hash64(u + UndoLayout.LENGTH, UndoLayout.checkedLength(len)));
    }

    /**
     * Copies the entry a slot names into {@code out} if it is live, intact, has {@code homeBucket}
     * as its home slot and is not named by an earlier slot of the probe run from there (two slot
     * words naming one entry are damage: the entry is met once).
     *
     * @return false if the slot is empty (the end of a probe run), true otherwise
     */
    private boolean copyEntry(SectionView v, int slot, long homeBucket, long undoEntry, List<byte[][]> out) {
        Segment seg = v.segment;
        long w = seg.getLongVolatile(SectionLayout.slot(slot));
        if (w == 0) {
            return false;
        }
        if (w == TOMBSTONE) {
            return true;
        }
        long off = w & OFFSET_MASK;
        if (!v.entryFits(off)) {
            return true;
        }
        int k = seg.getInt(off + EntryLayout.KEY_LENGTH);
        int vl = seg.getInt(off + EntryLayout.VALUE_LENGTH);
        long valueAt = off + EntryLayout.KEY + k;
        if (off == undoEntry) {
            // changed in place right now (or cut short): the old value is the undo record's
            vl = seg.getInt(SectionLayout.UNDO + UndoLayout.LENGTH);
            valueAt = SectionLayout.UNDO + UndoLayout.VALUE;
            if (!lengthsFit(v, off, k, 0)) {
                return true;
            }
        } else if (!checksumMatches(v, off, k, vl)) {
            return true;
        }
        if ((seg.hash64(off + EntryLayout.KEY, k) & v.mask) != homeBucket || namedEarlierInRun(v, slot, homeBucket, off)) {
            return true;
        }
        byte[] kb = new byte[k];
        byte[] vb = new byte[vl];
        seg.copyTo(off + EntryLayout.KEY, kb, 0, k);
        seg.copyTo(valueAt, vb, 0, vl);
        out.add(new byte[][] {kb, vb});
        return true;
    }

    /** @return whether a slot of the run from {@code homeBucket} before {@code slot} names the entry at {@code off} */
    private static boolean namedEarlierInRun(SectionView v, int slot, long homeBucket, long off) {
        for (int i = (int) homeBucket; i != slot; i = (i + 1) & v.mask) {
            if ((v.segment.getLongVolatile(SectionLayout.slot(i)) & OFFSET_MASK) == off) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks every entry of every section against its checksum and lengths; a section holding a
     * damaged entry (or a slot word naming an entry outside its heap) is rebuilt without it unless
     * the map is read-only. Reads each section as a get does, then takes its lock only to rebuild.
     *
     * @return damaged entries found
     */
    long verify() {
        checkOpen();
        long damaged = 0;
        for (int s = 0; s < sectionCount; s++) {
            long found = readConsistently(s, this::countDamaged);
            if (found > 0 && client != null) {
                lock(s);
                try {
                    rebuild(s, 0, false);
                } finally {
                    unlock(s);
                }
            }
            damaged += found;
        }
        return damaged;
    }

    /** @return entries of a view that fail their checks (the one changed in place now: its lengths only) */
    private long countDamaged(SectionView v, long undoEntry) {
        Segment seg = v.segment;
        long damaged = 0;
        for (int i = 0; i < v.slots; i++) {
            long w = seg.getLongVolatile(SectionLayout.slot(i));
            if (w == 0 || w == TOMBSTONE) {
                continue;
            }
            long off = w & OFFSET_MASK;
            if (!v.entryFits(off)) {
                damaged++;
                continue;
            }
            int k = seg.getInt(off + EntryLayout.KEY_LENGTH);
            int vl = seg.getInt(off + EntryLayout.VALUE_LENGTH);
            if (off == undoEntry ? !lengthsFit(v, off, k, 0) : !checksumMatches(v, off, k, vl)) {
                damaged++;
            }
        }
        return damaged;
    }

    /** Entries read by one step of {@link #scanBuckets}, and where the next step starts. */
    static final class BucketRun {
        /** The bucket cursor for the next step in this section; 0 when the section is done. */
        final long next;
        /** Key and value bytes of each live entry read. */
        final List<byte[][]> entries;

        BucketRun(long next, List<byte[][]> entries) {
            this.next = next;
            this.entries = entries;
        }
    }

    /**
     * One step of a cursor scan of one section, with Redis's reverse-binary cursor: buckets (home
     * slots, the low bits of the key hash) are visited in the order of their bit-reversed index, so
     * an entry present throughout is met exactly once even if the section grows (its table doubles)
     * or is compacted between steps. A bucket's entries lie in the probe run
     * from its home slot to the next empty slot, so each bucket is read whole, at one instant
     * (validated as a get is). Reads until {@code max} entries are taken or the section ends.
     *
     * @param cursor where to start in this section, 0 for its beginning
     * @param max    how many entries to aim for, 1 or more (a bucket is never split, so a step may
     *               take a few more)
     */
    BucketRun scanBuckets(int section, long cursor, int max) {
        return readConsistently(section, (v, undo) -> {
            List<byte[][]> out = new ArrayList<>();
            long c = cursor;
            long mask = v.mask;
            do {
                long bucket = c & mask;
                for (int n = 0, i = (int) bucket; n <= mask && copyEntry(v, i, bucket, undo, out); n++) {
                    i = (i + 1) & v.mask;
                }
                c = nextBucketCursor(c, mask);
            } while (c != 0 && out.size() < max);
            return new BucketRun(c, out);
        });
    }

    /** Redis's cursor step: increment the bit-reversed cursor within the table's mask. */
    private static long nextBucketCursor(long cursor, long mask) {
        long c = cursor | ~mask;
        c = Long.reverse(c);
        c++;
        return Long.reverse(c);
    }

    /** @return live entries: the sum of the sections' counts */
    long size() {
        checkOpen();
        long n = 0;
        for (int s = 0; s < sectionCount; s++) {
            n += Math.max(0, header.getLongVolatile(MapLayout.line(s) + LINE_COUNT));
        }
        return n;
    }

    // ---------------------------------------------------------------- writes

    /** What a write does with the key's entry, under its section's lock. */
    @FunctionalInterface
    interface WriteOp<R> {
        /**
         * @param entry the key's entry: present or not, and the means to change it
         * @return the result of the write
         */
        R apply(Cursor entry);
    }

    /**
     * Runs an operation on a key's entry under its section's lock (taking over the lock of a dead
     * holder, and repairing the section, on the way).
     *
     * @return what the operation returned
     */
    <R> R write(byte[] key, int koff, int klen, long hash, WriteOp<R> op) {
        if (readOnly) {
            throw new UnsupportedOperationException("map '" + name + "' was opened read-only");
        }
        int section = sectionOf(hash);
        lock(section);
        try {
            Cursor c = new Cursor(section, key, koff, klen, hash);
            c.locate();
            return op.apply(c);
        } catch (SegmentClosedException e) {
            checkOpen();
            throw e;
        } finally {
            unlock(section);
        }
    }

    /** A key's place in its section, for the holder of the section's lock. */
    final class Cursor {
        private final int section;
        private final byte[] key;
        private final int koff;
        private final int klen;
        private final long hash;
        private SectionView v;
        private int slot;          // the key's slot, or where it would go (-1: no room)
        private long entry = -1;   // offset of the key's entry if present
        private int valueLength;
        private long oldSize;      // heap bytes of the entry the slot refers to now (live or damaged)
        private boolean intoEmpty; // whether an insertion would use an empty slot (not a tombstone)
        private boolean occupied;  // whether the key's slot refers to an entry (live or damaged): counted

        private Cursor(int section, byte[] key, int koff, int klen, long hash) {
            this.section = section;
            this.key = key;
            this.koff = koff;
            this.klen = klen;
            this.hash = hash;
        }

        private void locate() {
            v = current(section);
            Segment seg = v.segment;
            long tag = SectionLayout.tag(hash);
            int mask = v.mask;
            int idx = (int) hash & mask;
            int tomb = -1;
            entry = -1;
            oldSize = 0;
            slot = -1;
            occupied = false;
            for (int n = 0; n <= mask; n++) {
                long w = seg.getLong(SectionLayout.slot(idx));
                if (w == 0) {
                    slot = tomb >= 0 ? tomb : idx;
                    intoEmpty = tomb < 0;
                    return;
                }
                if (w == TOMBSTONE) {
                    if (tomb < 0) {
                        tomb = idx;
                    }
                } else if ((w >>> 48) == tag) {
                    long off = w & OFFSET_MASK;
                    if (v.entryFits(off) && seg.getInt(off + EntryLayout.KEY_LENGTH) == klen
                            && off + EntryLayout.KEY + klen <= v.heapEnd
                            && seg.mismatch(off + EntryLayout.KEY, key, koff, klen) < 0) {
                        int vl = seg.getInt(off + EntryLayout.VALUE_LENGTH);
                        slot = idx;
                        intoEmpty = false;
                        occupied = true;
                        if (verifyReads ? checksumMatches(v, off, klen, vl) : lengthsFit(v, off, klen, vl)) {
                            entry = off;
                            valueLength = vl;
                            oldSize = EntryLayout.size(klen, vl);
                        } else {
                            reportDamage(v, off); // overwritten or removed like a live entry, counted as none
                            oldSize = 0;
                            entry = -2;
                        }
                        return;
                    }
                }
                idx = (idx + 1) & mask;
            }
            slot = tomb;
            intoEmpty = false;
        }

        /** @return whether the key has an entry */
        boolean present() {
            return entry >= 0;
        }

        /** @return the segment holding the entry (valid until the write returns) */
        Segment segment() {
            return v.segment;
        }

        /** @return offset of the present value's first byte */
        long valueOffset() {
            return entry + EntryLayout.KEY + klen;
        }

        /** @return the present value's length */
        int valueLength() {
            return valueLength;
        }

        /** @return a copy of the present value's bytes */
        byte[] value() {
            byte[] b = new byte[valueLength];
            v.segment.copyTo(valueOffset(), b, 0, valueLength);
            return b;
        }

        /** @return whether the present value's bytes equal an array's */
        boolean valueEquals(byte[] other, int off, int len) {
            return present() && len == valueLength
                    && v.segment.mismatch(valueOffset(), other, off, len) < 0;
        }

        /** Sets the key's value (inserting the entry if absent). */
        void put(byte[] value, int off, int len) {
            checkValueLength(len);
            long at = append(EntryLayout.size(klen, len));
            Segment seg = v.segment;
            seg.putInt(at + EntryLayout.VALUE_LENGTH, len);
            seg.copyFrom(value, off, at + EntryLayout.KEY + klen, len);
            publish(at, len);
        }

        /**
         * Lets an updater change the present value. A value of at most {@link UndoLayout#MAX_VALUE}
         * bytes is changed where it lies: its old bytes go to the section's undo record, the stamp
         * turns odd (readers take the value from the record meanwhile), the updater writes the
         * entry, the entry gets its new checksum and the stamp turns even again. If the updater
         * throws, the old bytes are put back. A longer value is copied to fresh space, changed
         * there and published as a new entry.
         */
        void update(ValueUpdater updater) {
            if (!present()) {
                throw new IllegalStateException("no entry to update");
            }
            int len = valueLength;
            if (len > UndoLayout.MAX_VALUE) {
                updateCopy(updater);
                return;
            }
            Segment seg = v.segment;
            long valueAt = valueOffset();
            saveUndo(seg, entry, valueAt, len);
            long stampAt = MapLayout.line(section) + LINE_STAMP;
            long stamp = header.getLong(stampAt);
            header.putLongVolatile(stampAt, stamp + 1);
            VarHandle.storeStoreFence();
            boolean done = false;
            try {
                updater.update(seg, valueAt, len);
                seg.putInt(entry + EntryLayout.CHECKSUM,
                        (int) seg.hash64(entry + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(klen, len)));
                done = true;
            } finally {
                if (!done) {
                    seg.copyTo(SectionLayout.UNDO + UndoLayout.VALUE, seg, valueAt, len);
                    seg.putInt(entry + EntryLayout.CHECKSUM, seg.getInt(SectionLayout.UNDO + UndoLayout.CHECKSUM));
                }
                header.putLongOrdered(stampAt, stamp + 2);
            }
        }

        /** The update of a value too long for the undo record: a changed copy, published as a new entry. */
        private void updateCopy(ValueUpdater updater) {
            int len = valueLength;
            long size = EntryLayout.size(klen, len);
            long at = append(size);
            // append may have rebuilt the section: the entry is found again there.
            Segment seg = v.segment;
            seg.putInt(at + EntryLayout.VALUE_LENGTH, len);
            seg.copyTo(valueOffset(), seg, at + EntryLayout.KEY + klen, len);
            updater.update(seg, at + EntryLayout.KEY + klen, len);
            publish(at, len);
        }

        /** Removes the key's entry if it has one (or a damaged one). */
        void remove() {
            if (!occupied) {
                return;
            }
            Segment seg = v.segment;
            seg.putLongVolatile(SectionLayout.slot(slot), TOMBSTONE);
            seg.putLong(GARBAGE, seg.getLong(GARBAGE) + oldSize);
            free(entry, oldSize);
            addCount(section, -1);
            occupied = false;
            entry = -1;
            oldSize = 0;
            intoEmpty = false;
        }

        /**
         * Reserves heap space for a new entry of this key, rebuilding the section first if the
         * heap or the table is too full, and writes the key and its length there.
         *
         * @return the new entry's offset
         */
        private long append(long size) {
            Segment seg = v.segment;
            long top = top(v);
            boolean tableFull = slot < 0
                    || (intoEmpty && (seg.getInt(USED) + 1L) * 4 > (long) v.slots * 3);
            if (!tableFull) {
                long hole = reuse(size);
                if (hole > 0) {
                    seg.putInt(hole + EntryLayout.KEY_LENGTH, klen);
                    seg.putInt(hole + EntryLayout.RESERVED, 0);
                    seg.copyFrom(key, koff, hole + EntryLayout.KEY, klen);
                    return hole;
                }
            }
            if (tableFull || top < 0 || top + size > v.heapEnd) {
                if (top < 0) {
                    LOG.warn("map '{}' section {}: HEAP_TOP {} fails its check; rebuilt", name, section,
                            seg.getLong(HEAP_TOP));
                }
                rebuild(section, size, false);
                locate();
                seg = v.segment;
                top = top(v);
                if (slot < 0 || top < 0 || top + size > v.heapEnd) {
                    throw new IllegalStateException("map '" + name + "' section " + section
                            + ": no room after a rebuild (slot " + slot + ", top " + top + ", size " + size + ")");
                }
            }
            seg.putInt(top + EntryLayout.KEY_LENGTH, klen);
            seg.putInt(top + EntryLayout.RESERVED, 0);
            seg.copyFrom(key, koff, top + EntryLayout.KEY, klen);
            return top;
        }

        /**
         * Takes a hole of exactly {@code size} bytes off its free list (looking at the first few
         * holes of the list only), announcing the reuse to readers first.
         *
         * @return the hole's offset, or 0 if the list has none of that size
         */
        private long reuse(long size) {
            Segment seg = v.segment;
            long headAt = SectionLayout.freeHead(size);
            long prevAt = headAt;
            long hole = seg.getLong(headAt);
            for (int looked = 0; hole != 0 && looked < HOLES_LOOKED_AT; looked++) {
                long next = holeFits(hole) ? seg.getLong(hole + SectionLayout.HOLE_NEXT) : -1;
                int holeSize = next < 0 ? -1 : seg.getInt(hole + SectionLayout.HOLE_SIZE);
                if (next < 0 || holeSize < EntryLayout.HEADER || hole + holeSize > top(v)
                        || seg.getInt(hole + SectionLayout.HOLE_CHECK) != SectionLayout.holeCheck(hole, next, holeSize)) {
                    seg.putLong(prevAt, 0); // a damaged list: cut here, the rest stays garbage
                    return 0;
                }
                if (holeSize == size) {
                    stampReuse();
                    seg.putLong(prevAt, next);
                    seg.putLong(GARBAGE, Math.max(0, seg.getLong(GARBAGE) - size));
                    return hole;
                }
                prevAt = hole + SectionLayout.HOLE_NEXT;
                hole = next;
            }
            return 0;
        }

        /**
         * Puts the space of an entry no slot refers to any more on its free list, announcing the
         * change of its bytes to readers first. Space of an unknown size (a damaged entry) is left
         * as garbage for the next rebuild.
         */
        private void free(long at, long size) {
            if (at < 0 || size < EntryLayout.HEADER || size > Integer.MAX_VALUE || !holeFits(at)) {
                return;
            }
            Segment seg = v.segment;
            long headAt = SectionLayout.freeHead(size);
            long next = seg.getLong(headAt);
            stampReuse();
            seg.putLong(at + SectionLayout.HOLE_NEXT, next);
            seg.putInt(at + SectionLayout.HOLE_SIZE, (int) size);
            seg.putInt(at + SectionLayout.HOLE_CHECK, SectionLayout.holeCheck(at, next, (int) size));
            seg.putLong(headAt, at);
        }

        /** @return whether a hole's header lies in the heap, 8-aligned */
        private boolean holeFits(long hole) {
            return v.entryFits(hole);
        }

        /**
         * Adds 2 to the section's stamp (keeping it even: no in-place update under way), ordered
         * before every store that follows: a reader that started before sees the stamp change and
         * reads again; one that starts after no longer reaches the space through any slot.
         */
        private void stampReuse() {
            long at = MapLayout.line(section) + LINE_STAMP;
            header.putLongVolatile(at, header.getLong(at) + 2);
            VarHandle.storeStoreFence();
        }

        /** Checksums the entry at {@code at}, moves the heap top past it and points the key's slot at it. */
        private void publish(long at, int len) {
            Segment seg = v.segment;
            long size = EntryLayout.size(klen, len);
            long end = at + EntryLayout.KEY + klen + len;
            if (end < at + size) {
                seg.fill(end, at + size - end, (byte) 0);
            }
            seg.putInt(at + EntryLayout.CHECKSUM,
                    (int) seg.hash64(at + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(klen, len)));
            if (at + size > seg.getLong(HEAP_TOP)) {
                setTop(seg, at + size); // appended, not in a hole
            }
            boolean inserted = !occupied;
            if (intoEmpty) {
                seg.putInt(USED, seg.getInt(USED) + 1);
            }
            seg.putLongOrdered(SectionLayout.slot(slot), SectionLayout.word(hash, at));
            if (oldSize > 0) {
                seg.putLong(GARBAGE, seg.getLong(GARBAGE) + oldSize);
                free(entry, oldSize);
            }
            if (inserted) {
                addCount(section, 1);
            }
            entry = at;
            valueLength = len;
            oldSize = size;
            intoEmpty = false;
            occupied = true;
        }
    }

    private void addCount(int section, long delta) {
        long at = MapLayout.line(section) + LINE_COUNT;
        header.putLongVolatile(at, header.getLong(at) + delta);
    }

    void checkValueLength(int len) {
        if (len > maxValue) {
            throw new FerriteException("value of " + len + " bytes is over the limit of " + maxValue
                    + " bytes of map '" + name + "'");
        }
    }

    void checkKeyLength(int len) {
        if (len > maxKey) {
            throw new FerriteException("key of " + len + " bytes is over the limit of " + maxKey
                    + " bytes of map '" + name + "'");
        }
    }

    /**
     * @throws FerriteException if the map was made with codecs of other identities (see {@link MapCodecs})
     */
    void checkCodecs(Codec<?> keyCodec, Codec<?> valueCodec) {
        MapCodecs.check(header, keyCodec, valueCodec, "map " + describe());
    }

    // ---------------------------------------------------------------- locks

    /** @return the lock word this map's client slot writes, or 0 if the map is read-only */
    long clientLockValue() {
        return client == null ? 0 : client.lockValue;
    }

    private void lock(int section) {
        checkOpen();
        Thread me = Thread.currentThread();
        if (lockOwners[section] == me) {
            throw new IllegalStateException("recursive update: this thread already holds the lock of map '" + name
                    + "' section " + section + " (a compute/merge function or updater must not write the map)");
        }
        long at = MapLayout.line(section) + LINE_LOCK;
        long mine = client.lockValue;
        Backoff backoff = null;
        while (true) {
            long cur = header.getLongVolatile(at);
            if (cur == 0) {
                if (header.compareAndSetLong(at, 0, mine)) {
                    lockOwners[section] = me;
                    if ((header.getLongVolatile(MapLayout.line(section) + LINE_STAMP) & 1) != 0) {
                        try {
                            settleInPlaceUpdate(section); // only a damaged file gets here: a dead writer keeps its lock
                        } catch (RuntimeException e) {
                            unlock(section);
                            throw e;
                        }
                    }
                    return;
                }
                continue;
            }
            if (backoff == null) {
                backoff = new Backoff(SPINS, YIELDS, PARK_NANOS, PARK_NANOS);
            }
            backoff.idle();
            if (backoff.checkLiveness()) {
                checkOpen();
                if (takeOverIfDead(section, cur)) {
                    return;
                }
            }
        }
    }

    /**
     * Takes a section's lock from a dead holder and repairs the section; false if the holder may
     * run. A lock word naming this map's own client slot while no thread of this process holds
     * the lock (seen twice, a millisecond apart: a thread of ours sets its ownership right after
     * its CAS and clears it right before its release) can only be damage, and is taken over too.
     */
    private boolean takeOverIfDead(int section, long lock) {
        long at = MapLayout.line(section) + LINE_LOCK;
        String cause;
        if (lock == client.lockValue) {
            if (lockOwners[section] != null) {
                return false;
            }
            LockSupport.parkNanos(1_000_000);
            if (lockOwners[section] != null || header.getLongVolatile(at) != lock) {
                return false;
            }
            cause = "its lock word names this process's own client slot, which does not hold it (damage)";
        } else {
            if (MapClients.lockHolderRuns(header, lock)) {
                return false;
            }
            long pid = MapClients.lockHolderPid(header, lock);
            cause = "its writer (" + (pid == 0 ? "pid unknown: its client slot was taken again since" : "pid " + pid)
                    + ") died holding the lock";
        }
        if (!header.compareAndSetLong(at, lock, client.lockValue)) {
            return false;
        }
        lockOwners[section] = Thread.currentThread();
        try {
            settleInPlaceUpdate(section);
            repair(section, cause);
        } catch (RuntimeException e) {
            unlock(section);
            throw e;
        }
        return true;
    }

    /**
     * For the new holder of a section's lock: if the stamp is odd, an in-place update was cut
     * short; the undo record's value goes back into its entry (if the record passes its check and
     * still fits that entry) and the stamp turns even.
     */
    private void settleInPlaceUpdate(int section) {
        long stampAt = MapLayout.line(section) + LINE_STAMP;
        long stamp = header.getLongVolatile(stampAt);
        if ((stamp & 1) == 0) {
            return;
        }
        SectionView v = current(section);
        Segment seg = v.segment;
        long entry = undoEntry(v);
        int len = seg.getInt(SectionLayout.UNDO + UndoLayout.LENGTH);
        if (entry >= 0 && lengthsFit(v, entry, seg.getInt(entry + EntryLayout.KEY_LENGTH), len)
                && seg.getInt(entry + EntryLayout.VALUE_LENGTH) == len) {
            long valueAt = entry + EntryLayout.KEY + seg.getInt(entry + EntryLayout.KEY_LENGTH);
            seg.copyTo(SectionLayout.UNDO + UndoLayout.VALUE, seg, valueAt, len);
            seg.putInt(entry + EntryLayout.CHECKSUM, seg.getInt(SectionLayout.UNDO + UndoLayout.CHECKSUM));
            LOG.warn("map '{}' section {}: an in-place update of the entry at offset {} was cut short; "
                    + "its old value was put back", name, section, entry);
        } else {
            LOG.warn("map '{}' section {}: an in-place update was cut short and its undo record fails its "
                    + "check; the entry it changed fails its checksum if it was torn", name, section);
        }
        header.putLongVolatile(stampAt, stamp + 1);
    }

    private void unlock(int section) {
        lockOwners[section] = null;
        header.putLongVolatile(MapLayout.line(section) + LINE_LOCK, 0);
    }

    /** At a writable open: repairs each section whose lock a dead process holds. */
    private int repairDeadHolders() {
        int repaired = 0;
        for (int s = 0; s < sectionCount; s++) {
            long lock = header.getLongVolatile(MapLayout.line(s) + LINE_LOCK);
            if (lock != 0 && takeOverIfDead(s, lock)) {
                unlock(s);
                repaired++;
            }
        }
        return repaired;
    }

    private void repair(int section, String cause) {
        long at = MapLayout.line(section) + LINE_REPAIRS;
        header.putLongVolatile(at, header.getLong(at) + 1);
        LOG.warn("map '{}' section {}: {}; taken over and repaired", name, section, cause);
        try {
            rebuild(section, 0, true);
        } catch (PoolExhaustedException e) {
            recountInPlace(section);
            LOG.warn("map '{}' section {}: no pool space to rebuild it ({}); its counts were repaired in place",
                    name, section, e.getMessage());
        }
    }

    /** Recounts a section's live entries and used slots where it is (when no rebuild fits). */
    private void recountInPlace(int section) {
        SectionView v = current(section);
        Segment seg = v.segment;
        long live = 0;
        int used = 0;
        for (int i = 0; i < v.slots; i++) {
            long w = seg.getLong(SectionLayout.slot(i));
            if (w == 0) {
                continue;
            }
            used++;
            long off = w & OFFSET_MASK;
            if (w != TOMBSTONE && v.entryFits(off) && checksumMatches(v, off,
                    entryField(v, off, EntryLayout.KEY_LENGTH), entryField(v, off, EntryLayout.VALUE_LENGTH))) {
                live++;
            }
        }
        seg.putInt(USED, used);
        header.putLongVolatile(MapLayout.line(section) + LINE_COUNT, live);
    }

    // ---------------------------------------------------------------- rebuilds

    /**
     * Writes a section's live entries into a new data segment sized for them plus room, and
     * switches the section to it with one store of its generation; readers of the old generation
     * finish on it (its chunks go back to the pool when the last handle on it closes). Entries
     * whose checksum fails are dropped and counted. The caller holds the section's lock.
     *
     * @param section   the section
     * @param extra     heap bytes the caller is about to append
     * @param repairing whether this rebuild repairs a dead writer's section (for the log)
     * @throws PoolExhaustedException if the pool cannot hold the new segment; nothing changed then
     */
    void rebuild(int section, long extra, boolean repairing) {
        rebuild(section, extra, repairing, false);
    }

    /** As {@link #rebuild(int, long, boolean)}; {@code dropAll} keeps no entry (clear). */
    private void rebuild(int section, long extra, boolean repairing, boolean dropAll) {
        SectionView old = current(section);
        Segment os = old.segment;
        // The slot words give the live entries; marked in a bitmap of the heap's 8-byte words, they
        // are read front to back, not at random, and a second slot word naming an entry shows.
        long heapWords = (old.heapEnd - old.heapStart) >>> 3;
        if ((heapWords + 63) >>> 6 > Integer.MAX_VALUE - 8) {
            throw new FerriteException("map '" + name + "' section " + section + ": a heap of "
                    + (old.heapEnd - old.heapStart) + " bytes is over the 1 TiB a section can rebuild");
        }
        long[] marks = new long[(int) ((heapWords + 63) >>> 6)];
        int found = 0;
        long dropped = 0;
        for (int i = 0; i < old.slots && !dropAll; i++) {
            long w = os.getLong(SectionLayout.slot(i));
            if (w == 0 || w == TOMBSTONE) {
                continue;
            }
            long off = w & OFFSET_MASK;
            if (!old.entryFits(off)) {
                dropped++; // points outside the heap
                continue;
            }
            long bit = (off - old.heapStart) >>> 3;
            long mask = 1L << bit; // shifts by bit mod 64
            if ((marks[(int) (bit >>> 6)] & mask) != 0) {
                dropped++; // a second slot word naming the same entry
                continue;
            }
            marks[(int) (bit >>> 6)] |= mask;
            found++;
        }
        long[] keep = new long[found];
        int live = 0;
        long bytes = 0;
        for (int word = 0; word < marks.length; word++) {
            for (long m = marks[word]; m != 0; m &= m - 1) {
                long off = old.heapStart + (((long) word << 6) + Long.numberOfTrailingZeros(m)) * 8;
                int k = entryField(old, off, EntryLayout.KEY_LENGTH);
                int vl = entryField(old, off, EntryLayout.VALUE_LENGTH);
                if (!checksumMatches(old, off, k, vl)) {
                    dropped++; // damaged
                    continue;
                }
                keep[live++] = off;
                bytes += EntryLayout.size(k, vl);
            }
        }
        int slots = SectionLayout.MIN_SLOTS;
        while ((long) slots < (live + 1L) * 2 && slots < SectionLayout.MAX_SLOTS) {
            slots <<= 1;
        }
        long heap = bytes + extra + Math.max(Math.max(bytes / 2, extra), 4096);
        long generation = old.generation + 1;
        String newName = MapLayout.sectionName(name, section, generation);
        pool.delete(newName); // left by a rebuild that died before its switch
        pool.delete(MapLayout.sectionName(name, section, old.generation - 1)); // left by one that died after it
        Segment ns = pool.allocate(newName, segmentSize(pool, slots, heap));
        SectionView nv;
        try {
            ns.fill(0, SectionLayout.TABLE + 8L * slots, (byte) 0);
            long top = SectionLayout.TABLE + 8L * slots;
            int mask = slots - 1;
            for (int i = 0; i < live; i++) {
                long off = keep[i];
                int k = os.getInt(off + EntryLayout.KEY_LENGTH);
                int vl = os.getInt(off + EntryLayout.VALUE_LENGTH);
                long size = EntryLayout.size(k, vl);
                os.copyTo(off, ns, top, size);
                long h = os.hash64(off + EntryLayout.KEY, k);
                int idx = (int) h & mask;
                while (ns.getLong(SectionLayout.slot(idx)) != 0) {
                    idx = (idx + 1) & mask;
                }
                ns.putLong(SectionLayout.slot(idx), SectionLayout.word(h, top));
                top += size;
            }
            writeSectionHeader(ns, section, generation, slots, top, 0, live);
            nv = SectionView.open(ns, section, generation);
        } catch (RuntimeException e) {
            ns.close();
            pool.delete(newName);
            throw e;
        }
        long line = MapLayout.line(section);
        header.putLongVolatile(line + LINE_GENERATION, generation);
        header.putLongVolatile(line + LINE_COUNT, live);
        if (dropped > 0) {
            header.putLongVolatile(line + LINE_DROPPED, header.getLong(line + LINE_DROPPED) + dropped);
            LOG.warn("map '{}' section {}: {} damaged entries dropped by a {}", name, section, dropped,
                    repairing ? "repair" : "rebuild");
        }
        synchronized (monitors[section]) {
            install(section, nv, views.get(section));
        }
        pool.delete(old.segment.name());
        rebuilds.incrementAndGet();
    }

    /** @return an int field of an entry, or -1 if the entry's header is outside the heap */
    private static int entryField(SectionView view, long off, int field) {
        return view.entryFits(off) ? view.segment.getInt(off + field) : -1;
    }

    /** Empties every section (one at a time, each under its lock), giving their memory back. */
    void clear() {
        if (readOnly) {
            throw new UnsupportedOperationException("map '" + name + "' was opened read-only");
        }
        for (int s = 0; s < sectionCount; s++) {
            lock(s);
            try {
                rebuild(s, 0, false, true);
            } finally {
                unlock(s);
            }
        }
    }

    // ---------------------------------------------------------------- stats, close

    MapStats stats() {
        checkOpen();
        long entries = 0;
        long segmentBytes = header.size();
        long used = 0;
        long index = header.size();
        long garbage = 0;
        long repairs = 0;
        long dropped = 0;
        for (int s = 0; s < sectionCount; s++) {
            long line = MapLayout.line(s);
            entries += Math.max(0, header.getLongVolatile(line + LINE_COUNT));
            repairs += header.getLongVolatile(line + LINE_REPAIRS);
            dropped += header.getLongVolatile(line + LINE_DROPPED);
            SectionView v = current(s);
            try {
                segmentBytes += v.segment.size();
                used += v.segment.getLong(HEAP_TOP) - v.heapStart;
                index += v.heapStart; // the section's header and slot table
                garbage += v.segment.getLong(GARBAGE);
            } catch (SegmentClosedException e) {
                checkOpen();
                s--;
            }
        }
        return new MapStats(entries, sectionCount, segmentBytes, index, used, garbage, rebuilds.get(), repairs, dropped,
                damagedReads.get(), repairedAtOpen, verifiedAtOpen);
    }

    String describe() {
        return "'" + name + "' in " + pool.spec().describe();
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed || pool.isClosed()) {
            throw new FerriteException("map " + describe() + " is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int s = 0; s < sectionCount; s++) {
            synchronized (monitors[s]) {
                SectionView v = views.getAndSet(s, null);
                if (v != null) {
                    v.segment.close();
                }
            }
        }
        if (client != null) {
            MapClients.release(header, client);
        }
        header.close();
    }
}
