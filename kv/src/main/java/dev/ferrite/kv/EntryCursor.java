package dev.ferrite.kv;

import dev.ferrite.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;

import static dev.ferrite.kv.MapLayout.LINE_COUNT;

/**
 * A key's place in its section, and the writes to it, for the holder of the section's lock. An
 * entry that fits its bucket lives there; a longer one in the heap (a hole of its size from a
 * free list, else the top; a rebuild first if neither has room), its bucket holding its offset.
 * A new key's bucket is written, then published by one ordered store of its word. A bucket that
 * holds an entry changes only through the undo record: saved, the word made odd, the bytes
 * changed, the word settled with its version + 2. Not thread-safe: made per write, used by the
 * lock holder only.
 */
final class EntryCursor {

    private static final Logger LOG = LoggerFactory.getLogger(EntryCursor.class);

    private final MapStore store;
    private final Segment header;
    private final int section;
    private final byte[] key;
    private final int koff;
    private final int klen;
    private final long hash;
    private SectionView v;
    private int home;           // the key's home bucket (an index)
    private long bucketAt = -1; // the key's bucket, or where it would go (-1: no room)
    private long word;          // that bucket's word
    private boolean found;      // whether the bucket holds the key (its entry intact or not): counted
    private boolean intact;     // whether that entry passes its checks
    private boolean intoEmpty;  // whether an insertion would fill an empty bucket (not a tombstone)
    private long entry = -1;    // an outside entry's heap offset, else -1
    private int valueLength;

    EntryCursor(MapStore store, int section, byte[] key, int koff, int klen, long hash) {
        this.store = store;
        this.header = store.header;
        this.section = section;
        this.key = key;
        this.koff = koff;
        this.klen = klen;
        this.hash = hash;
    }

    void locate() {
        v = store.views.current(section);
        Segment seg = v.segment;
        long tag = BucketLayout.tag(hash);
        int idx = v.home(hash);
        home = idx;
        long tomb = -1;
        found = false;
        intact = false;
        entry = -1;
        bucketAt = -1;
        int reach = Integer.MAX_VALUE; // the last bucket, counted from the home, that may hold the key
        for (int n = 0; n < v.buckets; n++) {
            long b = v.bucket(idx);
            long w = seg.getLong(b);
            if ((w & BucketLayout.ODD) != 0) {
                w = settle(b, w);
            }
            if (n == 0 && v.reaches && BucketLayout.reach(w) != BucketLayout.REACH_UNBOUNDED) {
                reach = BucketLayout.reach(w);
            }
            int kind = BucketLayout.kind(w);
            if (kind == BucketLayout.EMPTY) {
                bucketAt = tomb >= 0 ? tomb : b;
                word = seg.getLong(bucketAt);
                intoEmpty = tomb < 0;
                return;
            }
            if (kind == BucketLayout.TOMBSTONE) {
                if (tomb < 0) {
                    tomb = b;
                }
            } else if (BucketLayout.wordTag(w) == tag && holdsKey(b, w)) {
                if (n > reach) {
                    raiseDamagedReach(b);
                }
                bucketAt = b;
                word = w;
                found = true;
                intoEmpty = false;
                boolean check = store.reader.verifiesReads();
                if (kind == BucketLayout.INLINE) {
                    valueLength = BucketLayout.valueLength(w);
                    intact = v.inlineFits(w) && (!check || v.intact(b, w));
                } else {
                    entry = seg.getLong(b + BucketLayout.ENTRY);
                    valueLength = seg.getInt(entry + EntryLayout.VALUE_LENGTH);
                    intact = check ? v.checksumMatches(entry, klen, valueLength) : v.lengthsFit(entry, klen, valueLength);
                }
                if (!intact) {
                    store.reader.reportDamage(v, b); // overwritten or removed like a live entry
                }
                return;
            }
            if (n >= reach && tomb >= 0) {
                break; // past the key's place: it is absent, and a tombstone awaits it
            }
            idx = v.nextBucket(idx);
        }
        bucketAt = tomb;
        word = tomb >= 0 ? seg.getLong(tomb) : 0;
        intoEmpty = false;
    }

    /**
     * The key's entry lies past its home bucket's reach, which only damage lowers (a writer raises a
     * reach before it publishes an entry past it): raised again, so that gets find the entry, and
     * logged.
     */
    private void raiseDamagedReach(long b) {
        SectionView.reachTo(v.segment, v.buckets, v.bucketSize, home, b);
        LOG.warn("map '{}' section {}: an entry lay past its home bucket's reach (damage); the reach is raised",
                store.name, section);
    }

    /** @return whether a bucket holding an entry holds this key (an outside entry's place checked first) */
    private boolean holdsKey(long b, long w) {
        Segment seg = v.segment;
        if (BucketLayout.kind(w) == BucketLayout.INLINE) {
            return BucketLayout.keyLength(w) == klen && BucketLayout.fitsInline(v.bucketSize, klen, 0)
                    && seg.mismatch(b + BucketLayout.KEY, key, koff, klen) < 0;
        }
        long off = seg.getLong(b + BucketLayout.ENTRY);
        return v.entryFits(off) && seg.getInt(off + EntryLayout.KEY_LENGTH) == klen
                && off + EntryLayout.KEY + klen <= v.heapEnd
                && seg.mismatch(off + EntryLayout.KEY, key, koff, klen) < 0;
    }

    /**
     * A bucket left odd: a change cut short by a writer that died (or damage). Put back from the
     * undo record if that is its record; else the bucket is dropped (a tombstone).
     *
     * @return the bucket's word now
     */
    private long settle(long b, long w) {
        Segment seg = v.segment;
        if (UndoRecord.settle(v) && seg.getLong(b) != w) {
            LOG.warn("map '{}' section {}: a change of the bucket at offset {} was cut short; put back from the undo record",
                    store.name, section, b);
            return seg.getLong(b);
        }
        LOG.warn("map '{}' section {}: the bucket at offset {} is marked as being changed and the undo record is not its "
                + "record: dropped as damaged", store.name, section, b);
        long t = BucketLayout.tombstoneAfter(w);
        seg.putLongVolatile(b, t);
        if (BucketLayout.kind(w) >= BucketLayout.INLINE) {
            addCount(-1); // an entry, counted when it was written
        }
        return t;
    }

    /** @return whether the key has an intact entry */
    boolean present() {
        return found && intact;
    }

    /** @return the segment holding the entry (valid until the write returns) */
    Segment segment() {
        return v.segment;
    }

    /** @return offset of the present value's first byte */
    long valueOffset() {
        return entry >= 0 ? entry + EntryLayout.KEY + klen : bucketAt + BucketLayout.KEY + klen;
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
        store.checkValueLength(len);
        makeRoom(BucketLayout.fitsInline(v.bucketSize, klen, len) ? 0 : EntryLayout.size(klen, len));
        if (BucketLayout.fitsInline(v.bucketSize, klen, len)) { // a rebuild may have changed the bucket size
            Segment seg = v.segment;
            if (found) {
                beginChange();
            }
            seg.copyFrom(value, off, bucketAt + BucketLayout.KEY + klen, len);
            settleBucket(BucketLayout.INLINE, len, -1);
        } else {
            long at = append(EntryLayout.size(klen, len));
            Segment seg = v.segment;
            seg.putInt(at + EntryLayout.VALUE_LENGTH, len);
            seg.copyFrom(value, off, at + EntryLayout.KEY + klen, len);
            checksum(at, len);
            if (found) {
                beginChange();
            }
            settleBucket(BucketLayout.OUTSIDE, len, at);
        }
    }

    /**
     * Lets an updater change the present value where it lies: an inline value, or an outside one
     * of at most {@link UndoLayout#MAX_VALUE} bytes (saved in the undo record, the bucket's word odd
     * meanwhile: readers take the value from the record); if the updater throws, the old bytes are
     * put back. A longer outside value is copied to fresh space, changed there and published.
     */
    void update(ValueUpdater updater) {
        if (!present()) {
            throw new IllegalStateException("no entry to update");
        }
        int len = valueLength;
        if (entry >= 0 && len > UndoLayout.MAX_VALUE) {
            updateCopy(updater);
            return;
        }
        Segment seg = v.segment;
        long valueAt = valueOffset();
        if (entry >= 0) {
            UndoRecord.save(seg, bucketAt, word, UndoLayout.OUTSIDE_VALUE, entry, seg.getInt(entry + EntryLayout.CHECKSUM),
                    valueAt, len);
        } else {
            UndoRecord.save(seg, bucketAt, word, UndoLayout.INLINE_BYTES, 0, 0, bucketAt + BucketLayout.CHECKSUM, 4 + klen + len);
        }
        VarHandle.storeStoreFence();
        seg.putLongVolatile(bucketAt, word | BucketLayout.ODD);
        boolean done = false;
        try {
            updater.update(seg, valueAt, len);
            done = true;
        } finally {
            if (!done) {
                UndoRecord.restore(v);
                word = seg.getLong(bucketAt);
            }
        }
        if (entry >= 0) {
            checksum(entry, len);
            word = BucketLayout.next(word, hash, BucketLayout.OUTSIDE, 0, 0);
        } else {
            inlineChecksum(len);
            word = BucketLayout.next(word, hash, BucketLayout.INLINE, klen, len);
        }
        seg.putLongOrdered(bucketAt, word);
    }

    /** The update of an outside value too long for the undo record: a changed copy, published. */
    private void updateCopy(ValueUpdater updater) {
        int len = valueLength;
        long at = append(EntryLayout.size(klen, len));
        // append may have rebuilt the section: the entry is found again there.
        Segment seg = v.segment;
        seg.putInt(at + EntryLayout.VALUE_LENGTH, len);
        seg.copyTo(valueOffset(), seg, at + EntryLayout.KEY + klen, len);
        updater.update(seg, at + EntryLayout.KEY + klen, len);
        checksum(at, len);
        beginChange();
        settleBucket(BucketLayout.OUTSIDE, len, at);
    }

    /** Removes the key's entry if it has one (or a damaged one). */
    void remove() {
        if (!found) {
            return;
        }
        Segment seg = v.segment;
        word = BucketLayout.tombstoneAfter(word);
        seg.putLongVolatile(bucketAt, word);
        freeOld();
        addCount(-1);
        found = false;
        intact = false;
        intoEmpty = false;
    }

    /**
     * Rebuilds the section first if a new key has no bucket, or would fill an empty one past the
     * table's load limit, then finds the key's place again.
     */
    private void makeRoom(long heapBytes) {
        if (found) {
            return;
        }
        boolean full = bucketAt < 0
                || intoEmpty && (v.segment.getInt(SectionLayout.USED) + 1L) * MapLayout.LOAD_SCALE > (long) v.buckets * store.loadLimit;
        if (full) {
            store.rebuilder.rebuild(section, heapBytes, false);
            locate();
            if (bucketAt < 0) {
                throw new IllegalStateException("map '" + store.name + "' section " + section + ": no bucket after a rebuild");
            }
        }
    }

    /**
     * For a bucket holding the key: saves it in the undo record (an outside entry: its offset,
     * which stays as it is), then makes its word odd.
     */
    private void beginChange() {
        Segment seg = v.segment;
        if (entry >= 0) {
            UndoRecord.save(seg, bucketAt, word, UndoLayout.OUTSIDE_KEPT, entry, 0, 0, 0);
        } else {
            int saved = intact ? 4 + klen + valueLength : v.bucketSize - BucketLayout.CHECKSUM;
            UndoRecord.save(seg, bucketAt, word, UndoLayout.INLINE_BYTES, 0, 0, bucketAt + BucketLayout.CHECKSUM, saved);
        }
        VarHandle.storeStoreFence();
        seg.putLongVolatile(bucketAt, word | BucketLayout.ODD);
        VarHandle.storeStoreFence();
    }

    /**
     * Finishes the bucket: an inline entry's key (unless it held this key inline already) and
     * checksum (its value written already), or an outside entry's offset; then its settled word
     * (ordered: the publication); then the count, and the old outside entry's space freed.
     */
    private void settleBucket(int kind, int len, long at) {
        Segment seg = v.segment;
        if (kind == BucketLayout.INLINE) {
            if (!found || entry >= 0) {
                // A bucket that held this key inline holds its bytes already (holdsKey compared them).
                seg.copyFrom(key, koff, bucketAt + BucketLayout.KEY, klen);
            }
            inlineChecksum(len);
        } else {
            seg.putLong(bucketAt + BucketLayout.ENTRY, at);
        }
        if (intoEmpty) {
            seg.putInt(SectionLayout.USED, seg.getInt(SectionLayout.USED) + 1);
        }
        if (!found && v.reaches) {
            SectionView.reachTo(seg, v.buckets, v.bucketSize, home, bucketAt);
        }
        word = BucketLayout.next(word, hash, kind, kind == BucketLayout.INLINE ? klen : 0,
                kind == BucketLayout.INLINE ? len : 0);
        seg.putLongOrdered(bucketAt, word);
        if (found) {
            freeOld();
        } else {
            addCount(1);
        }
        found = true;
        intact = true;
        intoEmpty = false;
        entry = at;
        valueLength = len;
    }

    /** Puts an outside entry the key's bucket no longer names on its free list. */
    private void freeOld() {
        if (entry < 0) {
            return;
        }
        Segment seg = v.segment;
        long size = intact ? EntryLayout.size(klen, valueLength) : 0;
        if (size > 0) {
            VarHandle.storeStoreFence(); // the bucket's new word before the hole's bytes
            seg.putLong(SectionLayout.GARBAGE, seg.getLong(SectionLayout.GARBAGE) + size);
            HeapSpace.free(v, entry, size);
        }
        entry = -1;
    }

    private void inlineChecksum(int len) {
        v.segment.putInt(bucketAt + BucketLayout.CHECKSUM, v.inlineChecksum(bucketAt, klen, len));
    }

    private void checksum(long at, int len) {
        SectionView.sealEntry(v.segment, at, klen, len);
    }

    /**
     * Reserves heap space for a new outside entry of this key, rebuilding the section first if the
     * heap is too full, and writes the key and its length there.
     *
     * @return the new entry's offset
     */
    private long append(long size) {
        makeRoom(size);
        long hole = HeapSpace.take(v, size);
        long at;
        if (hole > 0) {
            at = hole;
        } else {
            long top = v.top();
            if (top < 0 || top + size > v.heapEnd) {
                if (top < 0) {
                    LOG.warn("map '{}' section {}: HEAP_TOP {} fails its check; rebuilt", store.name, section,
                            v.segment.getLong(SectionLayout.HEAP_TOP));
                }
                store.rebuilder.rebuild(section, size, false);
                locate();
                top = v.top();
                if (bucketAt < 0 || top < 0 || top + size > v.heapEnd) {
                    throw new IllegalStateException("map '" + store.name + "' section " + section
                            + ": no room after a rebuild (top " + top + ", size " + size + ")");
                }
            }
            at = top;
            SectionView.setTop(v.segment, top + size);
        }
        Segment seg = v.segment;
        seg.putInt(at + EntryLayout.KEY_LENGTH, klen);
        seg.putInt(at + EntryLayout.RESERVED, 0);
        seg.copyFrom(key, koff, at + EntryLayout.KEY, klen);
        return at;
    }

    private void addCount(long delta) {
        long at = MapLayout.line(section) + LINE_COUNT;
        header.putLongVolatile(at, header.getLong(at) + delta);
    }
}
