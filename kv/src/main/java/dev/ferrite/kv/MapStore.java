package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import dev.ferrite.internal.XxHash64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static dev.ferrite.kv.MapLayout.LINE_COUNT;
import static dev.ferrite.kv.MapLayout.LINE_DROPPED;
import static dev.ferrite.kv.MapLayout.LINE_GENERATION;
import static dev.ferrite.kv.MapLayout.LINE_REPAIRS;
import static dev.ferrite.kv.SectionLayout.GARBAGE;
import static dev.ferrite.kv.SectionLayout.HEAP_TOP;

/**
 * The map's engine on keys and values as bytes, the parts of which it owns: the header
 * ({@link MapHeader}), the cache of section segments ({@link SectionViews}), the readers
 * ({@link SectionReader}), the section locks with takeover and repair ({@link SectionLocks}), the
 * writers ({@link EntryCursor}) and the rebuilds ({@link SectionRebuilder}). {@link FerriteMap}
 * puts codecs and the {@code ConcurrentMap} contract on top. Thread-safe.
 *
 * <p>Readers take no lock and write nothing to shared memory: a bucket's bytes are written before
 * its word publishes them and change afterwards only through the undo protocol (the word odd
 * meanwhile, its version + 2 after), removal turns a word into a tombstone, and a section's data
 * segment is replaced only as a whole (a new generation) by a rebuild. So a reader reads a
 * bucket's word, its bytes, the word again and the section's generation; if one moved, it reads
 * again.
 */
final class MapStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MapStore.class);

    final ChunkPool pool;
    final String name;
    final Segment header;
    final int sectionCount;
    final int maxKey;
    final int maxValue;
    /** The sections' load limit, in thousandths ({@link MapLayout#LOAD_LIMIT}). */
    final int loadLimit;
    /** Whether the buckets keep reaches (a map of version 4, not 3: {@link BucketLayout#reach}). */
    final boolean reaches;
    final boolean readOnly;
    final SectionViews views;
    final SectionReader reader;
    final SectionLocks locks;
    final SectionRebuilder rebuilder;
    private final int sectionShift;
    private final MapClients.Held client;
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
        this.loadLimit = MapHeader.loadLimit(header);
        this.reaches = header.getInt(MapLayout.VERSION) != MapLayout.VERSION_WITHOUT_REACH;
        this.sectionShift = 64 - Integer.numberOfTrailingZeros(sectionCount);
        this.views = new SectionViews(this);
        this.rebuilder = new SectionRebuilder(this, views);
        this.client = readOnly ? null : MapClients.take(header, describe());
        boolean unclean = MapClients.deadSlots(header, !readOnly) > 0 || client != null && client.fromDead;
        this.reader = new SectionReader(this, views, verifyReads || readOnly && unclean);
        this.locks = readOnly ? null : new SectionLocks(this, views, client);
        try {
            this.repairedAtOpen = readOnly ? 0 : locks.repairDeadHolders();
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
    record Shape(int sections, int bucketsPerSection, int bucketSize, long heapPerSection, int maxKey, int maxValue,
                 int loadLimit) {
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
            int buckets = SectionView.bucketsFilling(pool, shape.bucketsPerSection, shape.bucketSize, shape.heapPerSection);
            for (int s = 0; s < shape.sections; s++) {
                String n = MapLayout.sectionName(name, s, 1);
                pool.delete(n); // a leftover of a creation that died
                try (Segment seg = pool.allocate(n, SectionView.segmentSize(pool, buckets, shape.bucketSize, shape.heapPerSection))) {
                    made.add(n);
                    SectionView.writeEmpty(seg, s, 1, buckets, shape.bucketSize);
                }
                header.putLong(MapLayout.line(s) + LINE_GENERATION, 1);
            }
            MapHeader.write(header, shape.sections, shape.maxKey, shape.maxValue, shape.loadLimit, keyCodec, valueCodec);
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
            MapHeader.validate(header, name);
            return Optional.of(new MapStore(pool, name, header, readOnly, verifyReads));
        } catch (RuntimeException e) {
            header.close();
            throw e;
        }
    }

    // ---------------------------------------------------------------- hashing and sections

    /** @return the hash of a key's bytes (XXH64, seed 0): the same as {@link Segment#hash64} over them */
    static long hash(byte[] key, int off, int len) {
        return XxHash64.hash(key, off, len);
    }

    /** @return the section of a key hash: its top bits */
    int sectionOf(long hash) {
        return sectionCount == 1 ? 0 : (int) (hash >>> sectionShift);
    }

    // ---------------------------------------------------------------- reads

    /**
     * Finds a key and hands its value to a reader, without locks and without writing shared memory.
     *
     * @return the reader's result, or {@code absent} if the key is not in the map
     */
    <R> R read(byte[] key, int koff, int klen, long hash, ValueReader<R> valueReader, R absent) {
        return reader.read(key, koff, klen, hash, valueReader, absent);
    }

    /** Warms the home buckets and outside entries of several keys (see {@link SectionReader#prefetch}). */
    void prefetch(byte[][] keys, int from, int count) {
        reader.prefetch(keys, from, count);
    }

    /** As {@link #prefetch(byte[][], int, int)}, for the keys of a batch. */
    void prefetch(KeyBatch batch) {
        reader.prefetch(batch);
    }

    /** One step of a cursor scan of one section (see {@link SectionScanner#scan}). */
    SectionScanner.BucketRun scanBuckets(int section, long cursor, int max) {
        return reader.scanBuckets(section, cursor, max);
    }

    /**
     * Checks every entry of every section against its checksum and lengths; a section holding a
     * damaged entry (or a bucket naming an entry outside its heap) is rebuilt without it unless
     * the map is read-only. Reads each section as a get does, then takes its lock only to rebuild.
     *
     * @return damaged entries found
     */
    long verify() {
        checkOpen();
        long damaged = 0;
        for (int s = 0; s < sectionCount; s++) {
            long found = reader.damagedIn(s);
            if (found > 0 && client != null) {
                locks.lock(s);
                try {
                    rebuilder.rebuild(s, 0, false);
                } finally {
                    locks.unlock(s);
                }
            }
            damaged += found;
        }
        return damaged;
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
        R apply(EntryCursor entry);
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
        locks.lock(section);
        try {
            EntryCursor c = new EntryCursor(this, section, key, koff, klen, hash);
            c.locate();
            return op.apply(c);
        } catch (SegmentClosedException e) {
            checkOpen();
            throw e;
        } finally {
            locks.unlock(section);
        }
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

    /** @return the lock word this map's client slot writes, or 0 if the map is read-only */
    long clientLockValue() {
        return client == null ? 0 : client.lockValue;
    }

    /** Empties every section (one at a time, each under its lock), giving their memory back. */
    void clear() {
        if (readOnly) {
            throw new UnsupportedOperationException("map '" + name + "' was opened read-only");
        }
        for (int s = 0; s < sectionCount; s++) {
            locks.lock(s);
            try {
                rebuilder.rebuild(s, 0, false, true);
            } finally {
                locks.unlock(s);
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
            SectionView v = views.current(s);
            try {
                segmentBytes += v.segment.size();
                used += v.segment.getLong(HEAP_TOP) - v.heapStart;
                index += v.heapStart; // the section's header and bucket table
                garbage += v.segment.getLong(GARBAGE);
            } catch (SegmentClosedException e) {
                checkOpen();
                s--;
            }
        }
        return new MapStats(entries, sectionCount, (double) loadLimit / MapLayout.LOAD_SCALE, segmentBytes, index, used, garbage, rebuilder.count(),
                repairs, dropped, reader.damagedReads(), repairedAtOpen, verifiedAtOpen);
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
        closed = true;
        if (closeHandles) {
            views.closeAll();
        } else {
            views.forgetAll();
        }
        if (client != null) {
            MapClients.release(header, client);
        }
        if (closeHandles) {
            header.close();
        }
    }
}
