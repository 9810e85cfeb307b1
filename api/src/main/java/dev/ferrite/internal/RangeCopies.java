package dev.ferrite.internal;

import dev.ferrite.Region;
import dev.ferrite.Segment;
import java.nio.ByteBuffer;

/**
 * Writes and copies of a whole range of a segment, walked chunk by chunk: to and from arrays,
 * {@code ByteBuffer}s and other segments, and fills. A range whose chunks lie end to end is one
 * primitive call; otherwise one call per chunk, and an 8-byte element across a chunk boundary
 * (an offset not a multiple of 8) goes byte by byte. The caller has checked the ranges and the
 * arrays ({@link AbstractSegment} does, before it calls these). Stateless; as thread-safe as the
 * segment's memory.
 */
final class RangeCopies {

    /** The largest buffer a copy between overlapping ranges of one segment goes through, in bytes. */
    private static final int BACKWARD_BUFFER = 1 << 16;

    private RangeCopies() {
    }

    /**
     * Copies {@code count} elements between {@code [off, ...)} of {@code s} and {@code array} from
     * {@code index}: a {@code byte[]}, {@code long[]} or {@code double[]}.
     *
     * @param out whether the copy goes from the segment to the array (else into the segment)
     */
    static void copyArray(AbstractSegment s, long off, Object array, int index, int count, boolean out) {
        if (s.contiguous()) {
            // Chunks end to end: one copy, no chunk arithmetic.
            if (out) {
                s.copyToArray(s.baseAt(off), s.posAt(off), array, index, count);
            } else {
                s.copyFromArray(array, index, count, s.baseAt(off), s.posAt(off));
            }
            return;
        }
        int shift = SegmentPrimitives.elementShift(array);
        while (count > 0) {
            int whole = (int) Math.min(count, s.bytesLeftInChunk(off) >>> shift);
            if (whole == 0) {
                // An 8-byte element across a chunk boundary (an offset not a multiple of 8).
                if (out) {
                    setElementBits(array, index, s.loadStraddling(off, 8));
                } else {
                    s.storeStraddling(off, elementBits(array, index), 8);
                }
                whole = 1;
            } else if (out) {
                s.copyToArray(s.baseAt(off), s.posAt(off), array, index, whole);
            } else {
                s.copyFromArray(array, index, whole, s.baseAt(off), s.posAt(off));
            }
            off += (long) whole << shift;
            index += whole;
            count -= whole;
        }
    }

    private static void setElementBits(Object array, int index, long bits) {
        if (array instanceof double[]) {
            ((double[]) array)[index] = Double.longBitsToDouble(bits);
        } else {
            ((long[]) array)[index] = bits;
        }
    }

    private static long elementBits(Object array, int index) {
        return array instanceof double[] ? Double.doubleToRawLongBits(((double[]) array)[index]) : ((long[]) array)[index];
    }

    /** Copies {@code [off, off + dst.remaining())} of {@code s} into {@code dst} at its position, which moves on. */
    static void copyTo(AbstractSegment s, long off, ByteBuffer dst) {
        long len = dst.remaining();
        while (len > 0) {
            ChunkRegion r = s.regionAt(off, len);
            dst.put(r.asByteBuffer());
            off += r.length();
            len -= r.length();
        }
    }

    /** Copies {@code src}'s remaining bytes into {@code s} from {@code off}; its position moves on, its limit stays. */
    static void copyFrom(AbstractSegment s, ByteBuffer src, long off) {
        long len = src.remaining();
        int limitBefore = src.limit();
        try {
            while (len > 0) {
                ChunkRegion r = s.regionAt(off, len);
                src.limit(src.position() + r.length());
                r.asByteBuffer().put(src);
                off += r.length();
                len -= r.length();
            }
        } finally {
            src.limit(limitBefore);
        }
    }

    /**
     * Copies {@code [off, off + len)} of {@code s} to {@code [dstOff, dstOff + len)} of {@code dst},
     * as {@code System.arraycopy} would if the two overlap.
     */
    static void copyTo(AbstractSegment s, long off, Segment dst, long dstOff, long len) {
        if (len > 0 && len <= Integer.MAX_VALUE && dst.getClass() == s.getClass()) {
            // Both ranges in one chunk each (a map entry, an undo record: nearly every call): one
            // copy, which overlapping ranges survive as they do System.arraycopy.
            AbstractSegment d = (AbstractSegment) dst;
            if (s.inOneChunk(off, len) && d.inOneChunk(dstOff, len)) {
                s.copyMemory(s.baseAt(off), s.posAt(off), d.baseAt(dstOff), d.posAt(dstOff), (int) len);
                return;
            }
        }
        copyAcrossChunks(s, off, dst, dstOff, len);
    }

    /** {@link #copyTo(AbstractSegment, long, Segment, long, long)} of ranges not in one chunk each, or between kinds of segment. */
    private static void copyAcrossChunks(AbstractSegment s, long off, Segment dst, long dstOff, long len) {
        boolean sameMemory = dst instanceof AbstractSegment && ((AbstractSegment) dst).memory == s.memory;
        if (sameMemory && dstOff > off && dstOff < off + len) {
            copyBackward(s, off, dst, dstOff, len);
            return;
        }
        while (len > 0) {
            ChunkRegion src = s.regionAt(off, len);
            int at = 0;
            for (Region d : dst.regions(dstOff, src.length())) {
                src.copyTo(at, d, 0, d.length());
                at += d.length();
            }
            off += src.length();
            dstOff += src.length();
            len -= src.length();
        }
    }

    // Overlapping across chunks with the destination ahead of the source: copy from the end
    // through a buffer, so every byte is read before the copy overwrites it.
    private static void copyBackward(AbstractSegment s, long off, Segment dst, long dstOff, long len) {
        byte[] buffer = new byte[(int) Math.min(len, BACKWARD_BUFFER)];
        long remaining = len;
        while (remaining > 0) {
            int n = (int) Math.min(remaining, buffer.length);
            remaining -= n;
            copyArray(s, off + remaining, buffer, 0, n, true);
            dst.copyFrom(buffer, 0, dstOff + remaining, n);
        }
    }

    /** Sets {@code [off, off + len)} of {@code s} to {@code value}, straight from the chunk table: no region per chunk. */
    static void fill(AbstractSegment s, long off, long len, byte value) {
        while (len > 0) {
            int n = (int) Math.min(len, s.bytesLeftInChunk(off));
            s.fillMemory(s.baseAt(off), s.posAt(off), n, value);
            off += n;
            len -= n;
        }
    }
}
