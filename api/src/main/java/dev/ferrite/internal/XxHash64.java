package dev.ferrite.internal;

/**
 * XXH64 with seed 0 (Yann Collet's xxHash, 64-bit): the hash {@code Segment.hash64} computes, and
 * the same function over a heap array, so a key hashed in place in a segment and the same key
 * given as a {@code byte[]} hash alike. Bytes are read little-endian, as the specification says.
 * Stateless; thread-safe.
 */
public final class XxHash64 {

    static final long P1 = 0x9E3779B185EBCA87L;
    static final long P2 = 0xC2B2AE3D27D4EB4FL;
    static final long P3 = 0x165667B19E3779F9L;
    static final long P4 = 0x85EBCA77C2B2AE63L;
    static final long P5 = 0x27D4EB2F165667C5L;

    private XxHash64() {
    }

    /** The per-lane step: one 8-byte input into one accumulator. */
    static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * P2, 31) * P1;
    }

    static long merge(long h, long lane) {
        return (h ^ round(0, lane)) * P1 + P4;
    }

    /** Folds the four lanes of the 32-byte stripes into one value. */
    static long converge(long v1, long v2, long v3, long v4) {
        long h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
        return merge(merge(merge(merge(h, v1), v2), v3), v4);
    }

    static long tailLong(long h, long k) {
        return Long.rotateLeft(h ^ round(0, k), 27) * P1 + P4;
    }

    static long tailInt(long h, int k) {
        return Long.rotateLeft(h ^ (k & 0xFFFFFFFFL) * P1, 23) * P2 + P3;
    }

    static long tailByte(long h, byte b) {
        return Long.rotateLeft(h ^ (b & 0xFFL) * P5, 11) * P1;
    }

    static long avalanche(long h) {
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        return h ^ h >>> 32;
    }

    /**
     * @param b   an array
     * @param off first byte
     * @param len number of bytes
     * @return XXH64, seed 0, of {@code b[off, off + len)}
     * @throws IndexOutOfBoundsException if the range is not inside the array
     */
    public static long hash(byte[] b, int off, int len) {
        if ((off | len) < 0 || len > b.length - off) { // compared, not a call to inline: see AbstractSegment.checkRange
            throw new IndexOutOfBoundsException("range [" + off + ", " + off + " + " + len
                    + ") is outside an array of length " + b.length);
        }
        int p = off;
        int end = off + len;
        long h;
        if (len >= 32) {
            long v1 = P1 + P2;
            long v2 = P2;
            long v3 = 0;
            long v4 = -P1;
            for (; p <= end - 32; p += 32) {
                v1 = round(v1, longAt(b, p));
                v2 = round(v2, longAt(b, p + 8));
                v3 = round(v3, longAt(b, p + 16));
                v4 = round(v4, longAt(b, p + 24));
            }
            h = converge(v1, v2, v3, v4);
        } else {
            h = P5;
        }
        h += len;
        // At most three words are left: read in line, not by a loop (a key's hash, on every lookup).
        int words = (end - p) >>> 3;
        if (words > 0) {
            h = tailLong(h, longAt(b, p));
            if (words > 1) {
                h = tailLong(h, longAt(b, p + 8));
                if (words > 2) {
                    h = tailLong(h, longAt(b, p + 16));
                }
            }
            p += words << 3;
        }
        if (p <= end - 4) {
            h = tailInt(h, (int) (longAt4(b, p)));
            p += 4;
        }
        for (; p < end; p++) {
            h = tailByte(h, b[p]);
        }
        return avalanche(h);
    }

    private static long longAt(byte[] b, int p) {
        return (long) LONGS.get(b, p);
    }

    private static long longAt4(byte[] b, int p) {
        return (int) INTS.get(b, p);
    }

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.invoke.VarHandle INTS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            int[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
}
