package dev.ferrite.kv.server;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Sorted-set scores as text: read as Redis reads them ({@code strtod}: decimal or hexadecimal,
 * {@code inf}, no NaN, no space, nothing left over, no overflow, no underflow to zero) and written
 * as Redis 7.2 writes them (the shortest digits that read back to the same double, in
 * {@code %.17g}'s layout: {@code 1.5}, {@code 1e+20}, {@code inf}). Stateless.
 */
final class Scores {

    /** Digits {@link #plainDecimal} reads, leading zeros counted: the integer they make is below 2^53, so exact. */
    private static final int PLAIN_DIGITS = 15;
    /** Powers of ten, 10^0 to 10^15: each exact in a double. */
    private static final double[] EXACT_POWERS = new double[PLAIN_DIGITS + 1];

    /** Integral scores below this magnitude are written by {@link Long#toString}: fewer than 17 digits, no exponent. */
    private static final double PLAIN_INTEGRAL = 1e15;

    static {
        EXACT_POWERS[0] = 1;
        for (int i = 1; i < EXACT_POWERS.length; i++) {
            EXACT_POWERS[i] = EXACT_POWERS[i - 1] * 10;
        }
    }

    private Scores() {
    }

    /**
     * @return the score, -0 read as 0, or null if the text is not a valid float (as Redis's
     *         {@code ERR value is not a valid float} says)
     */
    static Double parse(byte[] text) {
        double plain = plainDecimal(text);
        if (!Double.isNaN(plain)) {
            return plain + 0.0;
        }
        LongDouble.Value checked = LongDouble.parse(text);
        if (checked == null) {
            return null;
        }
        if (checked.infinite()) {
            return text[0] == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        String s = new String(text, StandardCharsets.ISO_8859_1);
        boolean hex = s.regionMatches(true, s.startsWith("+") || s.startsWith("-") ? 1 : 0, "0x", 0, 2);
        double d = hex ? checked.value().doubleValue() : Double.parseDouble(s);
        if (Double.isInfinite(d) || d == 0 && checked.value().signum() != 0) {
            return null; // out of a double's range, as strtod's ERANGE
        }
        return d + 0.0;
    }

    /**
     * Reads the usual score, {@code [+-]digits[.digits]} with at most 15 digits, without
     * allocating: its digits make an exact integer and the division by an exact power of ten
     * rounds once, so the result is the correctly rounded double, as {@code strtod}'s; such a text
     * can neither overflow nor underflow.
     *
     * @return the value, or NaN for any other text (the caller reads it the general way)
     */
    private static double plainDecimal(byte[] text) {
        int n = text.length;
        int i = n > 0 && (text[0] == '-' || text[0] == '+') ? 1 : 0;
        boolean negative = i == 1 && text[0] == '-';
        long digits = 0;
        int count = 0;
        int point = -1;
        for (; i < n; i++) {
            int c = text[i];
            if (c >= '0' && c <= '9') {
                if (++count > PLAIN_DIGITS) {
                    return Double.NaN;
                }
                digits = digits * 10 + (c - '0');
            } else if (c == '.' && point < 0) {
                point = count;
            } else {
                return Double.NaN;
            }
        }
        int fraction = point < 0 ? 0 : count - point;
        if (count == 0 || point == count) {
            return Double.NaN; // no digit, or none after the point: the general reader decides
        }
        double value = digits / EXACT_POWERS[fraction];
        return negative ? -value : value;
    }

    /** @return the score as Redis writes it in a reply */
    static byte[] format(double d) {
        return text(d).getBytes(StandardCharsets.US_ASCII);
    }

    /** @return the score as Redis writes it in a reply */
    static String text(double d) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return "0";
        }
        if (Math.abs(d) < PLAIN_INTEGRAL && d == Math.rint(d)) {
            return Long.toString((long) d);
        }
        BigDecimal exact = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
        String digits = exact.unscaledValue().toString();
        int exponent = digits.length() - exact.scale() - 1; // of the first digit
        StringBuilder out = new StringBuilder(24);
        if (d < 0) {
            out.append('-');
        }
        if (exponent < -4 || exponent >= 17) {
            out.append(digits.charAt(0));
            if (digits.length() > 1) {
                out.append('.').append(digits, 1, digits.length());
            }
            out.append('e').append(exponent < 0 ? '-' : '+');
            int e = Math.abs(exponent);
            if (e < 10) {
                out.append('0');
            }
            return out.append(e).toString();
        }
        if (exponent < 0) {
            out.append("0.");
            out.append("0".repeat(-exponent - 1));
            return out.append(digits).toString();
        }
        if (digits.length() <= exponent + 1) {
            return out.append(digits).append("0".repeat(exponent + 1 - digits.length())).toString();
        }
        return out.append(digits, 0, exponent + 1).append('.').append(digits, exponent + 1, digits.length()).toString();
    }
}
