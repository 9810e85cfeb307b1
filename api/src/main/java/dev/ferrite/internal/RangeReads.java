package dev.ferrite.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reads of a whole range of a segment, walked chunk by chunk: its XXH64 ({@link XxHash64}'s
 * specification) and where it first differs from an array or another segment. The caller has
 * checked the ranges ({@link AbstractSegment} does, before it calls these). Stateless; as
 * thread-safe as the segment's memory.
 */
final class RangeReads {

    private static final VarHandle LONGS_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private RangeReads() {
    }

    /** @return XXH64 (seed 0) of {@code [off, off + len)} of {@code s} */
    static long hash64(AbstractSegment s, long off, long len) {
        if (len == 0 || s.inOneChunk(off, len)) {
            return hashInChunk(s, s.baseAt(off), s.posAt(off), len);
        }
        return hashAcrossChunks(s, off, len);
    }

    /**
     * XXH64 of a range that lies in one chunk (a map entry, a key: nearly every call), read from one
     * base without a walk per word; small enough for the JIT to inline into its caller.
     */
    private static long hashInChunk(AbstractSegment s, Object base, long pos, long len) {
        long p = pos;
        long end = pos + len;
        long h;
        if (len >= 32) {
            long v1 = XxHash64.P1 + XxHash64.P2;
            long v2 = XxHash64.P2;
            long v3 = 0;
            long v4 = -XxHash64.P1;
            for (; p <= end - 32; p += 32) {
                v1 = XxHash64.round(v1, s.loadLong(base, p));
                v2 = XxHash64.round(v2, s.loadLong(base, p + 8));
                v3 = XxHash64.round(v3, s.loadLong(base, p + 16));
                v4 = XxHash64.round(v4, s.loadLong(base, p + 24));
            }
            h = XxHash64.converge(v1, v2, v3, v4);
        } else {
            h = XxHash64.P5;
        }
        h += len;
        for (; p <= end - 8; p += 8) {
            h = XxHash64.tailLong(h, s.loadLong(base, p));
        }
        if (p <= end - 4) {
            h = XxHash64.tailInt(h, s.loadInt(base, p));
            p += 4;
        }
        for (; p < end; p++) {
            h = XxHash64.tailByte(h, s.loadByte(base, p));
        }
        return XxHash64.avalanche(h);
    }

    /** XXH64 of a range over a chunk boundary: each word through the walk. */
    private static long hashAcrossChunks(AbstractSegment s, long off, long len) {
        long p = off;
        long end = off + len;
        long h;
        if (len >= 32) {
            long v1 = XxHash64.P1 + XxHash64.P2;
            long v2 = XxHash64.P2;
            long v3 = 0;
            long v4 = -XxHash64.P1;
            for (; p <= end - 32; p += 32) {
                v1 = XxHash64.round(v1, s.loadLongAt(p));
                v2 = XxHash64.round(v2, s.loadLongAt(p + 8));
                v3 = XxHash64.round(v3, s.loadLongAt(p + 16));
                v4 = XxHash64.round(v4, s.loadLongAt(p + 24));
            }
            h = XxHash64.converge(v1, v2, v3, v4);
        } else {
            h = XxHash64.P5;
        }
        h += len;
        for (; p <= end - 8; p += 8) {
            h = XxHash64.tailLong(h, s.loadLongAt(p));
        }
        if (p <= end - 4) {
            h = XxHash64.tailInt(h, s.loadIntAt(p));
            p += 4;
        }
        for (; p < end; p++) {
            h = XxHash64.tailByte(h, s.loadByte(s.baseAt(p), s.posAt(p)));
        }
        return XxHash64.avalanche(h);
    }

    /** @return the index of the first byte of {@code [off, off + len)} of {@code s} unlike {@code other}'s, or -1 */
    static long mismatch(AbstractSegment s, long off, byte[] other, int otherOff, int len) {
        if (len >= 8) {
            // The first eight bytes, the middle ones eight a step, then eight ending at len (they may
            // overlap the step before, whose bytes were equal): a key of 8 to 16 bytes takes two
            // compares and no loop, and no length of eight or more a byte-wise tail.
            long diff = s.loadLongAt(off) ^ (long) LONGS_LE.get(other, otherOff);
            if (diff != 0) {
                return Long.numberOfTrailingZeros(diff) >>> 3;
            }
            int last = len - 8;
            for (int i = 8; i < last; i += 8) {
                diff = s.loadLongAt(off + i) ^ (long) LONGS_LE.get(other, otherOff + i);
                if (diff != 0) {
                    return i + (Long.numberOfTrailingZeros(diff) >>> 3);
                }
            }
            diff = s.loadLongAt(off + last) ^ (long) LONGS_LE.get(other, otherOff + last);
            return diff == 0 ? -1 : last + (Long.numberOfTrailingZeros(diff) >>> 3);
        }
        for (int i = 0; i < len; i++) {
            if (s.loadByte(s.baseAt(off + i), s.posAt(off + i)) != other[otherOff + i]) {
                return i;
            }
        }
        return -1;
    }

    /** @return the index of the first byte of {@code [off, off + len)} of {@code s} unlike {@code o}'s from {@code otherOff}, or -1 */
    static long mismatch(AbstractSegment s, long off, AbstractSegment o, long otherOff, long len) {
        long i = 0;
        for (; i <= len - 8; i += 8) {
            long diff = s.loadLongAt(off + i) ^ o.loadLongAt(otherOff + i);
            if (diff != 0) {
                return i + (Long.numberOfTrailingZeros(diff) >>> 3);
            }
        }
        for (; i < len; i++) {
            if (s.loadByte(s.baseAt(off + i), s.posAt(off + i)) != o.loadByte(o.baseAt(otherOff + i), o.posAt(otherOff + i))) {
                return i;
            }
        }
        return -1;
    }
}
