package dev.ferrite.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** XXH64 (seed 0) against published values of the reference implementation. */
class XxHash64Test {

    private static long hash(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return XxHash64.hash(b, 0, b.length);
    }

    @Test
    void matchesTheReferenceValues() {
        assertEquals(0xEF46DB3751D8E999L, hash(""));
        assertEquals(0xD24EC4F1A98C6E5BL, hash("a"));
        assertEquals(0x44BC2CF5AD770999L, hash("abc"));
        // 39 bytes: one 32-byte stripe, then a 4-byte and three 1-byte steps.
        assertEquals(0xFBCEA83C8A378BF1L, hash("Nobody inspects the spammish repetition"));
    }

    @Test
    void anOffsetIntoALargerArrayHashesOnlyTheRange() {
        byte[] b = "xxabcxx".getBytes(StandardCharsets.US_ASCII);
        assertEquals(hash("abc"), XxHash64.hash(b, 2, 3));
    }
}
