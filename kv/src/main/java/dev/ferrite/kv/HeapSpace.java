package dev.ferrite.kv;

import dev.ferrite.Segment;

/**
 * The free lists of a section's heap: space of outside entries no bucket names any more, kept as
 * holes for new entries of the same size. For the holder of the section's lock; stateless.
 */
final class HeapSpace {

    /** Holes of a free list a writer looks at for one of the size it needs before it appends. */
    private static final int HOLES_LOOKED_AT = 4;

    private HeapSpace() {
    }

    /**
     * Takes a hole of exactly {@code size} bytes off its free list (looking at the first few
     * holes of the list only).
     *
     * @return the hole's offset, or 0 if the list has none of that size
     */
    static long take(SectionView v, long size) {
        Segment seg = v.segment;
        long headAt = SectionLayout.freeHead(size);
        long prevAt = headAt;
        long hole = seg.getLong(headAt);
        for (int looked = 0; hole != 0 && looked < HOLES_LOOKED_AT; looked++) {
            long next = v.entryFits(hole) ? seg.getLong(hole + SectionLayout.HOLE_NEXT) : -1;
            int holeSize = next < 0 ? -1 : seg.getInt(hole + SectionLayout.HOLE_SIZE);
            if (next < 0 || holeSize < EntryLayout.HEADER || hole + holeSize > v.top()
                    || seg.getInt(hole + SectionLayout.HOLE_CHECK) != SectionLayout.holeCheck(hole, next, holeSize)) {
                seg.putLong(prevAt, 0); // a damaged list: cut here, the rest stays garbage
                return 0;
            }
            if (holeSize == size) {
                seg.putLong(prevAt, next);
                seg.putLong(SectionLayout.GARBAGE, Math.max(0, seg.getLong(SectionLayout.GARBAGE) - size));
                return hole;
            }
            prevAt = hole + SectionLayout.HOLE_NEXT;
            hole = next;
        }
        return 0;
    }

    /**
     * Puts the space of an entry no bucket refers to any more on its free list (a reader still
     * reading it finds the bucket's word changed afterwards). Space of an unknown size (a damaged
     * entry) is left as garbage for the next rebuild.
     */
    static void free(SectionView v, long at, long size) {
        if (at < 0 || size < EntryLayout.HEADER || size > Integer.MAX_VALUE || !v.entryFits(at)) {
            return;
        }
        Segment seg = v.segment;
        long headAt = SectionLayout.freeHead(size);
        long next = seg.getLong(headAt);
        seg.putLong(at + SectionLayout.HOLE_NEXT, next);
        seg.putInt(at + SectionLayout.HOLE_SIZE, (int) size);
        seg.putInt(at + SectionLayout.HOLE_CHECK, SectionLayout.holeCheck(at, next, (int) size));
        seg.putLong(headAt, at);
    }
}
