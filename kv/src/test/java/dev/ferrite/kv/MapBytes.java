package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Segment;

import java.util.function.LongPredicate;

/**
 * Finds a key's bucket in a map's segments the way docs/FORMAT.md says ("Map, version 4"), for
 * tests that damage what they find.
 */
final class MapBytes {

    private MapBytes() {
    }

    /**
     * Where a key's entry lies in its section's current segment.
     *
     * @param segment     the section segment (the caller closes it)
     * @param bucket      offset of the key's bucket
     * @param word        the bucket's word
     * @param entry       offset of the outside entry, or -1 for an inline one
     * @param valueAt     offset of the value's first byte
     * @param valueLength the value's length
     */
    record Located(Segment segment, long bucket, long word, long entry, long valueAt, int valueLength) {
        boolean inline() {
            return entry < 0;
        }

        /** @return offset of the entry's checksum (the bucket's, or the outside entry's) */
        long checksumAt() {
            return inline() ? bucket + BucketLayout.CHECKSUM : entry + EntryLayout.CHECKSUM;
        }
    }

    /** @return the current segment of a key's section, opened */
    static Segment sectionOf(ChunkPool pool, String name, long hash) {
        try (Segment h = pool.open(name).orElseThrow()) {
            int sections = h.getInt(MapLayout.SECTIONS);
            int section = sections == 1 ? 0 : (int) (hash >>> (64 - Integer.numberOfTrailingZeros(sections)));
            long generation = h.getLong(MapLayout.line(section) + MapLayout.LINE_GENERATION);
            return pool.open(MapLayout.sectionName(name, section, generation)).orElseThrow();
        }
    }

    /** @return where a key's entry is; an {@code AssertionError} if it is not where the format says */
    static Located locate(ChunkPool pool, String name, byte[] key) {
        long hash = MapStore.hash(key, 0, key.length);
        Segment s = sectionOf(pool, name, hash);
        int buckets = s.getInt(SectionLayout.BUCKETS);
        int size = s.getInt(SectionLayout.BUCKET_SIZE);
        int home = SectionLayout.home(hash, buckets);
        int reach = BucketLayout.reach(s.getLong(SectionLayout.TABLE + (long) home * size));
        int probe = reach == BucketLayout.REACH_UNBOUNDED ? buckets : Math.min(buckets, reach + 1);
        for (int n = 0, i = home; n < probe; n++, i = (i + 1) % buckets) {
            long b = SectionLayout.TABLE + (long) i * size;
            long w = s.getLong(b);
            int kind = BucketLayout.kind(w);
            if (kind == BucketLayout.EMPTY) {
                break;
            }
            if (BucketLayout.wordTag(w) != BucketLayout.tag(hash)) {
                continue;
            }
            if (kind == BucketLayout.INLINE && BucketLayout.keyLength(w) == key.length
                    && s.mismatch(b + BucketLayout.KEY, key, 0, key.length) < 0) {
                return new Located(s, b, w, -1, b + BucketLayout.KEY + key.length, BucketLayout.valueLength(w));
            }
            if (kind == BucketLayout.OUTSIDE) {
                long off = s.getLong(b + BucketLayout.ENTRY);
                if (s.getInt(off + EntryLayout.KEY_LENGTH) == key.length
                        && s.mismatch(off + EntryLayout.KEY, key, 0, key.length) < 0) {
                    return new Located(s, b, w, off, off + EntryLayout.KEY + key.length,
                            s.getInt(off + EntryLayout.VALUE_LENGTH));
                }
            }
        }
        s.close();
        throw new AssertionError("the key's entry is not where FORMAT.md says it is");
    }

    /** Runs {@code action} on the offset of every bucket of every section whose word passes {@code words}. */
    static void forEachBucket(ChunkPool pool, String name, LongPredicate words, BucketAction action) {
        try (Segment h = pool.open(name).orElseThrow()) {
            int sections = h.getInt(MapLayout.SECTIONS);
            for (int section = 0; section < sections; section++) {
                long generation = h.getLong(MapLayout.line(section) + MapLayout.LINE_GENERATION);
                try (Segment s = pool.open(MapLayout.sectionName(name, section, generation)).orElseThrow()) {
                    int buckets = s.getInt(SectionLayout.BUCKETS);
                    int size = s.getInt(SectionLayout.BUCKET_SIZE);
                    for (int i = 0; i < buckets; i++) {
                        long b = SectionLayout.TABLE + (long) i * size;
                        if (words.test(s.getLong(b))) {
                            action.accept(s, i, b, size);
                        }
                    }
                }
            }
        }
    }

    /** What {@link #forEachBucket} runs. */
    interface BucketAction {
        void accept(Segment section, int index, long bucket, int bucketSize);
    }
}
