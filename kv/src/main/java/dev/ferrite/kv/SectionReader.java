package dev.ferrite.kv;

import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static dev.ferrite.kv.MapLayout.LINE_GENERATION;
import static dev.ferrite.kv.MapLayout.LINE_STAMP;
import static dev.ferrite.kv.SectionLayout.OFFSET_MASK;
import static dev.ferrite.kv.SectionLayout.TOMBSTONE;

/**
 * The map's readers: a get (optimistic: the section's generation and stamp read before and after,
 * the read run again if either moved), a consistent read of a whole section for scans and the
 * scrub, the cursor scan, and the prefetch of a batch of keys. Readers take no lock and write
 * nothing to shared memory. Thread-safe.
 */
final class SectionReader {

    private static final Logger LOG = LoggerFactory.getLogger(SectionReader.class);

    /** Keys warmed per pass of {@link #prefetch}: about as many misses as a core keeps in flight. */
    private static final int PREFETCH_BATCH = 16;
    /**
     * Bytes of an entry {@link #prefetch} touches, a load per 64: an entry of a 16-byte key and a
     * 100-byte value spans three lines.
     */
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
        return readConsistently(section, this::countDamaged);
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

    private <R> R readSection(byte[] key, int koff, int klen, long hash, ValueReader<R> reader, R absent) {
        int section = store.sectionOf(hash);
        long genAt = MapLayout.line(section) + LINE_GENERATION;
        long stampAt = MapLayout.line(section) + LINE_STAMP;
        while (true) {
            long g = header.getLongVolatile(genAt);
            long stamp = header.getLongVolatile(stampAt);
            SectionView v = views.cached(section);
            if (v == null || v.generation != g) {
                v = views.view(section, g);
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
                    if ((stamp & 1) != 0 && off == v.undoEntry()) {
                        // changed in place right now (or cut short): the old value is the undo record's
                        result = reader.read(seg, SectionLayout.UNDO + UndoLayout.VALUE,
                                seg.getInt(SectionLayout.UNDO + UndoLayout.LENGTH));
                    } else if (verifyReads ? !v.checksumMatches(off, klen, vl) : !v.lengthsFit(off, klen, vl)) {
                        damaged = true;
                    } else {
                        result = reader.read(seg, valueAt, vl);
                    }
                }
                if (unchanged(stampAt, stamp, genAt, g)) {
                    if (damaged) {
                        reportDamage(v, off);
                    }
                    return result;
                }
            } catch (SegmentClosedException e) {
                store.checkOpen(); // a newer generation closed this view meanwhile: read again
            } catch (RuntimeException e) {
                // A reader that failed on bytes a writer was changing is run again; on current bytes its failure is the caller's.
                if (unchanged(stampAt, stamp, genAt, g)) {
                    throw e;
                }
            }
        }
    }

    /** @return whether a section's stamp and generation still hold what a read saw before it read (after its loads) */
    private boolean unchanged(long stampAt, long stamp, long genAt, long generation) {
        VarHandle.acquireFence();
        return header.getLongVolatile(stampAt) == stamp && header.getLongVolatile(genAt) == generation;
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

    /** Counts a read that met a damaged entry, and logs the first 16 of this process. */
    void reportDamage(SectionView v, long off) {
        if (damagedReads.getAndIncrement() < 16) {
            LOG.warn("map '{}' section {}: the entry at offset {} of segment '{}' is damaged (a length out of range, "
                    + "or a checksum that does not match); skipped (the section's next rebuild drops it)",
                    store.name, v.section, off, v.segment.name());
        }
    }

    /**
     * Runs a read of one section at one instant: reads the section's generation and stamp, runs
     * {@code body} on that generation's view without a lock, and returns its result if neither
     * changed meanwhile; otherwise (a writer was active, or a rebuild happened) runs it again.
     * {@code body} must only read and must tolerate seeing a half-written section (it is then
     * discarded).
     */
    <T> T readConsistently(int section, SectionRead<T> body) {
        store.checkOpen();
        long genAt = MapLayout.line(section) + LINE_GENERATION;
        long stampAt = MapLayout.line(section) + LINE_STAMP;
        while (true) {
            long g = header.getLongVolatile(genAt);
            long stamp = header.getLongVolatile(stampAt);
            SectionView v = views.view(section, g);
            if (v == null) {
                continue;
            }
            try {
                T result = body.apply(v, (stamp & 1) == 0 ? -1 : v.undoEntry());
                if (unchanged(stampAt, stamp, genAt, g)) {
                    return result;
                }
            } catch (SegmentClosedException e) {
                store.checkOpen(); // a newer generation closed this view meanwhile: read again
            }
        }
    }

    /** A read of one section's view, given where an in-place update is under way. */
    @FunctionalInterface
    interface SectionRead<T> {
        /**
         * @param v         the section's view
         * @param undoEntry offset of the entry whose value is to be taken from the undo record, or -1
         * @return what the read found
         */
        T apply(SectionView v, long undoEntry);
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
            if (!v.lengthsFit(off, k, 0)) {
                return true;
            }
        } else if (!v.checksumMatches(off, k, vl)) {
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
            if (off == undoEntry ? !v.lengthsFit(off, k, 0) : !v.checksumMatches(off, k, vl)) {
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

    /**
     * Brings the home slots, then the entries they name, of several keys toward the CPU caches:
     * one pass over all the keys per level, so the cache misses of a pass overlap instead of
     * following one another as a get after a get's would. A hint: reads only, takes no lock,
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
     * hashes (into {@code words}), the home slots, the entries the matching slots name.
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
}
