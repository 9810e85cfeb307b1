package dev.ferrite.kv;

import dev.ferrite.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;

import static dev.ferrite.kv.MapLayout.LINE_COUNT;
import static dev.ferrite.kv.MapLayout.LINE_STAMP;
import static dev.ferrite.kv.SectionLayout.GARBAGE;
import static dev.ferrite.kv.SectionLayout.HEAP_TOP;
import static dev.ferrite.kv.SectionLayout.OFFSET_MASK;
import static dev.ferrite.kv.SectionLayout.TOMBSTONE;
import static dev.ferrite.kv.SectionLayout.USED;

/**
 * A key's place in its section, and the writes to it, for the holder of the section's lock: an
 * entry is written whole in space of the heap (a hole of its size from a free list, else the top;
 * a rebuild first if neither has room) and published by one ordered store of its slot word; the
 * space of the entry it replaces goes on a free list. A value changes in place through the
 * section's undo record. Not thread-safe: made per write, used by the lock holder only.
 */
final class EntryCursor {

    private static final Logger LOG = LoggerFactory.getLogger(EntryCursor.class);
    /** Holes of a free list a writer looks at for one of the size it needs before it appends. */
    private static final int HOLES_LOOKED_AT = 4;

    private final MapStore store;
    private final Segment header;
    private final int section;
    private final byte[] key;
    private final int koff;
    private final int klen;
    private final long hash;
    private SectionView v;
    private int slot;          // the key's slot, or where it would go (-1: no room)
    private long entry = -1;   // offset of the key's entry if present
    private int valueLength;
    private long oldSize;      // heap bytes of the entry the slot refers to now (live or damaged)
    private boolean intoEmpty; // whether an insertion would use an empty slot (not a tombstone)
    private boolean occupied;  // whether the key's slot refers to an entry (live or damaged): counted

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
        long tag = SectionLayout.tag(hash);
        int mask = v.mask;
        int idx = (int) hash & mask;
        int tomb = -1;
        entry = -1;
        oldSize = 0;
        slot = -1;
        occupied = false;
        for (int n = 0; n <= mask; n++) {
            long w = seg.getLong(SectionLayout.slot(idx));
            if (w == 0) {
                slot = tomb >= 0 ? tomb : idx;
                intoEmpty = tomb < 0;
                return;
            }
            if (w == TOMBSTONE) {
                if (tomb < 0) {
                    tomb = idx;
                }
            } else if ((w >>> 48) == tag) {
                long off = w & OFFSET_MASK;
                if (v.entryFits(off) && seg.getInt(off + EntryLayout.KEY_LENGTH) == klen
                        && off + EntryLayout.KEY + klen <= v.heapEnd
                        && seg.mismatch(off + EntryLayout.KEY, key, koff, klen) < 0) {
                    int vl = seg.getInt(off + EntryLayout.VALUE_LENGTH);
                    slot = idx;
                    intoEmpty = false;
                    occupied = true;
                    if (store.reader.verifiesReads() ? v.checksumMatches(off, klen, vl) : v.lengthsFit(off, klen, vl)) {
                        entry = off;
                        valueLength = vl;
                        oldSize = EntryLayout.size(klen, vl);
                    } else {
                        store.reader.reportDamage(v, off); // overwritten or removed like a live entry, counted as none
                        oldSize = 0;
                        entry = -2;
                    }
                    return;
                }
            }
            idx = (idx + 1) & mask;
        }
        slot = tomb;
        intoEmpty = false;
    }

    /** @return whether the key has an entry */
    boolean present() {
        return entry >= 0;
    }

    /** @return the segment holding the entry (valid until the write returns) */
    Segment segment() {
        return v.segment;
    }

    /** @return offset of the present value's first byte */
    long valueOffset() {
        return entry + EntryLayout.KEY + klen;
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
        long at = append(EntryLayout.size(klen, len));
        Segment seg = v.segment;
        seg.putInt(at + EntryLayout.VALUE_LENGTH, len);
        seg.copyFrom(value, off, at + EntryLayout.KEY + klen, len);
        publish(at, len);
    }

    /**
     * Lets an updater change the present value. A value of at most {@link UndoLayout#MAX_VALUE}
     * bytes is changed where it lies: its old bytes go to the section's undo record, the stamp
     * turns odd (readers take the value from the record meanwhile), the updater writes the
     * entry, the entry gets its new checksum and the stamp turns even again. If the updater
     * throws, the old bytes are put back. A longer value is copied to fresh space, changed
     * there and published as a new entry.
     */
    void update(ValueUpdater updater) {
        if (!present()) {
            throw new IllegalStateException("no entry to update");
        }
        int len = valueLength;
        if (len > UndoLayout.MAX_VALUE) {
            updateCopy(updater);
            return;
        }
        Segment seg = v.segment;
        long valueAt = valueOffset();
        saveUndo(seg, entry, valueAt, len);
        long stampAt = MapLayout.line(section) + LINE_STAMP;
        long stamp = header.getLong(stampAt);
        header.putLongVolatile(stampAt, stamp + 1);
        VarHandle.storeStoreFence();
        boolean done = false;
        try {
            updater.update(seg, valueAt, len);
            seg.putInt(entry + EntryLayout.CHECKSUM,
                    (int) seg.hash64(entry + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(klen, len)));
            done = true;
        } finally {
            if (!done) {
                seg.copyTo(SectionLayout.UNDO + UndoLayout.VALUE, seg, valueAt, len);
                seg.putInt(entry + EntryLayout.CHECKSUM, seg.getInt(SectionLayout.UNDO + UndoLayout.CHECKSUM));
            }
            header.putLongOrdered(stampAt, stamp + 2);
        }
    }

    /** The update of a value too long for the undo record: a changed copy, published as a new entry. */
    private void updateCopy(ValueUpdater updater) {
        int len = valueLength;
        long size = EntryLayout.size(klen, len);
        long at = append(size);
        // append may have rebuilt the section: the entry is found again there.
        Segment seg = v.segment;
        seg.putInt(at + EntryLayout.VALUE_LENGTH, len);
        seg.copyTo(valueOffset(), seg, at + EntryLayout.KEY + klen, len);
        updater.update(seg, at + EntryLayout.KEY + klen, len);
        publish(at, len);
    }

    /** Removes the key's entry if it has one (or a damaged one). */
    void remove() {
        if (!occupied) {
            return;
        }
        Segment seg = v.segment;
        seg.putLongVolatile(SectionLayout.slot(slot), TOMBSTONE);
        seg.putLong(GARBAGE, seg.getLong(GARBAGE) + oldSize);
        free(entry, oldSize);
        addCount(-1);
        occupied = false;
        entry = -1;
        oldSize = 0;
        intoEmpty = false;
    }

    /**
     * Reserves heap space for a new entry of this key, rebuilding the section first if the
     * heap or the table is too full, and writes the key and its length there.
     *
     * @return the new entry's offset
     */
    private long append(long size) {
        Segment seg = v.segment;
        long top = v.top();
        boolean tableFull = slot < 0
                || (intoEmpty && (seg.getInt(USED) + 1L) * 4 > (long) v.slots * 3);
        if (!tableFull) {
            long hole = reuse(size);
            if (hole > 0) {
                seg.putInt(hole + EntryLayout.KEY_LENGTH, klen);
                seg.putInt(hole + EntryLayout.RESERVED, 0);
                seg.copyFrom(key, koff, hole + EntryLayout.KEY, klen);
                return hole;
            }
        }
        if (tableFull || top < 0 || top + size > v.heapEnd) {
            if (top < 0) {
                LOG.warn("map '{}' section {}: HEAP_TOP {} fails its check; rebuilt", store.name, section,
                        seg.getLong(HEAP_TOP));
            }
            store.rebuilder.rebuild(section, size, false);
            locate();
            seg = v.segment;
            top = v.top();
            if (slot < 0 || top < 0 || top + size > v.heapEnd) {
                throw new IllegalStateException("map '" + store.name + "' section " + section
                        + ": no room after a rebuild (slot " + slot + ", top " + top + ", size " + size + ")");
            }
        }
        seg.putInt(top + EntryLayout.KEY_LENGTH, klen);
        seg.putInt(top + EntryLayout.RESERVED, 0);
        seg.copyFrom(key, koff, top + EntryLayout.KEY, klen);
        return top;
    }

    /**
     * Takes a hole of exactly {@code size} bytes off its free list (looking at the first few
     * holes of the list only), announcing the reuse to readers first.
     *
     * @return the hole's offset, or 0 if the list has none of that size
     */
    private long reuse(long size) {
        Segment seg = v.segment;
        long headAt = SectionLayout.freeHead(size);
        long prevAt = headAt;
        long hole = seg.getLong(headAt);
        for (int looked = 0; hole != 0 && looked < HOLES_LOOKED_AT; looked++) {
            long next = holeFits(hole) ? seg.getLong(hole + SectionLayout.HOLE_NEXT) : -1;
            int holeSize = next < 0 ? -1 : seg.getInt(hole + SectionLayout.HOLE_SIZE);
            if (next < 0 || holeSize < EntryLayout.HEADER || hole + holeSize > v.top()
                    || seg.getInt(hole + SectionLayout.HOLE_CHECK) != SectionLayout.holeCheck(hole, next, holeSize)) {
                seg.putLong(prevAt, 0); // a damaged list: cut here, the rest stays garbage
                return 0;
            }
            if (holeSize == size) {
                stampReuse();
                seg.putLong(prevAt, next);
                seg.putLong(GARBAGE, Math.max(0, seg.getLong(GARBAGE) - size));
                return hole;
            }
            prevAt = hole + SectionLayout.HOLE_NEXT;
            hole = next;
        }
        return 0;
    }

    /**
     * Puts the space of an entry no slot refers to any more on its free list, announcing the
     * change of its bytes to readers first. Space of an unknown size (a damaged entry) is left
     * as garbage for the next rebuild.
     */
    private void free(long at, long size) {
        if (at < 0 || size < EntryLayout.HEADER || size > Integer.MAX_VALUE || !holeFits(at)) {
            return;
        }
        Segment seg = v.segment;
        long headAt = SectionLayout.freeHead(size);
        long next = seg.getLong(headAt);
        stampReuse();
        seg.putLong(at + SectionLayout.HOLE_NEXT, next);
        seg.putInt(at + SectionLayout.HOLE_SIZE, (int) size);
        seg.putInt(at + SectionLayout.HOLE_CHECK, SectionLayout.holeCheck(at, next, (int) size));
        seg.putLong(headAt, at);
    }

    /** @return whether a hole's header lies in the heap, 8-aligned */
    private boolean holeFits(long hole) {
        return v.entryFits(hole);
    }

    /**
     * Adds 2 to the section's stamp (keeping it even: no in-place update under way), ordered
     * before every store that follows: a reader that started before sees the stamp change and
     * reads again; one that starts after no longer reaches the space through any slot.
     */
    private void stampReuse() {
        long at = MapLayout.line(section) + LINE_STAMP;
        header.putLongVolatile(at, header.getLong(at) + 2);
        VarHandle.storeStoreFence();
    }

    /** Checksums the entry at {@code at}, moves the heap top past it and points the key's slot at it. */
    private void publish(long at, int len) {
        Segment seg = v.segment;
        long size = EntryLayout.size(klen, len);
        long end = at + EntryLayout.KEY + klen + len;
        if (end < at + size) {
            seg.fill(end, at + size - end, (byte) 0);
        }
        seg.putInt(at + EntryLayout.CHECKSUM,
                (int) seg.hash64(at + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(klen, len)));
        if (at + size > seg.getLong(HEAP_TOP)) {
            SectionView.setTop(seg, at + size); // appended, not in a hole
        }
        boolean inserted = !occupied;
        if (intoEmpty) {
            seg.putInt(USED, seg.getInt(USED) + 1);
        }
        seg.putLongOrdered(SectionLayout.slot(slot), SectionLayout.word(hash, at));
        if (oldSize > 0) {
            seg.putLong(GARBAGE, seg.getLong(GARBAGE) + oldSize);
            free(entry, oldSize);
        }
        if (inserted) {
            addCount(1);
        }
        entry = at;
        valueLength = len;
        oldSize = size;
        intoEmpty = false;
        occupied = true;
    }

    private void addCount(long delta) {
        long at = MapLayout.line(section) + LINE_COUNT;
        header.putLongVolatile(at, header.getLong(at) + delta);
    }

    /** Writes the undo record of an in-place update of the entry at {@code entry}: its value and checksum. */
    private static void saveUndo(Segment seg, long entry, long valueAt, int len) {
        long u = SectionLayout.UNDO;
        seg.putInt(u + UndoLayout.LENGTH, len);
        seg.putLong(u + UndoLayout.ENTRY, entry);
        seg.putInt(u + UndoLayout.CHECKSUM, seg.getInt(entry + EntryLayout.CHECKSUM));
        seg.putInt(u + UndoLayout.RESERVED, 0);
        seg.copyTo(valueAt, seg, u + UndoLayout.VALUE, len);
        seg.putInt(u + UndoLayout.CHECK, (int) seg.hash64(u + UndoLayout.LENGTH, UndoLayout.checkedLength(len)));
    }
}
