package dev.ferrite.kv.server;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Parsing of command arguments as Redis parses them. Stateless. */
final class Args {

    private Args() {
    }

    /** @return the bytes as lower-case ISO-8859-1 text (command and option names) */
    static String lower(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a decimal integer as Redis's {@code string2ll}: optional minus, digits, no leading
     * zero (except "0"), no plus sign, no spaces, within a long.
     *
     * @return the value, or null if the bytes are not such an integer
     */
    static Long parseLong(byte[] b) {
        return parseLong(b, 0, b.length);
    }

    /** {@link Long#MIN_VALUE} in decimal: the one value whose digits cannot be found by negating it. */
    private static final byte[] MIN_LONG_TEXT = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

    /**
     * Writes {@code v} in decimal, as {@link Long#toString(long)} does, into {@code dst} from
     * index 0, without making a String.
     *
     * @param dst at least 20 bytes (the length of {@link Long#MIN_VALUE}'s form)
     * @return how many bytes were written, 1 to 20
     */
    static int writeDecimal(long v, byte[] dst) {
        if (v == Long.MIN_VALUE) {
            System.arraycopy(MIN_LONG_TEXT, 0, dst, 0, MIN_LONG_TEXT.length);
            return MIN_LONG_TEXT.length;
        }
        int sign = 0;
        if (v < 0) {
            dst[0] = '-';
            v = -v;
            sign = 1;
        }
        int end = sign + 1;
        for (long t = v / 10; t > 0; t /= 10) {
            end++;
        }
        for (int i = end - 1; i >= sign; i--) {
            dst[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return end;
    }

    /** As {@link #parseLong(byte[])} over {@code b[from, from + n)}. */
    static Long parseLong(byte[] b, int from, int n) {
        if (n == 0 || n > 20) {
            return null;
        }
        int i = from;
        int end = from + n;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
            if (n == 1) {
                return null;
            }
        }
        if (b[i] == '0' && (end - i > 1 || negative)) {
            return null;
        }
        long v = 0;
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return null;
            }
            // Accumulate negatively so Long.MIN_VALUE parses.
            if (v < (Long.MIN_VALUE + d) / 10) {
                return null;
            }
            v = v * 10 - d;
        }
        if (!negative) {
            if (v == Long.MIN_VALUE) {
                return null;
            }
            v = -v;
        }
        return v;
    }
}
