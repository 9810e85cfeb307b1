package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.Segment;

import java.util.zip.CRC32C;

import static dev.ferrite.kv.SectionLayout.CRC;
import static dev.ferrite.kv.SectionLayout.GARBAGE;
import static dev.ferrite.kv.SectionLayout.HEAP_TOP;
import static dev.ferrite.kv.SectionLayout.OFFSET_MASK;
import static dev.ferrite.kv.SectionLayout.USED;
import static dev.ferrite.kv.SectionLayout.GENERATION;
import static dev.ferrite.kv.SectionLayout.HEAP_END;
import static dev.ferrite.kv.SectionLayout.HEAP_START;
import static dev.ferrite.kv.SectionLayout.MAGIC;
import static dev.ferrite.kv.SectionLayout.MAGIC_VALUE;
import static dev.ferrite.kv.SectionLayout.MAX_SLOTS;
import static dev.ferrite.kv.SectionLayout.MIN_SLOTS;
import static dev.ferrite.kv.SectionLayout.SECTION;
import static dev.ferrite.kv.SectionLayout.SLOTS;
import static dev.ferrite.kv.SectionLayout.TABLE;

/**
 * One generation of a section's data segment as this process sees it: the handle and the fields
 * that never change in that generation, validated once when it is opened, and the checks of what
 * the segment holds (an entry's place, lengths and checksum; the undo record; the heap top), none
 * of which reads outside the segment. Immutable; the handle is closed when a newer generation
 * replaces it in the map's cache (a reader still using it then gets a
 * {@code SegmentClosedException} and retries). Also writes a new segment's header.
 */
final class SectionView {

    final Segment segment;
    final int section;
    final long generation;
    final int slots;
    final int mask;
    final long heapStart;
    final long heapEnd;
    /** The map's limits, which bound every length read from the segment. */
    final int maxKey;
    final int maxValue;

    private SectionView(Segment segment, int section, long generation, int slots, long heapStart, long heapEnd,
                        int maxKey, int maxValue) {
        this.segment = segment;
        this.maxKey = maxKey;
        this.maxValue = maxValue;
        this.section = section;
        this.generation = generation;
        this.slots = slots;
        this.mask = slots - 1;
        this.heapStart = heapStart;
        this.heapEnd = heapEnd;
    }

    /**
     * Validates a section segment's header and makes its view.
     *
     * @param segment    the data segment, opened by the name of that section and generation
     * @param section    the section it must belong to
     * @param generation the generation it must have
     * @param maxKey     the map's longest key
     * @param maxValue   the map's longest value
     * @return the view
     * @throws CorruptFileException naming the field if the header is not one this map wrote
     */
    static SectionView open(Segment segment, int section, long generation, int maxKey, int maxValue) {
        String where = "map section " + section + " generation " + generation + " (segment '" + segment.name() + "')";
        if (segment.size() < TABLE + (long) MIN_SLOTS * 8) {
            throw new CorruptFileException(where + ": size " + segment.size() + " is below the least, "
                    + (TABLE + MIN_SLOTS * 8));
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
        int slots = segment.getInt(SLOTS);
        long heapStart = segment.getLong(HEAP_START);
        long heapEnd = segment.getLong(HEAP_END);
        if (g != generation || s != section) {
            throw new CorruptFileException(where + ": its header says section " + s + " generation " + g);
        }
        if (slots < MIN_SLOTS || slots > MAX_SLOTS || Integer.bitCount(slots) != 1) {
            throw new CorruptFileException(where + ": slot count " + slots + " is not a power of two in ["
                    + MIN_SLOTS + ", " + MAX_SLOTS + "]");
        }
        if (heapStart != TABLE + 8L * slots || heapEnd < heapStart || heapEnd > segment.size()
                || heapEnd > SectionLayout.OFFSET_MASK) {
            throw new CorruptFileException(where + ": heap [" + heapStart + ", " + heapEnd
                    + ") is not after the table of " + slots + " slots and within the segment's " + segment.size() + " bytes");
        }
        return new SectionView(segment, section, generation, slots, heapStart, heapEnd, maxKey, maxValue);
    }

    /** @return CRC-32C of a section header's bytes [8, 40): the fixed fields after the magic */
    static int crc(Segment segment) {
        byte[] b = new byte[SectionLayout.HEAP_TOP - SectionLayout.GENERATION];
        segment.copyTo(SectionLayout.GENERATION, b, 0, b.length);
        CRC32C c = new CRC32C();
        c.update(b);
        return (int) c.getValue();
    }

    /** @return whether an entry could start at an offset (the header fits before the heap's end) */
    boolean entryFits(long off) {
        return off >= heapStart && off <= heapEnd - EntryLayout.HEADER && (off & 7) == 0;
    }

    /** @return an int field of an entry, or -1 if the entry's header is outside the heap */
    int entryField(long off, int field) {
        return entryFits(off) ? segment.getInt(off + field) : -1;
    }

    /** @return whether an entry's key and value lengths are within the map's limits and the entry within the heap */
    boolean lengthsFit(long off, int k, int vl) {
        return k >= 0 && k <= maxKey && vl >= 0 && vl <= maxValue
                && off + EntryLayout.KEY + (long) k + vl <= heapEnd;
    }

    /** @return whether an entry's lengths are in range and its checksum matches its bytes */
    boolean checksumMatches(long off, int k, int vl) {
        if (!lengthsFit(off, k, vl)) {
            return false;
        }
        int sum = (int) segment.hash64(off + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(k, vl));
        return sum == segment.getInt(off + EntryLayout.CHECKSUM) && segment.getInt(off + EntryLayout.RESERVED) == 0;
    }

    /**
     * @return the offset of the entry whose old value the section's undo record holds, or -1 if
     * the record fails its check or names no place an entry can start; to be asked only while the
     * section's stamp is odd
     */
    long undoEntry() {
        long u = SectionLayout.UNDO;
        int len = segment.getInt(u + UndoLayout.LENGTH);
        if (len < 0 || len > UndoLayout.MAX_VALUE
                || (int) segment.hash64(u + UndoLayout.LENGTH, UndoLayout.checkedLength(len)) != segment.getInt(u + UndoLayout.CHECK)) {
            return -1;
        }
        long entry = segment.getLong(u + UndoLayout.ENTRY);
        return entryFits(entry) ? entry : -1;
    }

    /** @return the section's HEAP_TOP, or -1 if it or its check word is damaged (the caller rebuilds) */
    long top() {
        long top = segment.getLong(HEAP_TOP);
        boolean sound = top >= heapStart && top <= heapEnd && (top & 7) == 0
                && segment.getLong(SectionLayout.TOP_CHECK) == SectionLayout.topCheck(top);
        return sound ? top : -1;
    }

    // ---------------------------------------------------------------- writing a new segment

    /** @return bytes of a data segment with that many slots and heap bytes, in whole chunks of the pool */
    static long segmentSize(ChunkPool pool, int slots, long heap) {
        long bytes = SectionLayout.TABLE + 8L * slots + Math.max(heap, 64);
        long chunk = pool.chunkSize();
        return (bytes + chunk - 1) / chunk * chunk;
    }

    /** Writes an empty section into a new data segment: a zero table, an empty heap, the header. */
    static void writeEmpty(Segment seg, int section, long generation, int slots) {
        seg.fill(0, SectionLayout.TABLE + 8L * slots, (byte) 0);
        writeHeader(seg, section, generation, slots, SectionLayout.TABLE + 8L * slots, 0, 0);
    }

    /** Writes a new data segment's header, its CRC, then its magic. */
    static void writeHeader(Segment seg, int section, long generation, int slots, long top, long garbage, int used) {
        seg.putLong(GENERATION, generation);
        seg.putInt(SECTION, section);
        seg.putInt(SLOTS, slots);
        seg.putLong(HEAP_START, TABLE + 8L * slots);
        seg.putLong(HEAP_END, Math.min(seg.size(), OFFSET_MASK));
        setTop(seg, top);
        seg.putLong(GARBAGE, garbage);
        seg.putInt(USED, used);
        seg.putInt(CRC, crc(seg));
        seg.putLongVolatile(MAGIC, MAGIC_VALUE);
    }

    /** Stores a section's HEAP_TOP and its check word. */
    static void setTop(Segment seg, long top) {
        seg.putLong(HEAP_TOP, top);
        seg.putLong(SectionLayout.TOP_CHECK, SectionLayout.topCheck(top));
    }
}
