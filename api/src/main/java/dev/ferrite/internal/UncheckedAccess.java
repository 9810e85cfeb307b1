package dev.ferrite.internal;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;

/**
 * Loads from a segment without its per-access range and closed checks, for the read paths of
 * Ferrite's own structures: a caller proves every offset in range from fields it validated once
 * against the segment's size (a hash table's bucket from its mask and the table's extent, a length
 * from the bucket that bounds it), and calls {@link #checkOpen} once per operation before its loads.
 * Loads that straddle two chunks are still assembled correctly.
 *
 * <p>An offset outside the segment is not detected: on the {@code unsafe} backend it reads other
 * memory or faults. Never pass one a file or a client decided without bounding it first. Stateless
 * and thread-safe.
 */
public final class UncheckedAccess {

    private UncheckedAccess() {
    }

    /**
     * @param segment a handle of a Ferrite backend
     * @return it as the type these loads take
     * @throws FerriteException if it is not one ({@link AbstractSegment} is every backend's)
     */
    public static AbstractSegment of(Segment segment) {
        if (segment instanceof AbstractSegment a) {
            return a;
        }
        throw new FerriteException("segment of class " + segment.getClass().getName()
                + " is not a Ferrite backend's (" + AbstractSegment.class.getName() + ")");
    }

    /**
     * Checks that the handle is open, once for an operation's loads that follow.
     *
     * @throws SegmentClosedException if it was closed (or its pool)
     */
    public static void checkOpen(AbstractSegment segment) {
        if (segment.closedNow()) {
            throw segment.closedError();
        }
    }

    /** @return whether the handle is open now (a plain read: a close by another thread may not be seen yet) */
    public static boolean isOpen(AbstractSegment segment) {
        return !segment.closedNow();
    }

    /** @return the 8 bytes at {@code off}, a multiple of 8, read with volatile semantics */
    public static long getLongVolatile(AbstractSegment segment, long off) {
        return segment.loadLongVolatileAt(off);
    }

    /** @return the 8 bytes at {@code off}, little-endian */
    public static long getLong(AbstractSegment segment, long off) {
        return segment.loadLongAt(off);
    }

    /** @return the 4 bytes at {@code off}, little-endian */
    public static int getInt(AbstractSegment segment, long off) {
        return segment.loadIntAt(off);
    }

    /**
     * As {@link Segment#mismatch(long, byte[], int, int)}; the array's own bounds checks stay.
     *
     * @return the index of the first byte that differs, or -1 if all {@code len} are equal
     */
    public static long mismatch(AbstractSegment segment, long off, byte[] other, int otherOff, int len) {
        return RangeReads.mismatch(segment, off, other, otherOff, len);
    }
}
