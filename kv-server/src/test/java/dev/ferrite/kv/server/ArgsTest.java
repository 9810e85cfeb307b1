package dev.ferrite.kv.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Args}' decimal writer against {@link Long#toString(long)}, and back through the parser. */
class ArgsTest {

    @Test
    void writeDecimalWritesWhatLongToStringWrites() {
        Random random = new Random(7);
        long[] edges = {0, 1, -1, 9, 10, -9, -10, 99, 100, 999_999_999, 1_000_000_000, Long.MAX_VALUE,
                Long.MAX_VALUE - 1, Long.MIN_VALUE, Long.MIN_VALUE + 1};
        byte[] dst = new byte[20];
        for (int n = 0; n < 100_000 + edges.length; n++) {
            long v = n < edges.length ? edges[n]
                    : random.nextLong() >> random.nextInt(64); // every magnitude, both signs
            int length = Args.writeDecimal(v, dst);
            String expected = Long.toString(v);
            assertEquals(expected, new String(dst, 0, length, StandardCharsets.US_ASCII), "value " + v);
            assertEquals(v, Args.parseLong(dst, 0, length), "parsed back: " + v);
        }
    }
}
