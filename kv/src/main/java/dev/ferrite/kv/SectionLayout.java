package dev.ferrite.kv;

/**
 * Byte layout of a section's data segment: a header, an open-addressing table of slot words, and a
 * heap of entries ({@link EntryLayout}) filled from the front. Little-endian. Mirrored in
 * {@code docs/FORMAT.md} ("Map, version 2").
 *
 * <pre>
 *   0        8            16        20       24           32         40          48        56       60     64
 *   +--------+------------+---------+--------+------------+----------+-----------+---------+--------+------+
 *   | MAGIC  | GENERATION | SECTION | SLOTS  | HEAP_START | HEAP_END | HEAP_TOP  | GARBAGE | USED   | CRC  |
 *   +--------+------------+---------+--------+------------+----------+-----------+---------+--------+------+
 *  64: FREE_LISTS heads of free lists, 8 bytes each; 120: TOP_CHECK
 * 128: the undo record of an in-place update ({@link UndoLayout}), UNDO_SIZE bytes
 * 384: SLOTS slot words of 8 bytes; HEAP_START = 384 + 8 * SLOTS; entries up to HEAP_END
 * </pre>
 *
 * <p>The fields before {@link #HEAP_TOP} are written once, when the segment is built, and covered
 * by the CRC (all but the magic, which is written last). {@code HEAP_TOP}, {@code GARBAGE} and {@code USED} are
 * written only by the holder of the section's lock, as are the free lists.
 *
 * <p>A free list chains holes: heap space of removed or overwritten entries, for new entries of the
 * same size. A hole starts with the next hole's offset (long; 0 ends the list), the hole's size (int)
 * and a check word ({@link #holeCheck}, int); list {@code i} holds holes whose size in 8-byte words is {@code i} modulo
 * {@link #FREE_LISTS}. HEAP_TOP is trusted only with its check word. A head is 0 or an offset in the heap.
 *
 * <p>A slot word is 0 (empty), {@link #TOMBSTONE} (a removed entry: probing continues past it), or
 * {@code tag << 48 | offset}: the offset of an entry in this segment (8-aligned, in
 * [HEAP_START, HEAP_END)) and 16 bits of the key's hash ({@link #tag}) that spare most key
 * comparisons. A key's home slot is {@code hash & (SLOTS - 1)}; probing is linear.
 */
final class SectionLayout {

    /** long: "FERRSEC1" in ASCII, little-endian. */
    static final int MAGIC = 0;
    /** The magic value. */
    static final long MAGIC_VALUE = 0x3143455352524546L;
    /** long: the generation in the segment's name. */
    static final int GENERATION = 8;
    /** int: the section's index. */
    static final int SECTION = 16;
    /** int: number of slot words, a power of two. */
    static final int SLOTS = 20;
    /** long: offset of the heap, {@code TABLE + 8 * SLOTS}. */
    static final int HEAP_START = 24;
    /** long: end of the heap, at most the segment's size. */
    static final int HEAP_END = 32;
    /** long: offset of the first unused heap byte. */
    static final int HEAP_TOP = 40;
    /** long: bytes of heap held by entries no slot refers to any more. */
    static final int GARBAGE = 48;
    /** int: slot words that are not empty (entries and tombstones). */
    static final int USED = 56;
    /** int: CRC-32C of bytes [8, 40) (the magic, written last, is not covered). */
    static final int CRC = 60;
    /** Offset of the first free-list head (long). */
    static final int FREE = 64;
    /** Number of free lists. */
    static final int FREE_LISTS = 7;
    /** long: {@link #topCheck} of HEAP_TOP, written with it: a damaged HEAP_TOP makes the writer rebuild. */
    static final int TOP_CHECK = 120;
    /** Offset of the undo record ({@link UndoLayout}), written by the lock holder only. */
    static final int UNDO = 128;
    /** Bytes of the undo record. */
    static final int UNDO_SIZE = 256;
    /** Offset of slot word 0. */
    static final int TABLE = UNDO + UNDO_SIZE;
    /** In a hole: long, offset of the next hole of its list, 0 for none. */
    static final int HOLE_NEXT = 0;
    /** In a hole: int, the hole's size in bytes (a multiple of 8, at least {@code EntryLayout.HEADER}). */
    static final int HOLE_SIZE = 8;
    /** In a hole: int, {@link #holeCheck} of its offset, next and size: a damaged hole is not reused. */
    static final int HOLE_CHECK = 12;

    /** The slot word of a removed entry. */
    static final long TOMBSTONE = 1;
    /** Bits of a slot word that hold the entry offset. */
    static final long OFFSET_MASK = (1L << 48) - 1;
    /** Fewest slots a section has. */
    static final int MIN_SLOTS = 64;
    /** Most slots a section has. */
    static final int MAX_SLOTS = 1 << 30;

    private SectionLayout() {
    }

    /** @return offset of a slot word */
    static long slot(int index) {
        return TABLE + 8L * index;
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

    /** @return the 16-bit tag of a key hash stored in its slot word */
    static long tag(long hash) {
        return (hash >>> 32) & 0xFFFF;
    }

    /** @return the slot word for an entry at an offset */
    static long word(long hash, long entryOffset) {
        return tag(hash) << 48 | entryOffset;
    }
}
