package dev.ferrite.kv;

import dev.ferrite.Segment;

/**
 * Writes and replays a section's undo record ({@link UndoLayout}): what a bucket, or an outside
 * entry's value, held before the lock holder changes it in place. For the holder of the
 * section's lock. Stateless.
 */
final class UndoRecord {

    private UndoRecord() {
    }

    /**
     * Saves the record of a change of the bucket at {@code bucketAt}, whose settled word is
     * {@code word}: mode, entry and checksum as {@link UndoLayout} says, and {@code len} bytes from
     * {@code from}; its check last. The caller then makes the bucket's word odd.
     */
    static void save(Segment seg, long bucketAt, long word, int mode, long entry, int checksum, long from, int len) {
        long u = SectionLayout.UNDO;
        seg.putInt(u + UndoLayout.LENGTH, len);
        seg.putLong(u + UndoLayout.BUCKET, bucketAt);
        seg.putLong(u + UndoLayout.WORD, word);
        seg.putLong(u + UndoLayout.ENTRY, entry);
        seg.putInt(u + UndoLayout.CHECKSUM, checksum);
        seg.putInt(u + UndoLayout.MODE, mode);
        if (len > 0) {
            seg.copyTo(from, seg, u + UndoLayout.SAVED, len);
        }
        seg.putInt(u + UndoLayout.CHECK, (int) seg.hash64(u + UndoLayout.LENGTH, UndoLayout.checkedLength(len)));
    }

    /**
     * Puts back what the record saved and settles the bucket's word (the saved word, version + 2).
     * The caller holds the lock and knows the record is the one of the bucket's change.
     */
    static void restore(SectionView v) {
        Segment seg = v.segment;
        long u = SectionLayout.UNDO;
        long bucketAt = seg.getLong(u + UndoLayout.BUCKET);
        long old = seg.getLong(u + UndoLayout.WORD);
        int len = seg.getInt(u + UndoLayout.LENGTH);
        long entry = seg.getLong(u + UndoLayout.ENTRY);
        switch (seg.getInt(u + UndoLayout.MODE)) {
            case UndoLayout.INLINE_BYTES -> seg.copyTo(u + UndoLayout.SAVED, seg, bucketAt + BucketLayout.CHECKSUM,
                    Math.min(len, v.bucketSize - BucketLayout.CHECKSUM));
            case UndoLayout.OUTSIDE_KEPT -> seg.putLong(bucketAt + BucketLayout.ENTRY, entry);
            default -> {
                int k = seg.getInt(entry + EntryLayout.KEY_LENGTH);
                seg.copyTo(u + UndoLayout.SAVED, seg, entry + EntryLayout.KEY + k, len);
                seg.putInt(entry + EntryLayout.CHECKSUM, seg.getInt(u + UndoLayout.CHECKSUM));
            }
        }
        seg.putLongVolatile(bucketAt, BucketLayout.nextVersion(old) | (old & ~BucketLayout.VERSION_MASK));
    }

    /**
     * For a new holder of a section's lock: if the record is that of a change cut short (the
     * bucket it names has the odd word after the one it saved, the record passes its check and
     * names places inside the section), puts the bucket back.
     *
     * @return whether a bucket was put back
     */
    static boolean settle(SectionView v) {
        Segment seg = v.segment;
        long u = SectionLayout.UNDO;
        long bucketAt = seg.getLong(u + UndoLayout.BUCKET);
        if (bucketAt < SectionLayout.TABLE || bucketAt >= v.heapStart
                || (bucketAt - SectionLayout.TABLE) % v.bucketSize != 0 || !v.undoChecks()) {
            return false;
        }
        long old = seg.getLong(u + UndoLayout.WORD);
        if (seg.getLongVolatile(bucketAt) != (old | BucketLayout.ODD) || (old & BucketLayout.ODD) != 0) {
            return false;
        }
        int mode = seg.getInt(u + UndoLayout.MODE);
        int len = seg.getInt(u + UndoLayout.LENGTH);
        long entry = seg.getLong(u + UndoLayout.ENTRY);
        boolean fits = switch (mode) {
            case UndoLayout.INLINE_BYTES -> len <= v.bucketSize - BucketLayout.CHECKSUM;
            case UndoLayout.OUTSIDE_KEPT -> v.entryFits(entry);
            case UndoLayout.OUTSIDE_VALUE -> v.entryFits(entry)
                    && v.lengthsFit(entry, seg.getInt(entry + EntryLayout.KEY_LENGTH), len)
                    && seg.getInt(entry + EntryLayout.VALUE_LENGTH) == len;
            default -> false;
        };
        if (!fits) {
            return false;
        }
        restore(v);
        return true;
    }
}
