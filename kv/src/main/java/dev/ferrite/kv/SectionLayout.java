package dev.ferrite.kv;

/**
 * Byte layout of a section's data segment: a header, a table of buckets ({@link BucketLayout})
 * holding the entries that fit them, and a heap of the entries that do not ({@link EntryLayout}),
 * filled from the front. Little-endian. Mirrored in {@code docs/FORMAT.md} ("Map, version 4").
 *
 * <pre>
 *   0       8            16        20        24            28   32           40         48    52     56         64          72        80
 *   +-------+------------+---------+---------+-------------+----+------------+----------+-----+------+----------+-----------+---------+
 *   | MAGIC | GENERATION | SECTION | BUCKETS | BUCKET_SIZE | 0  | HEAP_START | HEAP_END | CRC | USED | HEAP_TOP | TOP_CHECK | GARBAGE |
 *   +-------+------------+---------+---------+-------------+----+------------+----------+-----+------+----------+-----------+---------+
 *  80: FREE_LISTS heads of free lists of heap holes, 8 bytes each; zero to 192
 * 192: the undo record of an in-place change ({@link UndoLayout}), UNDO_SIZE bytes
 * 512: BUCKETS buckets of BUCKET_SIZE bytes; HEAP_START = 512 + BUCKETS * BUCKET_SIZE; heap entries up to HEAP_END
 * </pre>
 *
 * <p>The fields before {@link #CRC} are written once, when the segment is built, and covered by
 * the CRC (all but the magic, which is written last). The other fields, the free lists and the
 * undo record are written only by the holder of the section's lock.
 *
 * <p>A free list chains holes: heap space of removed or overwritten entries, for new entries of the
 * same size. A hole starts with the next hole's offset (long; 0 ends the list), the hole's size (int)
 * and a check word ({@link #holeCheck}, int); list {@code i} holds holes whose size in 8-byte words is
 * {@code i} modulo {@link #FREE_LISTS}. HEAP_TOP is trusted only with its check word.
 *
 * <p>A key's home bucket is {@link #home}: the low 32 bits of its hash scaled to the bucket count,
 * so the order of buckets is the order of those bits whatever the count. Probing is linear,
 * wrapping at the end of the table.
 */
final class SectionLayout {

    /** long: "FERRSEC3" in ASCII, little-endian. */
    static final int MAGIC = 0;
    /** The magic value. */
    static final long MAGIC_VALUE = 0x3343455352524546L;
    /** long: the generation in the segment's name. */
    static final int GENERATION = 8;
    /** int: the section's index. */
    static final int SECTION = 16;
    /** int: number of buckets, from {@link #MIN_BUCKETS} to {@link #MAX_BUCKETS}. */
    static final int BUCKETS = 20;
    /** int: bytes per bucket, a multiple of 16 from 16 to 256. */
    static final int BUCKET_SIZE = 24;
    /** long: offset of the heap, {@code TABLE + BUCKETS * BUCKET_SIZE}. */
    static final int HEAP_START = 32;
    /** long: end of the heap, at most the segment's size. */
    static final int HEAP_END = 40;
    /** int: CRC-32C of bytes [8, 48) (the magic, written last, is not covered). */
    static final int CRC = 48;
    /** int: buckets that are not empty (entries and tombstones). */
    static final int USED = 52;
    /** long: offset of the first unused heap byte. */
    static final int HEAP_TOP = 56;
    /** long: {@link #topCheck} of HEAP_TOP, written with it: a damaged HEAP_TOP makes the writer rebuild. */
    static final int TOP_CHECK = 64;
    /** long: bytes of heap held by entries no bucket refers to any more. */
    static final int GARBAGE = 72;
    /** Offset of the first free-list head (long). */
    static final int FREE = 80;
    /** Number of free lists. */
    static final int FREE_LISTS = 7;
    /** Offset of the undo record ({@link UndoLayout}), written by the lock holder only. */
    static final int UNDO = 192;
    /** Bytes of the undo record. */
    static final int UNDO_SIZE = 320;
    /** Offset of bucket 0. */
    static final int TABLE = UNDO + UNDO_SIZE;
    /** In a hole: long, offset of the next hole of its list, 0 for none. */
    static final int HOLE_NEXT = 0;
    /** In a hole: int, the hole's size in bytes (a multiple of 8, at least {@code EntryLayout.HEADER}). */
    static final int HOLE_SIZE = 8;
    /** In a hole: int, {@link #holeCheck} of its offset, next and size: a damaged hole is not reused. */
    static final int HOLE_CHECK = 12;

    /** Fewest buckets a section has. */
    static final int MIN_BUCKETS = 64;
    /** Most buckets a section has. */
    static final int MAX_BUCKETS = 1 << 30;
    /** Highest offset a section segment may have: heap offsets live in 48 bits. */
    static final long MAX_OFFSET = (1L << 48) - 1;

    private SectionLayout() {
    }

    /**
     * @return offset of bucket {@code index} of a section's table of buckets of that size; of
     *         {@code index == buckets}: the table's end, where the heap starts
     */
    static long bucketAt(int index, int bucketSize) {
        return TABLE + (long) index * bucketSize;
    }

    /** @return the home bucket of a key hash in a table of that many buckets: its low 32 bits scaled */
    static int home(long hash, int buckets) {
        return (int) (((hash & 0xFFFF_FFFFL) * buckets) >>> 32);
    }

    /** @return how many buckets after {@code home} the bucket {@code index} is, wrapping at the table's end (both in [0, buckets)) */
    static int distance(int home, int index, int buckets) {
        int d = index - home;
        return d >= 0 ? d : d + buckets;
    }

    /** @return offset of the head of the free list for holes of {@code size} bytes */
    static long freeHead(long size) {
        return FREE + 8L * ((size >>> 3) % FREE_LISTS);
    }

    /** @return the check word of a hole at {@code offset} with that next hole and size */
    static int holeCheck(long offset, long next, int size) {
        long x = offset * 0x9E3779B97F4A7C15L ^ next * 0xC2B2AE3D27D4EB4FL ^ size * 0x165667B19E3779F9L;
        x ^= x >>> 29;
        x *= 0xBF58476D1CE4E5B9L;
        return (int) (x ^ x >>> 32) ^ 0x454C4F48; // "HOLE"
    }

    /** @return the check word of a HEAP_TOP value */
    static long topCheck(long top) {
        return ~top * 0x9E3779B97F4A7C15L;
    }
}
