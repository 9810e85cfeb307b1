package dev.ferrite.kv;

import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static dev.ferrite.kv.MapLayout.LINE_GENERATION;

/**
 * The map's readers: a get (optimistic: a bucket's word read before and after its bytes, the
 * section's generation after them; the read runs again if either moved), the whole-bucket read
 * of scans and the scrub, the cursor scan, and the prefetch of a batch of keys. Readers take no lock and write
 * nothing to shared memory. Thread-safe.
 */
final class SectionReader {

    private static final Logger LOG = LoggerFactory.getLogger(SectionReader.class);

    /** Keys warmed per pass of {@link #prefetch}: about as many misses as a core keeps in flight. */
    private static final int PREFETCH_BATCH = 16;
    /** Bytes of an outside entry {@link #prefetch} touches, a load per 64. */
    private static final long PREFETCH_ENTRY_BYTES = 192;

    private final MapStore store;
    private final Segment header;
    private final SectionViews views;
    /** Whether reads check each entry they return against its checksum (else its lengths only). */
    private final boolean verifyReads;
    private final AtomicLong damagedReads = new AtomicLong();
    /** The sum of what {@link #prefetch} loaded: stored so the JIT keeps the loads. */
    @SuppressWarnings("unused")
    private long prefetched;

    SectionReader(MapStore store, SectionViews views, boolean verifyReads) {
        this.store = store;
        this.header = store.header;
        this.views = views;
        this.verifyReads = verifyReads;
    }

    /** @return whether reads check each entry's checksum */
    boolean verifiesReads() {
        return verifyReads;
    }

    /** @return reads in this process that met a damaged entry and skipped it */
    long damagedReads() {
        return damagedReads.get();
    }

    /**
     * Counts the damaged entries of a section, read at one instant.
     *
     * @return entries failing their checks (the one changed in place now: its lengths only)
     */
    long damagedIn(int section) {
        return readConsistently(section, SectionReader::countDamaged);
    }

    /**
     * Finds a key and hands its value to a reader, without locks and without writing shared memory.
     *
     * @return the reader's result, or {@code absent} if the key is not in the map
     */
    <R> R read(byte[] key, int koff, int klen, long hash, ValueReader<R> reader, R absent) {
        try {
            return readSection(key, koff, klen, hash, reader, absent);
        } catch (SegmentClosedException e) {
            store.checkOpen(); // the map was closed: say so, not which segment
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    private <R> R readSection(byte[] key, int koff, int klen, long hash, ValueReader<R> reader, R absent) {
        int section = store.sectionOf(hash);
        long genAt = MapLayout.line(section) + LINE_GENERATION;
        SectionView v = views.cached(section);
        while (true) {
            if (v == null) {
                v = views.current(section);
            }
            try {
                // The view cached is nearly always the current generation's: read it, then check.
                Object r = find(v, key, koff, klen, hash, reader);
                if (header.getLongVolatile(genAt) == v.generation) {
                    if (r != RETRY) {
                        return r == ABSENT ? absent : (R) r;
                    }
                } else {
                    v = null; // rebuilt meanwhile: read the new generation
                }
            } catch (SegmentClosedException e) {
                store.checkOpen(); // a newer generation closed this view meanwhile: read again
                v = null;
            }
        }
    }

    /** What {@link #find} returns when the key is not in the view. */
    private static final Object ABSENT = new Object();
    /** What {@link #find} returns when a writer changed what it read: read again. */
    private static final Object RETRY = new Object();

    /**
     * Probes a view for a key from its home bucket to the first empty one and hands the value of
     * the bucket holding it to a reader: the bucket's word, the key compare and the value read,
     * then the word again (settled and unchanged: the bytes read were whole). Never reads outside
     * the view: lengths are bounded by the bucket, or checked against the heap, before they are used.
     *
     * @return the reader's result, {@link #ABSENT} or {@link #RETRY}
     */
    private Object find(SectionView v, byte[] key, int koff, int klen, long hash, ValueReader<?> reader) {
        Segment seg = v.segment;
        // A key too long for the bucket matches no inline word (-1 has bits the mask clears).
        long inlineBits = BucketLayout.fitsInline(v.bucketSize, klen, 0) ? BucketLayout.matchBits(hash, BucketLayout.INLINE, klen) : -1;
        long outsideBits = BucketLayout.matchBits(hash, BucketLayout.OUTSIDE, 0);
        long inlineMask = BucketLayout.matchMask(BucketLayout.INLINE);
        long outsideMask = BucketLayout.matchMask(BucketLayout.OUTSIDE);
        int idx = v.home(hash);
        for (int n = 0; n < v.buckets; n++) {
            long b = v.bucket(idx);
            long w = seg.getLongVolatile(b);
            if (BucketLayout.kind(w) == BucketLayout.EMPTY) {
                return ABSENT;
            }
            if ((w & inlineMask) == inlineBits && (w & BucketLayout.ODD) == 0) {
                if (seg.mismatch(b + BucketLayout.KEY, key, koff, klen) < 0) {
                    int vl = BucketLayout.valueLength(w);
                    if (!v.inlineFits(w) || verifyReads
                            && v.inlineChecksum(b + BucketLayout.CHECKSUM, klen, vl) != seg.getInt(b + BucketLayout.CHECKSUM)) {
                        return damaged(v, b, w);
                    }
                    return readValue(seg, b, w, b + BucketLayout.KEY + klen, vl, reader);
                }
                if (!unchanged(seg, b, w)) {
                    return RETRY; // a key compared while a writer changed the bucket
                }
            } else if ((w & outsideMask) == outsideBits || (w & inlineMask) == inlineBits) {
                Object r = (w & BucketLayout.ODD) == 0
                        ? readOutside(v, b, w, seg.getLong(b + BucketLayout.ENTRY), key, koff, klen, reader)
                        : readChanging(v, b, w, key, koff, klen, reader);
                if (r != null) {
                    return r;
                }
            }
            idx = v.nextBucket(idx);
        }
        return ABSENT;
    }

    /** @return whether a bucket's word is still {@code w} (after the loads before it) */
    private static boolean unchanged(Segment seg, long b, long w) {
        VarHandle.acquireFence();
        return seg.getLongVolatile(b) == w;
    }

    /**
     * Hands a value to a reader and checks the bucket's word afterwards; a reader that throws on
     * bytes a writer changed under it is run again, one that throws on settled bytes throws.
     */
    private static Object readValue(Segment seg, long b, long w, long valueAt, int vl, ValueReader<?> reader) {
        Object r;
        try {
            r = reader.read(seg, valueAt, vl);
        } catch (RuntimeException e) {
            if (unchanged(seg, b, w)) {
                throw e;
            }
            return RETRY;
        }
        return unchanged(seg, b, w) ? r : RETRY;
    }

    /**
     * Reads the outside entry a bucket names if it holds the key.
     *
     * @return the reader's result, {@link #ABSENT} (a damaged entry), {@link #RETRY}, or null if
     *         the entry holds another key
     */
    private Object readOutside(SectionView v, long b, long w, long off, byte[] key, int koff, int klen,
                               ValueReader<?> reader) {
        Segment seg = v.segment;
        if (!v.entryFits(off)) {
            return unchanged(seg, b, w) ? damaged(v, b, w) : RETRY;
        }
        if (seg.getInt(off + EntryLayout.KEY_LENGTH) != klen || off + EntryLayout.KEY + klen > v.heapEnd
                || seg.mismatch(off + EntryLayout.KEY, key, koff, klen) >= 0) {
            return unchanged(seg, b, w) ? null : RETRY;
        }
        int vl = seg.getInt(off + EntryLayout.VALUE_LENGTH);
        if (!v.lengthsFit(off, klen, vl) || verifyReads && (w & BucketLayout.ODD) == 0 && !v.checksumMatches(off, klen, vl)) {
            return unchanged(seg, b, w) ? damaged(v, b, w) : RETRY;
        }
        return readValue(seg, b, w, off + EntryLayout.KEY + klen, vl, reader);
    }

    /**
     * Reads a bucket a writer is changing (its word odd) from the undo record, which holds it as it
     * was: the value until the change ends, and after it if the writer died.
     *
     * @return as {@link #readOutside}
     */
    private Object readChanging(SectionView v, long b, long w, byte[] key, int koff, int klen, ValueReader<?> reader) {
        Segment seg = v.segment;
        long u = SectionLayout.UNDO;
        if (!v.undoFor(b, w)) {
            return unchanged(seg, b, w) ? damaged(v, b, w) : RETRY;
        }
        long old = seg.getLong(u + UndoLayout.WORD);
        int mode = seg.getInt(u + UndoLayout.MODE);
        if (mode == UndoLayout.INLINE_BYTES && BucketLayout.kind(old) == BucketLayout.INLINE) {
            int vl = BucketLayout.valueLength(old);
            if (BucketLayout.keyLength(old) != klen || !v.inlineFits(old)) {
                return unchanged(seg, b, w) ? null : RETRY;
            }
            long at = u + UndoLayout.SAVED + 4;
            if (seg.mismatch(at, key, koff, klen) >= 0) {
                return unchanged(seg, b, w) ? null : RETRY;
            }
            return readValue(seg, b, w, at + klen, vl, reader);
        }
        if (BucketLayout.kind(old) == BucketLayout.OUTSIDE
                && (mode == UndoLayout.OUTSIDE_KEPT || mode == UndoLayout.OUTSIDE_VALUE)) {
            long off = seg.getLong(u + UndoLayout.ENTRY);
            if (mode == UndoLayout.OUTSIDE_KEPT) {
                return readOutside(v, b, w, off, key, koff, klen, reader);
            }
            if (!v.entryFits(off) || seg.getInt(off + EntryLayout.KEY_LENGTH) != klen
                    || !v.lengthsFit(off, klen, seg.getInt(u + UndoLayout.LENGTH))
                    || seg.mismatch(off + EntryLayout.KEY, key, koff, klen) >= 0) {
                return unchanged(seg, b, w) ? null : RETRY;
            }
            return readValue(seg, b, w, u + UndoLayout.SAVED, seg.getInt(u + UndoLayout.LENGTH), reader);
        }
        return unchanged(seg, b, w) ? damaged(v, b, w) : RETRY;
    }

    /** Reports a damaged bucket a get met. @return {@link #ABSENT} */
    private Object damaged(SectionView v, long b, long w) {
        reportDamage(v, b);
        return ABSENT;
    }

    /** Counts a read that met a damaged entry, and logs the first 16 of this process. */
    void reportDamage(SectionView v, long bucket) {
        if (damagedReads.getAndIncrement() < 16) {
            LOG.warn("map '{}' section {}: the entry of the bucket at offset {} of segment '{}' is damaged (a length out "
                    + "of range, or a checksum that does not match); skipped (the section's next rebuild drops it)",
                    store.name, v.section, bucket, v.segment.name());
        }
    }

    /**
     * Runs a read of one section's current generation without a lock, and runs it again if the
     * section was rebuilt meanwhile. {@code body} must only read; it reads each bucket at one
     * instant ({@link #entryAt}).
     */
    <T> T readConsistently(int section, Function<SectionView, T> body) {
        store.checkOpen();
        long genAt = MapLayout.line(section) + LINE_GENERATION;
        while (true) {
            long g = header.getLongVolatile(genAt);
            SectionView v = views.view(section, g);
            if (v == null) {
                continue;
            }
            try {
                T result = body.apply(v);
                VarHandle.acquireFence();
                if (header.getLongVolatile(genAt) == g) {
                    return result;
                }
            } catch (SegmentClosedException e) {
                store.checkOpen(); // a newer generation closed this view meanwhile: read again
            }
        }
    }

    /** What {@link #entryAt} returns for a bucket whose entry fails its checks. */
    static final byte[][] DAMAGED = new byte[0][];

    /**
     * Reads the entry of a bucket whole, at one instant (a bucket being changed: as it was, from
     * the undo record), checked against its checksum if {@code check} (else its lengths only).
     *
     * @return key and value bytes; null for an empty bucket or a tombstone; {@link #DAMAGED}
     */
    static byte[][] entryAt(SectionView v, long b, boolean check) {
        Segment seg = v.segment;
        while (true) {
            long w = seg.getLongVolatile(b);
            int kind = BucketLayout.kind(w);
            if (kind == BucketLayout.EMPTY || kind == BucketLayout.TOMBSTONE) {
                return null;
            }
            byte[][] e;
            try {
                e = (w & BucketLayout.ODD) == 0 ? settled(v, b, w, check) : changing(v, b, w);
            } catch (RuntimeException torn) {
                if (unchanged(seg, b, w)) {
                    throw torn;
                }
                continue;
            }
            if (unchanged(seg, b, w)) {
                return e;
            }
        }
    }

    private static byte[][] settled(SectionView v, long b, long w, boolean check) {
        Segment seg = v.segment;
        if (BucketLayout.kind(w) == BucketLayout.INLINE) {
            int k = BucketLayout.keyLength(w);
            int vl = BucketLayout.valueLength(w);
            if (!v.inlineFits(w) || check && !v.intact(b, w)) {
                return DAMAGED;
            }
            return copy(seg, b + BucketLayout.KEY, k, b + BucketLayout.KEY + k, vl);
        }
        long off = seg.getLong(b + BucketLayout.ENTRY);
        return outside(v, off, check, -1, 0);
    }

    /** @return an outside entry's bytes, its value from {@code valueAt} if that is not -1, or {@link #DAMAGED} */
    private static byte[][] outside(SectionView v, long off, boolean check, long valueAt, int valueLength) {
        if (!v.entryFits(off)) {
            return DAMAGED;
        }
        Segment seg = v.segment;
        int k = seg.getInt(off + EntryLayout.KEY_LENGTH);
        int vl = valueAt < 0 ? seg.getInt(off + EntryLayout.VALUE_LENGTH) : valueLength;
        if (!v.lengthsFit(off, k, vl) || check && valueAt < 0 && !v.checksumMatches(off, k, vl)) {
            return DAMAGED;
        }
        return copy(seg, off + EntryLayout.KEY, k, valueAt < 0 ? off + EntryLayout.KEY + k : valueAt, vl);
    }

    private static byte[][] changing(SectionView v, long b, long w) {
        Segment seg = v.segment;
        long u = SectionLayout.UNDO;
        if (!v.undoFor(b, w)) {
            return DAMAGED;
        }
        long old = seg.getLong(u + UndoLayout.WORD);
        int mode = seg.getInt(u + UndoLayout.MODE);
        if (mode == UndoLayout.INLINE_BYTES && BucketLayout.kind(old) == BucketLayout.INLINE && v.inlineFits(old)) {
            int k = BucketLayout.keyLength(old);
            return copy(seg, u + UndoLayout.SAVED + 4, k, u + UndoLayout.SAVED + 4 + k, BucketLayout.valueLength(old));
        }
        if (BucketLayout.kind(old) != BucketLayout.OUTSIDE) {
            return DAMAGED;
        }
        long off = seg.getLong(u + UndoLayout.ENTRY);
        if (mode == UndoLayout.OUTSIDE_KEPT) {
            return outside(v, off, false, -1, 0);
        }
        return mode == UndoLayout.OUTSIDE_VALUE
                ? outside(v, off, false, u + UndoLayout.SAVED, seg.getInt(u + UndoLayout.LENGTH)) : DAMAGED;
    }

    private static byte[][] copy(Segment seg, long keyAt, int k, long valueAt, int vl) {
        byte[] kb = new byte[k];
        byte[] vb = new byte[vl];
        seg.copyTo(keyAt, kb, 0, k);
        seg.copyTo(valueAt, vb, 0, vl);
        return new byte[][] {kb, vb};
    }

    /** @return entries of a view that fail their checks (one being changed: as the undo record has it) */
    private static long countDamaged(SectionView v) {
        long damaged = 0;
        for (int i = 0; i < v.buckets; i++) {
            if (entryAt(v, v.bucket(i), true) == DAMAGED) {
                damaged++;
            }
        }
        return damaged;
    }

    /** Entries read by one step of {@link #scanBuckets}, and where the next step starts. */
    static final class BucketRun {
        /** The cursor for the next step in this section; 0 when the section is done. */
        final long next;
        /** Key and value bytes of each live entry read. */
        final List<byte[][]> entries;

        BucketRun(long next, List<byte[][]> entries) {
            this.next = next;
            this.entries = entries;
        }
    }

    /** Cursor positions: the low 32 bits of key hashes, so a position means the same whatever the table's size. */
    private static final long POSITIONS = 1L << 32;

    /**
     * One step of a cursor scan of one section. The cursor is a position in the order of the keys'
     * home buckets: the low 32 bits of their hashes, which {@link SectionLayout#home} scales to the
     * table, so the order is the same for every table size and an entry present throughout is met
     * exactly once even if the section is rebuilt between steps. A home bucket's entries lie in the
     * probe run from it to the next empty bucket; each is read whole ({@link #entryAt}), checked
     * against its checksum, its hash against its home, and met once if two buckets hold one key.
     *
     * @param cursor where to start in this section, 0 for its beginning
     * @param max    how many entries to aim for, 1 or more (a home bucket is never split, so a step
     *               may take a few more)
     */
    BucketRun scanBuckets(int section, long cursor, int max) {
        return readConsistently(section, v -> {
            List<byte[][]> out = new ArrayList<>();
            long position = cursor;
            int home = v.home(position);
            while (true) {
                collectHome(v, home, position, out);
                home++;
                position = home == v.buckets ? POSITIONS : firstPosition(home, v.buckets);
                if (position >= POSITIONS) {
                    return new BucketRun(0, out);
                }
                if (out.size() >= max) {
                    return new BucketRun(position, out);
                }
            }
        });
    }

    /** @return the least position whose home bucket in a table of {@code buckets} is {@code home} */
    private static long firstPosition(int home, int buckets) {
        return (((long) home << 32) + buckets - 1) / buckets;
    }

    /** Adds the live, intact entries whose home is {@code home} and position at least {@code from}. */
    private static void collectHome(SectionView v, int home, long from, List<byte[][]> out) {
        int first = out.size();
        int i = home;
        for (int n = 0; n < v.buckets; n++) {
            long b = v.bucket(i);
            if (BucketLayout.kind(v.segment.getLongVolatile(b)) == BucketLayout.EMPTY) {
                return;
            }
            byte[][] e = entryAt(v, b, true);
            if (e != null && e != DAMAGED) {
                long h = MapStore.hash(e[0], 0, e[0].length);
                if (v.home(h) == home && (h & 0xFFFF_FFFFL) >= from && !metBefore(out, first, e[0])) {
                    out.add(e);
                }
            }
            i = v.nextBucket(i);
        }
    }

    /** @return whether entries {@code from} on of a list hold a key (two buckets holding one key are damage) */
    private static boolean metBefore(List<byte[][]> out, int from, byte[] key) {
        for (int j = from; j < out.size(); j++) {
            if (java.util.Arrays.equals(out.get(j)[0], key)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Brings the home buckets, then the outside entries they name, of several keys toward the CPU
     * caches: one pass over all the keys per level, so the cache misses of a pass overlap instead
     * of following one another as a get after a get's would. A hint: reads only, takes no lock,
     * skips keys it cannot place (absent, displaced, a section not yet opened here, a view closed
     * meanwhile) and never throws for them.
     */
    void prefetch(byte[][] keys, int from, int count) {
        prefetch(keys, null, from, count);
    }

    /**
     * As {@link #prefetch(byte[][], int, int)}, with the keys' hashes computed already.
     *
     * @param hashes {@code hashes[i]} is the hash of {@code keys[i]}; null to compute them here
     */
    void prefetch(byte[][] keys, long[] hashes, int from, int count) {
        int batch = Math.min(count, PREFETCH_BATCH);
        long[] words = new long[batch];
        SectionView[] at = new SectionView[batch];
        for (int start = from; start < from + count; start += PREFETCH_BATCH) {
            int n = Math.min(PREFETCH_BATCH, from + count - start);
            try {
                prefetched += prefetchBatch(keys, hashes, start, n, words, at);
            } catch (SegmentClosedException e) {
                // a section moved on meanwhile: nothing to warm there
            }
        }
    }

    /**
     * Three passes, each short per key so that a core keeps many of its loads in flight: the
     * hashes (into {@code words}), the home buckets (every cache line of each), the outside
     * entries the matching buckets name.
     */
    private long prefetchBatch(byte[][] keys, long[] hashes, int start, int n, long[] words, SectionView[] at) {
        for (int i = 0; i < n; i++) {
            byte[] key = keys[start + i];
            if (key == null) {
                at[i] = null;
            } else {
                long hash = hashes != null ? hashes[start + i] : MapStore.hash(key, 0, key.length);
                words[i] = hash;
                at[i] = views.cached(store.sectionOf(hash));
            }
        }
        long touched = 0;
        for (int i = 0; i < n; i++) {
            SectionView v = at[i];
            if (v != null) {
                long hash = words[i];
                long b = v.bucket(v.home(hash));
                long w = v.segment.getLong(b);
                for (long line = 64; line < v.bucketSize; line += 64) {
                    touched += v.segment.getLong(b + line);
                }
                touched += w;
                boolean names = BucketLayout.kind(w) == BucketLayout.OUTSIDE && BucketLayout.wordTag(w) == BucketLayout.tag(hash);
                words[i] = names ? v.segment.getLong(b + BucketLayout.ENTRY) : -1;
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
}
