package dev.ferrite.kv;

import dev.ferrite.Segment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Whole-bucket reads of a section's view, for scans and the scrub: an entry read at one instant
 * (its bucket's word before and after; a bucket being changed as the undo record holds it), the
 * count of damaged entries, and one step of a cursor scan. Reads only; stateless.
 */
final class SectionScanner {

    private SectionScanner() {
    }

    /** What {@link #entryAt} returns for a bucket whose entry fails its checks. */
    static final byte[][] DAMAGED = new byte[0][];

    /**
     * Reads the entry of a bucket whole, at one instant (a bucket being changed: as it was, from
     * the undo record), checked against its checksum if {@code check} (else its lengths only).
     *
     * @return key and value bytes; null for an empty bucket or a tombstone; {@link #DAMAGED}
     */
    static byte[][] entryAt(SectionView v, long b, boolean check) {
        Segment seg = v.segment;
        while (true) {
            long w = seg.getLongVolatile(b);
            int kind = BucketLayout.kind(w);
            if (kind == BucketLayout.EMPTY || kind == BucketLayout.TOMBSTONE) {
                return null;
            }
            byte[][] e;
            try {
                e = (w & BucketLayout.ODD) == 0 ? settled(v, b, w, check) : changing(v, b, w);
            } catch (RuntimeException torn) {
                if (v.wordStill(b, w)) {
                    throw torn;
                }
                continue;
            }
            if (v.wordStill(b, w)) {
                return e;
            }
        }
    }

    private static byte[][] settled(SectionView v, long b, long w, boolean check) {
        Segment seg = v.segment;
        if (BucketLayout.kind(w) == BucketLayout.INLINE) {
            int k = BucketLayout.keyLength(w);
            int vl = BucketLayout.valueLength(w);
            if (!v.inlineFits(w) || check && !v.intact(b, w)) {
                return DAMAGED;
            }
            return copy(seg, b + BucketLayout.KEY, k, b + BucketLayout.KEY + k, vl);
        }
        return outside(v, seg.getLong(b + BucketLayout.ENTRY), check);
    }

    /** @return an outside entry's bytes, or {@link #DAMAGED} */
    private static byte[][] outside(SectionView v, long off, boolean check) {
        if (!v.entryFits(off)) {
            return DAMAGED;
        }
        Segment seg = v.segment;
        int k = seg.getInt(off + EntryLayout.KEY_LENGTH);
        int vl = seg.getInt(off + EntryLayout.VALUE_LENGTH);
        if (!v.lengthsFit(off, k, vl) || check && !v.checksumMatches(off, k, vl)) {
            return DAMAGED;
        }
        return copy(seg, off + EntryLayout.KEY, k, off + EntryLayout.KEY + k, vl);
    }

    private static byte[][] changing(SectionView v, long b, long w) {
        SectionView.Saved e = v.saved(b, w);
        return e == null ? DAMAGED : copy(v.segment, e.keyAt(), e.keyLength(), e.valueAt(), e.valueLength());
    }

    private static byte[][] copy(Segment seg, long keyAt, int k, long valueAt, int vl) {
        byte[] kb = new byte[k];
        byte[] vb = new byte[vl];
        seg.copyTo(keyAt, kb, 0, k);
        seg.copyTo(valueAt, vb, 0, vl);
        return new byte[][] {kb, vb};
    }

    /**
     * @return entries of a view that fail their checks (one being changed: as the undo record has
     *         it), and those beyond their home's reach (which a get would not find)
     */
    static long countDamaged(SectionView v) {
        long damaged = 0;
        for (int i = 0; i < v.buckets; i++) {
            byte[][] e = entryAt(v, v.bucket(i), true);
            if (e == DAMAGED || e != null && v.reaches && !withinReach(v, e[0], i)) {
                damaged++;
            }
        }
        return damaged;
    }

    /** @return whether the entry of a key in bucket {@code index} lies within its home's reach */
    private static boolean withinReach(SectionView v, byte[] key, int index) {
        int home = v.home(MapStore.hash(key, 0, key.length));
        int reach = BucketLayout.reach(v.segment.getLongVolatile(v.bucket(home)));
        return reach == BucketLayout.REACH_UNBOUNDED || SectionLayout.distance(home, index, v.buckets) <= reach;
    }

    /** Entries read by one step of {@link #scanBuckets}, and where the next step starts. */
    static final class BucketRun {
        /** The cursor for the next step in this section; 0 when the section is done. */
        final long next;
        /** Key and value bytes of each live entry read. */
        final List<byte[][]> entries;

        BucketRun(long next, List<byte[][]> entries) {
            this.next = next;
            this.entries = entries;
        }
    }

    /** Cursor positions: the low 32 bits of key hashes, so a position means the same whatever the table's size. */
    private static final long POSITIONS = 1L << 32;

    /**
     * One step of a cursor scan of one section. The cursor is a position in the order of the keys'
     * home buckets: the low 32 bits of their hashes, which {@link SectionLayout#home} scales to the
     * table, so the order is the same for every table size and an entry present throughout is met
     * exactly once even if the section is rebuilt between steps. A home bucket's entries lie in the
     * probe run from it to the next empty bucket; each is read whole ({@link #entryAt}), checked
     * against its checksum, its hash against its home, and met once if two buckets hold one key.
     *
     * @param v      the section's view
     * @param cursor where to start in this section, 0 for its beginning
     * @param max    how many entries to aim for, 1 or more (a home bucket is never split, so a step
     *               may take a few more)
     */
    static BucketRun scan(SectionView v, long cursor, int max) {
        List<byte[][]> out = new ArrayList<>();
        long position = cursor;
        int home = v.home(position);
        while (true) {
            collectHome(v, home, position, out);
            home++;
            position = home == v.buckets ? POSITIONS : firstPosition(home, v.buckets);
            if (position >= POSITIONS) {
                return new BucketRun(0, out);
            }
            if (out.size() >= max) {
                return new BucketRun(position, out);
            }
        }
    }

    /** @return the least position whose home bucket in a table of {@code buckets} is {@code home} */
    private static long firstPosition(int home, int buckets) {
        return (((long) home << 32) + buckets - 1) / buckets;
    }

    /** Adds the live, intact entries whose home is {@code home} and position at least {@code from}. */
    private static void collectHome(SectionView v, int home, long from, List<byte[][]> out) {
        int first = out.size();
        int i = home;
        for (int n = 0; n < v.buckets; n++) {
            long b = v.bucket(i);
            if (BucketLayout.kind(v.segment.getLongVolatile(b)) == BucketLayout.EMPTY) {
                return;
            }
            byte[][] e = entryAt(v, b, true);
            if (e != null && e != DAMAGED) {
                long h = MapStore.hash(e[0], 0, e[0].length);
                if (v.home(h) == home && (h & 0xFFFF_FFFFL) >= from && !metBefore(out, first, e[0])) {
                    out.add(e);
                }
            }
            i = v.nextBucket(i);
        }
    }

    /** @return whether entries {@code from} on of a list hold a key (two buckets holding one key are damage) */
    private static boolean metBefore(List<byte[][]> out, int from, byte[] key) {
        for (int j = from; j < out.size(); j++) {
            if (Arrays.equals(out.get(j)[0], key)) {
                return true;
            }
        }
        return false;
    }
}
