package dev.ferrite.queue;

import dev.ferrite.Segment;

/**
 * Self-checking test messages: a sequence number, a producer id, filler derived from both, and a
 * checksum over all of it, so a torn or misplaced message is caught.
 */
final class Messages {

    /** Smallest message: seq (8) + producer (4) + checksum (8). */
    static final int MIN_LENGTH = 20;

    private Messages() {
    }

    static int lengthFor(long seq, int maxExtra) {
        return MIN_LENGTH + (int) Long.remainderUnsigned(mix(seq) >>> 7, maxExtra + 1);
    }

    static byte[] make(long seq, int producer, int length) {
        byte[] m = new byte[length];
        for (int i = 0; i < 8; i++) {
            m[i] = (byte) (seq >>> (8 * i));
        }
        for (int i = 0; i < 4; i++) {
            m[8 + i] = (byte) (producer >>> (8 * i));
        }
        long filler = mix(seq * 31 + producer);
        for (int i = 12; i < length - 8; i++) {
            m[i] = (byte) (filler >>> (8 * (i & 7)));
        }
        long sum = checksum(m, length - 8);
        for (int i = 0; i < 8; i++) {
            m[length - 8 + i] = (byte) (sum >>> (8 * i));
        }
        return m;
    }

    /** A decoded message, or an AssertionError if it is not intact. */
    record Decoded(long seq, int producer) {
    }

    static Decoded check(Segment segment, long offset, int length) {
        byte[] m = new byte[length];
        segment.copyTo(offset, m, 0, length);
        return check(m);
    }

    static Decoded check(byte[] m) {
        int length = m.length;
        if (length < MIN_LENGTH) {
            throw new AssertionError("message of " + length + " bytes is shorter than " + MIN_LENGTH);
        }
        long sum = 0;
        for (int i = 0; i < 8; i++) {
            sum |= (m[length - 8 + i] & 0xFFL) << (8 * i);
        }
        if (sum != checksum(m, length - 8)) {
            throw new AssertionError("message checksum mismatch (torn or corrupt message)");
        }
        long seq = 0;
        for (int i = 0; i < 8; i++) {
            seq |= (m[i] & 0xFFL) << (8 * i);
        }
        int producer = 0;
        for (int i = 0; i < 4; i++) {
            producer |= (m[8 + i] & 0xFF) << (8 * i);
        }
        byte[] expected = make(seq, producer, length);
        if (!java.util.Arrays.equals(expected, m)) {
            throw new AssertionError("message " + seq + " of producer " + producer + " has wrong filler");
        }
        return new Decoded(seq, producer);
    }

    private static long checksum(byte[] m, int n) {
        long h = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < n; i++) {
            h = (h ^ (m[i] & 0xFF)) * 0x100000001B3L;
        }
        return h;
    }

    static long mix(long x) {
        x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
        x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return x ^ (x >>> 33);
    }
}
