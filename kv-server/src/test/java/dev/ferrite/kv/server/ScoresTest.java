package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Sorted-set scores: their text in and out ({@link Scores}) against Redis's examples and a
 * round-trip property, and their order in the collection store's keys ({@link CollectionLayout#order})
 * against {@link Double#compare} on random doubles.
 */
class ScoresTest {

    private static Double parse(String text) {
        return Scores.parse(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void scoresAreWrittenAsRedisSevenTwoWritesThem() {
        String[][] cases = {{"1.5", "1.5"}, {"1e20", "1e+20"}, {"0.1", "0.1"}, {"1e-5", "1e-05"}, {"123456.5", "123456.5"},
            {"1e16", "10000000000000000"}, {"1e17", "1e+17"}, {"-2.25", "-2.25"}, {"inf", "inf"}, {"-inf", "-inf"},
            {"0.0001", "0.0001"}, {"0.00001234", "1.234e-05"}, {"0", "0"}, {"-0", "0"}, {"3", "3"}, {"-100", "-100"},
            {"1.7976931348623157e308", "1.7976931348623157e+308"}, {"1.1", "1.1"}, {"1e300", "1e+300"}};
        for (String[] c : cases) {
            assertEquals(c[1], Scores.text(parse(c[0])), c[0]);
        }
    }

    @Test
    void scoresAreReadAsRedisReadsThem() {
        assertEquals(16.0, parse("0x10"));
        assertEquals(Double.POSITIVE_INFINITY, parse("+inf"));
        assertEquals(Double.POSITIVE_INFINITY, parse("Infinity"));
        assertEquals(Double.NEGATIVE_INFINITY, parse("-inf"));
        assertEquals(0.5, parse(".5"));
        assertEquals(0.0, parse("-0"));
        for (String invalid : new String[] {"nan", "NaN", "", " 1", "1 ", "1e400", "-1e400", "1e-400", "1d", "1f", "abc",
            "1.5.", "--1", "0x"}) {
            assertNull(parse(invalid), invalid);
        }
    }

    @Test
    void shortDecimalsReadAsStrtodReadsThem() {
        // the texts the allocation-free reader takes (up to 15 digits, a point, a sign) and some just past it
        Random rng = new Random(11);
        for (int i = 0; i < 200_000; i++) {
            StringBuilder text = new StringBuilder();
            int sign = rng.nextInt(3);
            text.append(sign == 0 ? "" : sign == 1 ? "-" : "+");
            int digits = 1 + rng.nextInt(17);
            int point = rng.nextInt(digits + 2) - 1; // -1: none
            for (int d = 0; d < digits; d++) {
                if (d == point) {
                    text.append('.');
                }
                text.append((char) ('0' + rng.nextInt(10)));
            }
            String t = text.toString();
            assertEquals(Double.parseDouble(t) + 0.0, parse(t), t);
        }
        for (String t : new String[] {"5.", "-.5", "+0", "-0.0", "000000000000000", "999999999999999", "0.000000000000001"}) {
            assertEquals(Double.parseDouble(t) + 0.0, parse(t), t);
        }
        for (String invalid : new String[] {".", "-", "+", "1..2", "1.2.3", "-+1", "1-"}) {
            assertNull(parse(invalid), invalid);
        }
    }

    @Test
    void integralScoresAreWrittenAsTheirExactDigits() {
        // below 1e15 the digits of an integral double are its shortest text, as Redis writes it
        Random rng = new Random(5);
        for (int i = 0; i < 200_000; i++) {
            double d = Math.floor(rng.nextDouble() * Math.pow(10, rng.nextInt(16))) * (rng.nextBoolean() ? 1 : -1);
            String expected = d == 0 ? "0" : new java.math.BigDecimal(d).toPlainString();
            assertEquals(expected, Scores.text(d), expected);
        }
        assertEquals("999999999999999", Scores.text(999_999_999_999_999.0));
        assertEquals("1000000000000000", Scores.text(1e15));
    }

    @Test
    void everyDoubleReadsBackFromItsText() {
        Random rng = new Random(42);
        for (int i = 0; i < 200_000; i++) {
            double d = i % 2 == 0 ? Double.longBitsToDouble(rng.nextLong()) : rng.nextInt(2000) / 8.0 - 100;
            if (Double.isNaN(d)) {
                continue;
            }
            String text = Scores.text(d);
            assertEquals(d + 0.0, Double.parseDouble(text), text);
            assertEquals(d + 0.0, parse(text), text);
        }
    }

    @Test
    void theOrderOfScoreKeysIsTheOrderOfScores() {
        Random rng = new Random(7);
        double[] special = {Double.NEGATIVE_INFINITY, -Double.MAX_VALUE, -1, -Double.MIN_VALUE, -0.0, 0.0,
            Double.MIN_VALUE, 1, Double.MAX_VALUE, Double.POSITIVE_INFINITY};
        for (int i = 0; i < 200_000; i++) {
            double a = i < special.length * special.length ? special[i % special.length] : Double.longBitsToDouble(rng.nextLong());
            double b = i < special.length * special.length ? special[i / special.length] : Double.longBitsToDouble(rng.nextLong());
            if (Double.isNaN(a) || Double.isNaN(b)) {
                continue;
            }
            assertEquals(Integer.signum(Double.compare(a + 0.0, b + 0.0)),
                    Integer.signum(Long.compareUnsigned(CollectionLayout.order(a), CollectionLayout.order(b))), a + " vs " + b);
            byte[] key = CollectionLayout.scoreKey(9, a, new byte[] {1, 2});
            assertEquals(a + 0.0, CollectionLayout.scoreOf(key));
            assertArrayEquals(new byte[] {1, 2}, CollectionLayout.scoreMember(key));
            assertEquals(a, CollectionLayout.scoreValueOf(CollectionLayout.scoreValue(a)));
        }
    }
}
