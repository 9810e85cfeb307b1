package dev.ferrite.kv;

import dev.ferrite.CorruptFileException;
import dev.ferrite.Segment;

import java.util.zip.CRC32C;

import static dev.ferrite.kv.SectionLayout.CRC;
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
 * that never change in that generation, validated once when it is opened. Immutable; the handle
 * is closed when a newer generation replaces it in the map's cache (a reader still using it then
 * gets a {@code SegmentClosedException} and retries).
 */
final class SectionView {

    final Segment segment;
    final int section;
    final long generation;
    final int slots;
    final int mask;
    final long heapStart;
    final long heapEnd;

    private SectionView(Segment segment, int section, long generation, int slots, long heapStart, long heapEnd) {
        this.segment = segment;
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
     * @return the view
     * @throws CorruptFileException naming the field if the header is not one this map wrote
     */
    static SectionView open(Segment segment, int section, long generation) {
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
        return new SectionView(segment, section, generation, slots, heapStart, heapEnd);
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
}
