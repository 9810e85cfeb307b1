package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INCRBYFLOAT's arithmetic against the replies of Redis 7.0.15 on x86-64 (recorded from a real
 * redis-server; {@link RedisDifferentialTest} compares with a live one where it is installed).
 */
class LongDoubleTest {

    private static LongDouble.Value parse(String s) {
        return LongDouble.parse(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** @return what Redis answers to SET k a; INCRBYFLOAT k b, or null for "not a valid float" */
    private static String incr(String a, String b) {
        LongDouble.Value x = parse(a);
        LongDouble.Value y = parse(b);
        if (x == null || y == null) {
            return null;
        }
        LongDouble.Value sum = LongDouble.add(x, y);
        return sum.infinite() ? "inf" : LongDouble.format(sum.value());
    }

    @Test
    void sumsArePrintedAsRedisPrintsThem() {
        assertEquals("0.3", incr("0.1", "0.2"));
        assertEquals("0.60000000000000004", incr("0.3", "0.30000000000000004"));
        assertEquals("1000.00000000015000001", incr("1000", "1.5e-10"));
        assertEquals("10.6", incr("10.50", "0.1"));
        assertEquals("5200", incr("5.0e3", "2.0e2"));
        assertEquals("2.23456789012345678", incr("1", "1.23456789012345678"));
        assertEquals("123456799.72345678899728227", incr("10.6", "123456789.123456789"));
        assertEquals("9223372036854775808", incr("9223372036854775807", "1"));
        assertEquals("-9223372036854770808", incr("-9223372036854775808", "5.0e3"));
        assertEquals("9223372036854775810", incr("9223372036854775807", "3"));
        assertEquals("17", incr("0x10", "1"));
        assertEquals("3.125", incr("0x1p-3", "0X1.8P1"));
        assertEquals("0", incr("0", "1e-320"));
        assertEquals("0", incr("-0", "0"));
        assertEquals("-7.25", incr(".5", "-7.75"));
        assertEquals("5", incr("+.5e1", "0"));
    }

    @Test
    void theRangeIsLongDoubles() {
        // 1e308 + 1e308 overflows a double, not a long double
        assertEquals("199999999999999999993371759311691291321120199694831134415594095989843469737676123744200253843777"
                + "078640893494450108026446304269499187921167194841628860392837535918200039206381557326219209014213"
                + "335878306791577877829121087126122536729803237260434173178506889763247582601711514636284849020905"
                + "456510092687857156096", incr("1e308", "1e308"));
        assertEquals(4933, incr("1e4932", "0").length());
        assertEquals("inf", incr("1e4932", "1e4932"));
        assertNull(parse("1e4933"), "overflow on reading");
        assertNull(parse("1e-5000"), "underflow to zero on reading");
        assertTrue(parse("1e-4950").value().signum() > 0, "a subnormal is a value");
        assertEquals(BigDecimal.ZERO, parse("0e-99999").value());
        assertNull(parse("1e99999999999"));
    }

    @Test
    void onlyWhatStrtoldReadsWhollyIsAFloat() {
        for (String bad : new String[] {"", " 1", "1 ", "abc", "1e", "1e+", "-", ".", "e5", "0x", "0x1p", "nan",
                "NaN", "1.5f", "1d", "1,5", "--1", "+-1", "infin", "0x1.8p1.5"}) {
            assertNull(parse(bad), bad);
        }
        for (String inf : new String[] {"inf", "-inf", "INF", "Infinity", "-infinity", "+inf"}) {
            assertTrue(parse(inf).infinite(), inf);
        }
        assertEquals("inf", incr("inf", "-inf"), "inf - inf is NaN: refused as well");
        assertEquals("1.5", LongDouble.format(parse("1.").value().add(parse(".5").value())));
    }
}
