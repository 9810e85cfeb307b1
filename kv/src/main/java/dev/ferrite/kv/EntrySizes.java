package dev.ferrite.kv;

/**
 * The sizes of a section's live entries, counted by a rebuild to pick its new bucket size: the
 * smallest multiple of 16 that holds {@link #INLINE_SHARE} of them inline, or
 * {@link BucketLayout#MIN_SIZE} (every entry outside) when no bucket of up to
 * {@link BucketLayout#MAX_SIZE} bytes does. Not thread-safe: one per rebuild.
 */
final class EntrySizes {

    /** Sections with fewer live entries keep their bucket size: too few to measure. */
    static final int MIN_MEASURED = 16;
    /** The share of entries a measured bucket size holds inline, in eighths. */
    static final int INLINE_SHARE = 7;

    /** Classes of 16 bytes: class c holds entries whose inline size is in (16(c-1), 16c]; the last, those over MAX_SIZE. */
    private static final int CLASSES = BucketLayout.MAX_SIZE / 16 + 2;

    private final long[] count = new long[CLASSES];
    private final long[] heapBytes = new long[CLASSES];
    private long entries;

    /** Counts an entry of those lengths. */
    void add(int keyLength, int valueLength) {
        long inline = BucketLayout.KEY + (long) keyLength + valueLength;
        int c = (int) Math.min(CLASSES - 1, (inline + 15) >>> 4);
        count[c]++;
        heapBytes[c] += EntryLayout.size(keyLength, valueLength);
        entries++;
    }

    /**
     * @param current the section's bucket size now, kept if too few entries were counted
     * @return the bucket size for the counted entries
     */
    int bucketSize(int current) {
        if (entries < MIN_MEASURED) {
            return current;
        }
        long held = 0;
        for (int c = 1; c < CLASSES - 1; c++) {
            held += count[c];
            if (held * 8 >= entries * INLINE_SHARE) {
                return 16 * c;
            }
        }
        return BucketLayout.MIN_SIZE;
    }

    /** @return heap bytes of the counted entries that buckets of that size do not hold inline */
    long outsideBytes(int bucketSize) {
        long bytes = 0;
        for (int c = CLASSES - 1; c > 0 && 16 * c > bucketSize; c--) {
            bytes += heapBytes[c];
        }
        return bytes;
    }
}
