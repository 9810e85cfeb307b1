package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.Segment;
import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.UncheckedAccess;

import java.lang.invoke.VarHandle;
import java.util.zip.CRC32C;

import static dev.ferrite.kv.SectionLayout.BUCKETS;
import static dev.ferrite.kv.SectionLayout.BUCKET_SIZE;
import static dev.ferrite.kv.SectionLayout.CRC;
import static dev.ferrite.kv.SectionLayout.GARBAGE;
import static dev.ferrite.kv.SectionLayout.GENERATION;
import static dev.ferrite.kv.SectionLayout.HEAP_END;
import static dev.ferrite.kv.SectionLayout.HEAP_START;
import static dev.ferrite.kv.SectionLayout.HEAP_TOP;
import static dev.ferrite.kv.SectionLayout.MAGIC;
import static dev.ferrite.kv.SectionLayout.MAGIC_VALUE;
import static dev.ferrite.kv.SectionLayout.MAX_BUCKETS;
import static dev.ferrite.kv.SectionLayout.MIN_BUCKETS;
import static dev.ferrite.kv.SectionLayout.SECTION;
import static dev.ferrite.kv.SectionLayout.TABLE;
import static dev.ferrite.kv.SectionLayout.USED;

/**
 * One generation of a section's data segment as this process sees it: the handle and the fields
 * that never change in that generation, validated once when it is opened, and the checks of what
 * the segment holds (a bucket's entry, a heap entry's place, lengths and checksum; the undo
 * record; the heap top), none of which reads outside the segment. Immutable; the handle is closed
 * when a newer generation replaces it in the map's cache (a reader still using it then gets a
 * {@code SegmentClosedException} and retries). Also writes a new segment's header.
 */
final class SectionView {

    final Segment segment;
    /** The same handle, for the get's loads whose offsets this view's fields bound ({@link UncheckedAccess}). */
    final AbstractSegment memory;
    final int section;
    final long generation;
    final int buckets;
    final int bucketSize;
    final long heapStart;
    final long heapEnd;
    /** The map's limits, which bound every length read from the segment. */
    final int maxKey;
    final int maxValue;
    /** Whether the buckets keep reaches ({@link BucketLayout#reach}); else a probe goes on to an empty bucket. */
    final boolean reaches;
    /** Bits a home word is read with: none, or every reach bit where the buckets keep no reach (unbounded). */
    private final long reachFill;
    /** The longest key a bucket holds inline within the map's limit: a longer one matches no inline word. */
    final int inlineKeyMax;

    private SectionView(Segment segment, int section, long generation, int buckets, int bucketSize, long heapStart,
                        long heapEnd, int maxKey, int maxValue, boolean reaches) {
        this.segment = segment;
        this.reaches = reaches;
        this.reachFill = reaches ? 0 : BucketLayout.REACH_BITS;
        this.memory = UncheckedAccess.of(segment);
        this.maxKey = maxKey;
        this.maxValue = maxValue;
        this.section = section;
        this.generation = generation;
        this.buckets = buckets;
        this.bucketSize = bucketSize;
        this.heapStart = heapStart;
        this.heapEnd = heapEnd;
        this.inlineKeyMax = Math.min(maxKey, bucketSize - BucketLayout.KEY);
    }

    /**
     * Validates a section segment's header and makes its view.
     *
     * @param segment    the data segment, opened by the name of that section and generation
     * @param section    the section it must belong to
     * @param generation the generation it must have
     * @param maxKey     the map's longest key
     * @param maxValue   the map's longest value
     * @param reaches    whether the map's buckets keep reaches (version 4)
     * @return the view
     * @throws CorruptFileException naming the field if the header is not one this map wrote
     */
    static SectionView open(Segment segment, int section, long generation, int maxKey, int maxValue, boolean reaches) {
        String where = "map section " + section + " generation " + generation + " (segment '" + segment.name() + "')";
        long least = SectionLayout.bucketAt(MIN_BUCKETS, BucketLayout.MIN_SIZE);
        if (segment.size() < least) {
            throw new CorruptFileException(where + ": size " + segment.size() + " is below the least, " + least);
        }
        long magic = segment.getLong(MAGIC);
        if (magic != MAGIC_VALUE) {
            throw new CorruptFileException(where + ": magic 0x" + Long.toHexString(magic) + " is not 0x"
                    + Long.toHexString(MAGIC_VALUE));
        }
        int crc = segment.getInt(CRC);
        int expected = crc(segment);
        if (crc != expected) {
            throw new CorruptFileException(where + ": header CRC 0x" + Integer.toHexString(crc)
                    + " does not match its bytes (0x" + Integer.toHexString(expected) + ")");
        }
        long g = segment.getLong(GENERATION);
        int s = segment.getInt(SECTION);
        int buckets = segment.getInt(BUCKETS);
        int bucketSize = segment.getInt(BUCKET_SIZE);
        long heapStart = segment.getLong(HEAP_START);
        long heapEnd = segment.getLong(HEAP_END);
        if (g != generation || s != section) {
            throw new CorruptFileException(where + ": its header says section " + s + " generation " + g);
        }
        if (buckets < MIN_BUCKETS || buckets > MAX_BUCKETS) {
            throw new CorruptFileException(where + ": bucket count " + buckets + " is not in ["
                    + MIN_BUCKETS + ", " + MAX_BUCKETS + "]");
        }
        if (!BucketLayout.validSize(bucketSize)) {
            throw new CorruptFileException(where + ": bucket size " + bucketSize + " is not a multiple of 16 in ["
                    + BucketLayout.MIN_SIZE + ", " + BucketLayout.MAX_SIZE + "]");
        }
        if (heapStart != SectionLayout.bucketAt(buckets, bucketSize) || heapEnd < heapStart || heapEnd > segment.size()
                || heapEnd > SectionLayout.MAX_OFFSET) {
            throw new CorruptFileException(where + ": heap [" + heapStart + ", " + heapEnd + ") is not after the table of "
                    + buckets + " buckets of " + bucketSize + " bytes and within the segment's " + segment.size() + " bytes");
        }
        return new SectionView(segment, section, generation, buckets, bucketSize, heapStart, heapEnd, maxKey, maxValue, reaches);
    }

    /** @return CRC-32C of a section header's bytes [8, 48): the fixed fields after the magic */
    static int crc(Segment segment) {
        byte[] b = new byte[CRC - GENERATION];
        segment.copyTo(GENERATION, b, 0, b.length);
        CRC32C c = new CRC32C();
        c.update(b);
        return (int) c.getValue();
    }

    /** @return offset of a bucket, {@code index} in [0, buckets) */
    long bucket(int index) {
        return SectionLayout.bucketAt(index, bucketSize);
    }

    /** @return the home bucket of a key hash */
    int home(long hash) {
        return SectionLayout.home(hash, buckets);
    }

    /**
     * @return how many buckets after a home a probe from it reads, from the home's word:
     *         {@link BucketLayout#REACH_UNBOUNDED} where the reach is unbounded or the buckets keep none.
     *         A bounded reach is below {@link SectionLayout#MIN_BUCKETS}, whatever the word holds: a
     *         probe within it never comes round to its home again.
     */
    int reachOf(long homeWord) {
        return BucketLayout.reach(homeWord | reachFill);
    }

    /**
     * Raises a home bucket's reach to cover the bucket at {@code b} (a volatile store of the home's
     * word, if that changes it): before the entry placed there is published, so a reader that reads
     * the home's word after the raise probes far enough. The home holds an entry or a tombstone:
     * linear probing filled every bucket between them.
     *
     * @param home an index; {@code b} the offset of a bucket of the same table
     */
    static void reachTo(Segment segment, int buckets, int bucketSize, int home, long b) {
        int distance = SectionLayout.distance(home, (int) ((b - TABLE) / bucketSize), buckets);
        if (distance == 0) {
            return;
        }
        long homeAt = SectionLayout.bucketAt(home, bucketSize);
        long w = segment.getLong(homeAt);
        long raised = BucketLayout.reaching(w, distance);
        if (raised != w) {
            segment.putLongVolatile(homeAt, raised);
        }
    }

    /** @return the bucket after {@code index}, wrapping at the table's end */
    int nextBucket(int index) {
        int n = index + 1;
        return n == buckets ? 0 : n;
    }

    /**
     * @return whether the word of the bucket at {@code bucketAt} is still {@code word}, read after
     *     the loads before it (so the bytes they read were the entry that word announced)
     */
    boolean wordStill(long bucketAt, long word) {
        VarHandle.acquireFence();
        return UncheckedAccess.getLongVolatile(memory, bucketAt) == word;
    }

    /** @return whether a value of that length fits the map's limit and a bucket inline beside a key of {@code klen} bytes */
    boolean inlineValueFits(int klen, int vl) {
        return vl <= maxValue && BucketLayout.fitsInline(bucketSize, klen, vl);
    }

    /** @return whether an inline word's lengths are within the map's limits and its bucket */
    boolean inlineFits(long word) {
        int k = BucketLayout.keyLength(word);
        return k <= maxKey && inlineValueFits(k, BucketLayout.valueLength(word));
    }

    /** @return the checksum of the inline entry's bytes, as they are, in the bucket at {@code bucketAt} */
    int inlineChecksum(long bucketAt, int k, int vl) {
        return inlineChecksum(segment, bucketAt, k, vl);
    }

    /** @return the checksum of the inline entry's bytes in the bucket at {@code bucketAt} of a segment */
    static int inlineChecksum(Segment segment, long bucketAt, int k, int vl) {
        return BucketLayout.checksum(segment.hash64(bucketAt + BucketLayout.KEY, (long) k + vl), k, vl);
    }

    /**
     * Finishes an outside entry whose lengths, zero word, key and value are written: zeroes its
     * padding to 8 bytes and writes its checksum.
     */
    static void sealEntry(Segment segment, long at, int k, int vl) {
        long end = at + EntryLayout.KEY + k + vl;
        long padded = at + EntryLayout.size(k, vl);
        if (end < padded) {
            segment.fill(end, padded - end, (byte) 0);
        }
        segment.putInt(at + EntryLayout.CHECKSUM,
                (int) segment.hash64(at + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(k, vl)));
    }

    /**
     * @return whether the entry a settled bucket word holds is whole: an inline one within its
     *         bucket with a matching checksum, an outside one in the heap with matching checksum
     *         (empty and tombstone words: false)
     */
    boolean intact(long bucketAt, long word) {
        switch (BucketLayout.kind(word)) {
            case BucketLayout.INLINE:
                return inlineFits(word) && inlineChecksum(bucketAt, BucketLayout.keyLength(word),
                        BucketLayout.valueLength(word)) == segment.getInt(bucketAt + BucketLayout.CHECKSUM);
            case BucketLayout.OUTSIDE:
                long off = segment.getLong(bucketAt + BucketLayout.ENTRY);
                return entryFits(off) && checksumMatches(off, segment.getInt(off + EntryLayout.KEY_LENGTH),
                        segment.getInt(off + EntryLayout.VALUE_LENGTH));
            default:
                return false;
        }
    }

    /** @return whether a heap entry could start at an offset (its header fits before the heap's end) */
    boolean entryFits(long off) {
        return off >= heapStart && off <= heapEnd - EntryLayout.HEADER && (off & 7) == 0;
    }

    /** @return whether a heap entry's key and value lengths are within the map's limits and the entry within the heap */
    boolean lengthsFit(long off, int k, int vl) {
        return k >= 0 && k <= maxKey && vl >= 0 && vl <= maxValue
                && off + EntryLayout.KEY + (long) k + vl <= heapEnd;
    }

    /** @return whether a heap entry's lengths are in range and its checksum matches its bytes */
    boolean checksumMatches(long off, int k, int vl) {
        if (!lengthsFit(off, k, vl)) {
            return false;
        }
        int sum = (int) segment.hash64(off + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(k, vl));
        return sum == segment.getInt(off + EntryLayout.CHECKSUM) && segment.getInt(off + EntryLayout.RESERVED) == 0;
    }

    /**
     * @return whether the undo record is the one of the change a bucket's odd word announces: it
     *         names that bucket, the word it saved is the one before {@code oddWord}, and its length
     *         fits (its check is not computed: see {@link #undoChecks})
     */
    boolean undoFor(long bucketAt, long oddWord) {
        long u = SectionLayout.UNDO;
        int len = segment.getInt(u + UndoLayout.LENGTH);
        return segment.getLong(u + UndoLayout.BUCKET) == bucketAt
                && (segment.getLong(u + UndoLayout.WORD) | BucketLayout.ODD) == oddWord
                && len >= 0 && len <= UndoLayout.MAX_SAVED;
    }

    /** Where the entry a bucket held before the change its odd word announces lies: key and value bytes. */
    record Saved(long keyAt, int keyLength, long valueAt, int valueLength) {
    }

    /**
     * Reads the undo record of a bucket being changed: the entry as it was, its inline bytes in the
     * record (MODE 0), the outside entry it still names (MODE 1), or that entry's key with its old
     * value in the record (MODE 2). Every length is checked against the record, the bucket or the
     * heap; the record's check is not computed (see {@link #undoChecks}).
     *
     * @param bucketAt offset of the bucket
     * @param oddWord  its word, odd
     * @return where the saved entry lies, or null if the record is not that change's or a length is out of range
     */
    Saved saved(long bucketAt, long oddWord) {
        if (!undoFor(bucketAt, oddWord)) {
            return null;
        }
        long u = SectionLayout.UNDO;
        long old = segment.getLong(u + UndoLayout.WORD);
        int mode = segment.getInt(u + UndoLayout.MODE);
        if (mode == UndoLayout.INLINE_BYTES) {
            if (BucketLayout.kind(old) != BucketLayout.INLINE || !inlineFits(old)) {
                return null;
            }
            int k = BucketLayout.keyLength(old);
            long keyAt = u + UndoLayout.SAVED + 4;
            return new Saved(keyAt, k, keyAt + k, BucketLayout.valueLength(old));
        }
        if (BucketLayout.kind(old) != BucketLayout.OUTSIDE
                || mode != UndoLayout.OUTSIDE_KEPT && mode != UndoLayout.OUTSIDE_VALUE) {
            return null;
        }
        long off = segment.getLong(u + UndoLayout.ENTRY);
        if (!entryFits(off)) {
            return null;
        }
        int k = segment.getInt(off + EntryLayout.KEY_LENGTH);
        boolean kept = mode == UndoLayout.OUTSIDE_KEPT;
        int vl = segment.getInt(kept ? off + EntryLayout.VALUE_LENGTH : u + UndoLayout.LENGTH);
        if (!lengthsFit(off, k, vl)) {
            return null;
        }
        return new Saved(off + EntryLayout.KEY, k, kept ? off + EntryLayout.KEY + k : u + UndoLayout.SAVED, vl);
    }

    /** @return whether the undo record's check matches its bytes (its length bounded first) */
    boolean undoChecks() {
        long u = SectionLayout.UNDO;
        int len = segment.getInt(u + UndoLayout.LENGTH);
        return len >= 0 && len <= UndoLayout.MAX_SAVED
                && (int) segment.hash64(u + UndoLayout.LENGTH, UndoLayout.checkedLength(len)) == segment.getInt(u + UndoLayout.CHECK);
    }

    /** @return the section's HEAP_TOP, or -1 if it or its check word is damaged (the caller rebuilds) */
    long top() {
        long top = segment.getLong(HEAP_TOP);
        boolean sound = top >= heapStart && top <= heapEnd && (top & 7) == 0
                && segment.getLong(SectionLayout.TOP_CHECK) == SectionLayout.topCheck(top);
        return sound ? top : -1;
    }

    // ---------------------------------------------------------------- writing a new segment

    /** @return bytes of a data segment with that table and heap, in whole chunks of the pool */
    static long segmentSize(ChunkPool pool, int buckets, int bucketSize, long heap) {
        long bytes = SectionLayout.bucketAt(buckets, bucketSize) + Math.max(heap, 64);
        long chunk = pool.chunkSize();
        return (bytes + chunk - 1) / chunk * chunk;
    }

    /**
     * @return the buckets a segment of {@link #segmentSize} for at least {@code buckets} buckets
     *         holds: the table takes what the rounding to whole chunks leaves over, up to a quarter
     *         more buckets (a small section leaves the rest to its heap, and unwritten)
     */
    static int bucketsFilling(ChunkPool pool, int buckets, int bucketSize, long heap) {
        long size = segmentSize(pool, buckets, bucketSize, heap);
        long fit = Math.min((size - TABLE - Math.max(heap, 64)) / bucketSize, buckets + buckets / 4L);
        return (int) Math.max(buckets, Math.min(MAX_BUCKETS, fit));
    }

    /** Writes an empty section into a new data segment: a zero table, an empty heap, the header. */
    static void writeEmpty(Segment seg, int section, long generation, int buckets, int bucketSize) {
        long tableEnd = SectionLayout.bucketAt(buckets, bucketSize);
        seg.fill(0, tableEnd, (byte) 0);
        writeHeader(seg, section, generation, buckets, bucketSize, tableEnd, 0, 0);
    }

    /** Writes a new data segment's header (its table written already), its CRC, then its magic. */
    static void writeHeader(Segment seg, int section, long generation, int buckets, int bucketSize, long top,
                            long garbage, int used) {
        seg.putLong(GENERATION, generation);
        seg.putInt(SECTION, section);
        seg.putInt(BUCKETS, buckets);
        seg.putInt(BUCKET_SIZE, bucketSize);
        seg.putInt(BUCKET_SIZE + 4, 0);
        seg.putLong(HEAP_START, SectionLayout.bucketAt(buckets, bucketSize));
        seg.putLong(HEAP_END, Math.min(seg.size(), SectionLayout.MAX_OFFSET));
        seg.putInt(CRC, crc(seg));
        setTop(seg, top);
        seg.putLong(GARBAGE, garbage);
        seg.putInt(USED, used);
        seg.fill(SectionLayout.FREE, SectionLayout.TABLE - SectionLayout.FREE, (byte) 0);
        seg.putLongVolatile(MAGIC, MAGIC_VALUE);
    }

    /** Stores a section's HEAP_TOP and its check word. */
    static void setTop(Segment seg, long top) {
        seg.putLong(HEAP_TOP, top);
        seg.putLong(SectionLayout.TOP_CHECK, SectionLayout.topCheck(top));
    }
}
