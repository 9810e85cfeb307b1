package dev.ferrite.kv.server;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * INCRBYFLOAT's arithmetic as Redis does it on x86-64: operands read as C's {@code strtold} reads
 * them into an 80-bit {@code long double} (64-bit significand, binary exponent from -16382, with
 * subnormals below), added in that precision, and the sum printed as {@code "%.17Lf"} with the
 * trailing zeros cut. So {@code 0.1 + 0.2} gives {@code 0.3} (not double's 0.30000000000000004),
 * and {@code 1000 + 1.5e-10} gives {@code 1000.00000000015000001}, digit for digit as Redis.
 *
 * <p>Values are exact {@link BigDecimal}s holding a representable {@code long double}; an
 * infinity is {@link Value#infinite()}. Stateless and thread-safe.
 */
final class LongDouble {

    /** An operand or sum: a finite representable value, or (value null) an infinity. */
    record Value(BigDecimal value) {
        boolean infinite() {
            return value == null;
        }
    }

    private static final Value INFINITE = new Value(null);
    /** Zero, what INCRBYFLOAT adds to for a missing key. */
    static final Value ZERO = new Value(BigDecimal.ZERO);
    /** Significand bits of the 80-bit format. */
    private static final int PRECISION = 64;
    /** Exponent of the largest power of two below the largest finite value: 2^16383. */
    private static final int MAX_EXPONENT = 16383;
    /** Exponent of the lowest bit of the smallest subnormal: 2^-16445. */
    private static final int MIN_LOW_BIT = -16382 - (PRECISION - 1);
    /** Longest operand Redis reads (its MAX_LONG_DOUBLE_CHARS buffer, with the terminating 0). */
    private static final int MAX_CHARS = 5 * 1024 - 1;
    /** Decimal exponents beyond these over- or underflow whatever the digits. */
    private static final int MAX_DECIMAL_EXPONENT = 4933;
    private static final int MIN_DECIMAL_EXPONENT = -4952;
    private static final double LOG2_10 = Math.log(10) / Math.log(2);

    private LongDouble() {
    }

    /**
     * Reads an operand as Redis's {@code string2ld}: decimal or hexadecimal ({@code 0x1.8p3})
     * notation, or {@code inf}/{@code infinity} in any case, with an optional sign; no space before
     * or after, nothing left over, no NaN, no overflow, no nonzero value that underflows to zero.
     *
     * @return the value rounded to the 64-bit significand, or null if it is not a valid float
     */
    static Value parse(byte[] text) {
        if (text.length == 0 || text.length > MAX_CHARS) {
            return null;
        }
        String s = new String(text, StandardCharsets.ISO_8859_1);
        int start = s.charAt(0) == '+' || s.charAt(0) == '-' ? 1 : 0;
        boolean negative = s.charAt(0) == '-';
        String body = s.substring(start).toLowerCase(Locale.ROOT);
        if (body.equals("inf") || body.equals("infinity")) {
            return INFINITE;
        }
        BigDecimal exact = body.startsWith("0x") ? parseHex(body.substring(2)) : parseDecimal(body);
        if (exact == null) {
            return null;
        }
        if (exact.signum() == 0) {
            return ZERO;
        }
        Value rounded = round(negative ? exact.negate() : exact);
        if (rounded.infinite() || rounded.value().signum() == 0) {
            return null; // ERANGE: Redis refuses an overflow, and an underflow to zero
        }
        return rounded;
    }

    /** @return digits [. digits] [e [sign] digits] with at least one digit, exactly; null otherwise */
    private static BigDecimal parseDecimal(String body) {
        int digits = 0;
        int i = 0;
        while (i < body.length() && isDigit(body.charAt(i))) {
            i++;
            digits++;
        }
        if (i < body.length() && body.charAt(i) == '.') {
            i++;
            while (i < body.length() && isDigit(body.charAt(i))) {
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return null;
        }
        if (i < body.length() && body.charAt(i) == 'e') {
            int j = i + 1;
            if (j < body.length() && (body.charAt(j) == '+' || body.charAt(j) == '-')) {
                j++;
            }
            int expDigits = 0;
            while (j < body.length() && isDigit(body.charAt(j))) {
                j++;
                expDigits++;
            }
            if (expDigits == 0) {
                return null; // strtold would stop before the 'e': something is left over
            }
            i = j;
        }
        if (i != body.length()) {
            return null;
        }
        BigDecimal exact;
        try {
            exact = new BigDecimal(body);
        } catch (NumberFormatException | ArithmeticException e) {
            return tooFar(body); // an exponent past int: over- or underflow
        }
        if (exact.signum() == 0) {
            return BigDecimal.ZERO;
        }
        long decimalExponent = (long) exact.precision() - exact.scale() - 1;
        if (decimalExponent > MAX_DECIMAL_EXPONENT) {
            return null; // overflow
        }
        if (decimalExponent < MIN_DECIMAL_EXPONENT) {
            return null; // underflow to zero
        }
        return exact;
    }

    /** An operand whose exponent does not fit an int is out of range either way, unless it is zero. */
    private static BigDecimal tooFar(String body) {
        String significand = body.substring(0, body.indexOf('e'));
        return significand.chars().allMatch(c -> c == '0' || c == '.') ? BigDecimal.ZERO : null;
    }

    /** @return hex digits [. hex digits] [p [sign] digits] with at least one digit, exactly; null otherwise */
    private static BigDecimal parseHex(String body) {
        StringBuilder hexDigits = new StringBuilder();
        int fractionDigits = 0;
        int i = 0;
        boolean point = false;
        for (; i < body.length(); i++) {
            char c = body.charAt(i);
            if (Character.digit(c, 16) >= 0) {
                hexDigits.append(c);
                fractionDigits += point ? 1 : 0;
            } else if (c == '.' && !point) {
                point = true;
            } else {
                break;
            }
        }
        if (hexDigits.length() == 0) {
            return null; // "0x" alone: strtold reads the 0 and leaves the x
        }
        BigInteger significand = new BigInteger(hexDigits.toString(), 16);
        long exponent = 0;
        if (i < body.length() && body.charAt(i) == 'p') {
            int j = i + 1;
            boolean negative = false;
            if (j < body.length() && (body.charAt(j) == '+' || body.charAt(j) == '-')) {
                negative = body.charAt(j) == '-';
                j++;
            }
            int expDigits = 0;
            for (; j < body.length() && isDigit(body.charAt(j)); j++) {
                exponent = Math.min(exponent * 10 + (body.charAt(j) - '0'), 1L << 40);
                expDigits++;
            }
            if (expDigits == 0) {
                return null;
            }
            exponent = negative ? -exponent : exponent;
            i = j;
        }
        if (i != body.length()) {
            return null;
        }
        if (significand.signum() == 0) {
            return BigDecimal.ZERO;
        }
        long lowBit = exponent - 4L * fractionDigits;
        long highBit = lowBit + significand.bitLength() - 1;
        if (highBit > MAX_EXPONENT || highBit < MIN_LOW_BIT - 1) {
            return null; // overflow, or underflow to zero
        }
        return timesPowerOfTwo(significand, (int) lowBit);
    }

    /** @return the sum, rounded to the 64-bit significand; infinite if an operand is or the sum overflows */
    static Value add(Value a, Value b) {
        if (a.infinite() || b.infinite()) {
            return INFINITE; // inf + x, inf + inf and inf - inf: Redis refuses them all
        }
        return round(a.value().add(b.value()));
    }

    /**
     * Prints a finite value as {@code printf("%.17Lf")} and Redis after it: 17 decimals, rounded
     * half to even on the exact binary value, then trailing zeros (and a bare point) cut, and
     * {@code -0} printed as {@code 0}.
     */
    static String format(BigDecimal value) {
        String s = value.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        s = s.substring(0, end);
        return s.equals("-0") ? "0" : s;
    }

    /**
     * @return the representable value nearest to {@code exact} (ties to an even significand), or
     *         an infinity if it is too large
     */
    static Value round(BigDecimal exact) {
        if (exact.signum() == 0) {
            return ZERO;
        }
        BigDecimal abs = exact.abs();
        BigInteger unscaled = abs.unscaledValue();
        int scale = abs.scale();
        // abs = num / den exactly; the significand is abs / 2^lowBit, 64 bits long.
        BigInteger num = scale < 0 ? unscaled.multiply(BigInteger.TEN.pow(-scale)) : unscaled;
        BigInteger den = scale > 0 ? BigInteger.TEN.pow(scale) : BigInteger.ONE;
        long lowBit = (long) Math.floor(unscaled.bitLength() - 1 - scale * LOG2_10) - (PRECISION - 1);
        BigInteger[] qr;
        while (true) {
            lowBit = Math.max(lowBit, MIN_LOW_BIT);
            qr = lowBit >= 0 ? num.divideAndRemainder(den.shiftLeft((int) lowBit))
                    : num.shiftLeft((int) -lowBit).divideAndRemainder(den);
            int bits = qr[0].bitLength();
            if (bits > PRECISION) {
                lowBit += bits - PRECISION;
            } else if (bits < PRECISION && lowBit > MIN_LOW_BIT) {
                lowBit -= PRECISION - bits;
            } else {
                break;
            }
        }
        BigInteger significand = qr[0];
        BigInteger divisor = lowBit >= 0 ? den.shiftLeft((int) lowBit) : den;
        int half = qr[1].shiftLeft(1).compareTo(divisor);
        if (half > 0 || half == 0 && significand.testBit(0)) {
            significand = significand.add(BigInteger.ONE);
            if (significand.bitLength() > PRECISION) {
                significand = significand.shiftRight(1);
                lowBit++;
            }
        }
        if (lowBit + PRECISION - 1 > MAX_EXPONENT) {
            return INFINITE;
        }
        BigDecimal rounded = timesPowerOfTwo(significand, (int) lowBit);
        return new Value(exact.signum() < 0 ? rounded.negate() : rounded);
    }

    /** @return {@code m * 2^e} exactly */
    private static BigDecimal timesPowerOfTwo(BigInteger m, int e) {
        return e >= 0 ? new BigDecimal(m.shiftLeft(e)) : new BigDecimal(m.multiply(BigInteger.valueOf(5).pow(-e)), -e);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
