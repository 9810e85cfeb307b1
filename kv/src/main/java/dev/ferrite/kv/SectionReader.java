package dev.ferrite.kv;

import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.UncheckedAccess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static dev.ferrite.kv.MapLayout.LINE_GENERATION;

/**
 * The map's readers: a get (optimistic: a bucket's word read before and after its bytes, the
 * section's generation after them; the read runs again if either moved), the whole-bucket read
 * of scans and the scrub, the cursor scan, and the prefetch of a batch of keys. Readers take no
 * lock and write nothing to shared memory. Thread-safe.
 */
final class SectionReader {

    private static final Logger LOG = LoggerFactory.getLogger(SectionReader.class);

    /** Bytes of an outside entry {@link #prefetch} touches, a load per 64. */
    private static final long PREFETCH_ENTRY_BYTES = 192;

    private final MapStore store;
    private final Segment header;
    /** The header, for the get's generation load (the header was validated to hold every section's line). */
    private final AbstractSegment headerMemory;
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
        this.headerMemory = UncheckedAccess.of(header);
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
     * @return entries failing their checks (one being changed now: as the undo record holds it, lengths only)
     */
    long damagedIn(int section) {
        return readConsistently(section, SectionScanner::countDamaged);
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
            Object r;
            try {
                // The view cached is nearly always the current generation's: read it, then check.
                r = find(v, key, koff, klen, hash, reader);
            } catch (SegmentClosedException e) {
                store.checkOpen(); // a newer generation closed this view meanwhile: read again
                v = null;
                continue;
            } catch (RuntimeException e) {
                // The reader threw on settled bytes: the caller's, unless they were of a generation gone since.
                if (UncheckedAccess.getLongVolatile(headerMemory, genAt) == v.generation) {
                    throw e;
                }
                v = null;
                continue;
            }
            VarHandle.acquireFence(); // the probe's loads before the generation's
            if (UncheckedAccess.getLongVolatile(headerMemory, genAt) == v.generation) {
                if (r != RETRY) {
                    return r == ABSENT ? absent : (R) r;
                }
            } else {
                v = null; // rebuilt meanwhile: read the new generation
            }
        }
    }

    /** What {@link #find} returns when the key is not in the view. */
    private static final Object ABSENT = new Object();
    /** What {@link #find} returns when a writer changed what it read: read again. */
    private static final Object RETRY = new Object();

    /** The word's bits of a settled inline entry a key matches: {@link BucketLayout#INLINE_MATCH} and {@link BucketLayout#ODD}. */
    private static final long SETTLED_INLINE_MATCH = BucketLayout.INLINE_MATCH | BucketLayout.ODD;

    /**
     * Probes a view for a key from its home bucket to the end of the home's reach (the whole table
     * where it is unbounded) or the first empty bucket, and hands the value of the bucket holding it
     * to a reader: the bucket's word, the key compare and the value read, then the word again
     * (settled and unchanged: the bytes read were whole). A home word read before a writer raised
     * its reach stops the probe before an entry published after that read: the key was absent then.
     * Never reads outside the view: lengths are bounded by the bucket, or checked against the heap,
     * before they are used. The loop holds only what a get of an inline entry needs, so that a core
     * overlaps the cache misses of consecutive gets; the rest is in the methods it calls.
     *
     * @return the reader's result, {@link #ABSENT} or {@link #RETRY}
     */
    private Object find(SectionView v, byte[] key, int koff, int klen, long hash, ValueReader<?> reader) {
        // Loads without per-access checks: the handle is checked open once here, a bucket's offset is
        // bounded by the view's table, and inline bytes by the bucket (a key too long for it matches
        // no inline word: -1 has bits the masks clear; a value's length is checked by readInline).
        AbstractSegment mem = v.memory;
        UncheckedAccess.checkOpen(mem);
        long size = v.bucketSize;
        long tableEnd = v.heapStart; // the table ends where the heap starts (SectionView.open checked it)
        long tagBits = BucketLayout.tagBits(hash);
        long inlineBits = klen <= v.inlineKeyMax ? BucketLayout.matchBits(hash, BucketLayout.INLINE, klen) : -1;
        long b = v.bucket(v.home(hash));
        long w = UncheckedAccess.getLong(mem, b);
        int reach = v.reachOf(w);
        int last = reach == BucketLayout.REACH_UNBOUNDED ? v.buckets - 1 : reach;
        for (int n = 0; ; n++) {
            if (((w ^ tagBits) & BucketLayout.TAG_BITS) == 0) {
                if ((w & SETTLED_INLINE_MATCH) == inlineBits) {
                    VarHandle.acquireFence(); // the word before its entry's bytes
                    if (UncheckedAccess.mismatch(mem, b + BucketLayout.KEY, key, koff, klen) < 0) {
                        return readInline(v, b, w, klen, reader);
                    }
                    if (!v.wordStill(b, w)) {
                        return RETRY; // a key compared while a writer changed the bucket
                    }
                } else if ((w & BucketLayout.OUTSIDE_MATCH) == (tagBits | BucketLayout.OUTSIDE)
                        || (w & BucketLayout.INLINE_MATCH) == inlineBits) {
                    VarHandle.acquireFence(); // the word before its entry's bytes
                    Object r = readElsewhere(v, b, w, key, koff, klen, reader);
                    if (r != null) {
                        return r;
                    }
                }
            }
            // Only memory of a generation gone since empties a bucket within a reach: the generation check tells.
            if (BucketLayout.kind(w) == BucketLayout.EMPTY || n == last) {
                return ABSENT;
            }
            b += size;
            if (b == tableEnd) {
                b = SectionLayout.TABLE;
            }
            // Buckets passed over need no order: readSection orders the last word read before the generation's check.
            w = UncheckedAccess.getLong(mem, b);
        }
    }

    /**
     * Reads the value of an inline bucket whose key matched, its value's length checked against the
     * bucket (and its checksum, if reads verify) first; the key's length is the caller's, which
     * {@link SectionView#inlineKeyMax} bounds.
     *
     * @return the reader's result, {@link #ABSENT} (damaged) or {@link #RETRY}
     */
    private Object readInline(SectionView v, long b, long w, int klen, ValueReader<?> reader) {
        int vl = BucketLayout.valueLength(w);
        if (!v.inlineValueFits(klen, vl) || verifyReads
                && v.inlineChecksum(b, klen, vl) != v.segment.getInt(b + BucketLayout.CHECKSUM)) {
            return damaged(v, b, w);
        }
        return readValue(v, b, w, b + BucketLayout.KEY + klen, vl, reader);
    }

    /**
     * Reads a bucket whose word may hold the key elsewhere than inline: an outside entry, or a
     * bucket being changed (from the undo record).
     *
     * @return as {@link #readOutside}
     */
    private Object readElsewhere(SectionView v, long b, long w, byte[] key, int koff, int klen, ValueReader<?> reader) {
        return (w & BucketLayout.ODD) == 0
                ? readOutside(v, b, w, UncheckedAccess.getLong(v.memory, b + BucketLayout.ENTRY), key, koff, klen, reader)
                : readChanging(v, b, w, key, koff, klen, reader);
    }

    /**
     * Hands a value to a reader and checks the bucket's word afterwards; a reader that throws on
     * bytes a writer changed under it is run again, one that throws on settled bytes throws.
     */
    private static Object readValue(SectionView v, long b, long w, long valueAt, int vl, ValueReader<?> reader) {
        Object r;
        try {
            r = reader.read(v.segment, valueAt, vl);
        } catch (RuntimeException e) {
            if (v.wordStill(b, w)) {
                throw e;
            }
            return RETRY;
        }
        return v.wordStill(b, w) ? r : RETRY;
    }

    /**
     * Reads the outside entry a bucket names if it holds the key.
     *
     * @return the reader's result, {@link #ABSENT} (a damaged entry), {@link #RETRY}, or null if
     *         the entry holds another key
     */
    private Object readOutside(SectionView v, long b, long w, long off, byte[] key, int koff, int klen,
                               ValueReader<?> reader) {
        // Unchecked loads, as find's: entryFits puts the entry's header in the heap, and the key's
        // bytes are compared only once they are known to end inside it.
        AbstractSegment mem = v.memory;
        if (!v.entryFits(off)) {
            return v.wordStill(b, w) ? damaged(v, b, w) : RETRY;
        }
        if (UncheckedAccess.getInt(mem, off + EntryLayout.KEY_LENGTH) != klen || off + EntryLayout.KEY + klen > v.heapEnd
                || UncheckedAccess.mismatch(mem, off + EntryLayout.KEY, key, koff, klen) >= 0) {
            return v.wordStill(b, w) ? null : RETRY;
        }
        int vl = UncheckedAccess.getInt(mem, off + EntryLayout.VALUE_LENGTH);
        if (!v.lengthsFit(off, klen, vl) || verifyReads && (w & BucketLayout.ODD) == 0 && !v.checksumMatches(off, klen, vl)) {
            return v.wordStill(b, w) ? damaged(v, b, w) : RETRY;
        }
        return readValue(v, b, w, off + EntryLayout.KEY + klen, vl, reader);
    }

    /**
     * Reads a bucket a writer is changing (its word odd) from the undo record, which holds it as it
     * was: the value until the change ends, and after it if the writer died.
     *
     * @return as {@link #readOutside}
     */
    private Object readChanging(SectionView v, long b, long w, byte[] key, int koff, int klen, ValueReader<?> reader) {
        Segment seg = v.segment;
        SectionView.Saved e = v.saved(b, w);
        if (e == null) {
            return v.wordStill(b, w) ? damaged(v, b, w) : RETRY;
        }
        if (e.keyLength() != klen || seg.mismatch(e.keyAt(), key, koff, klen) >= 0) {
            return v.wordStill(b, w) ? null : RETRY;
        }
        return readValue(v, b, w, e.valueAt(), e.valueLength(), reader);
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
     * instant ({@link SectionScanner#entryAt}).
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

    /**
     * One step of a cursor scan of one section (see {@link SectionScanner#scan}), read as a get
     * reads: again if the section was rebuilt meanwhile.
     */
    SectionScanner.BucketRun scanBuckets(int section, long cursor, int max) {
        return readConsistently(section, v -> SectionScanner.scan(v, cursor, max));
    }

    /**
     * Brings the home buckets, then the outside entries they name, of several keys toward the CPU
     * caches: one pass over all the keys per level, so the cache misses of a pass overlap instead
     * of following one another as a get after a get's would. A hint: reads only, takes no lock,
     * skips keys it cannot place (absent, displaced, a section not yet opened here, a view closed
     * meanwhile) and never throws for them.
     *
     * @param keys keys' bytes; null elements are skipped
     */
    void prefetch(byte[][] keys, int from, int count) {
        KeyBatch batch = new KeyBatch();
        for (int i = from; i < from + count; i++) {
            if (keys[i] != null) {
                batch.add(keys[i], keys[i]);
                if (batch.full()) {
                    prefetch(batch);
                    batch.clear();
                }
            }
        }
        prefetch(batch);
    }

    /** As {@link #prefetch(byte[][], int, int)}, for the keys of a batch. */
    void prefetch(KeyBatch batch) {
        prefetched += prefetchLevels(batch);
    }

    /**
     * Two passes, each short per key so that a core keeps many of its loads in flight: the home
     * buckets (every cache line of each), then the outside entries the matching buckets name (their
     * offsets kept in the batch's words). A view closed since it was cached still names mapped
     * memory while the map is open (its chunks may hold other data now): warming it is harmless.
     */
    private long prefetchLevels(KeyBatch batch) {
        long[] hashes = batch.hashes;
        long[] words = batch.words;
        int n = batch.size;
        long touched = 0;
        for (int i = 0; i < n; i++) {
            long hash = hashes[i];
            SectionView v = views.cached(store.sectionOf(hash));
            words[i] = -1;
            // Checked open here, once: the loads below are bounded by the view (a bucket by its table,
            // an entry by entryFits and the heap's end) and run unchecked.
            if (v != null && UncheckedAccess.isOpen(v.memory)) {
                long b = v.bucket(v.home(hash));
                long w = UncheckedAccess.getLong(v.memory, b);
                for (long line = 64; line < v.bucketSize; line += 64) {
                    touched += UncheckedAccess.getLong(v.memory, b + line);
                }
                touched += w;
                if (BucketLayout.kind(w) == BucketLayout.OUTSIDE && BucketLayout.wordTag(w) == BucketLayout.tag(hash)) {
                    words[i] = UncheckedAccess.getLong(v.memory, b + BucketLayout.ENTRY);
                }
            }
        }
        for (int i = 0; i < n; i++) {
            long off = words[i];
            if (off >= 0) {
                SectionView v = views.cached(store.sectionOf(hashes[i]));
                if (v != null && v.entryFits(off)) {
                    long end = Math.min(off + PREFETCH_ENTRY_BYTES, v.heapEnd - Long.BYTES + 1);
                    for (long line = off; line < end; line += 64) {
                        touched += UncheckedAccess.getLong(v.memory, line);
                    }
                }
            }
        }
        return touched;
    }
}
