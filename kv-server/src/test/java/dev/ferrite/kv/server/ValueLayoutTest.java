package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stored value's bytes exactly as docs/FORMAT.md ("KV server value, version 1") gives them. */
class ValueLayoutTest {

    @Test
    void offsetsAndBytesAreThoseOfTheFormatDocument() {
        assertEquals(0, ValueLayout.EXPIRE_AT);
        assertEquals(8, ValueLayout.DATA);
        assertEquals(0, ValueLayout.NO_EXPIRY);
        byte[] stored = ValueLayout.encode(0x0102030405060708L, "hi".getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(new byte[] {8, 7, 6, 5, 4, 3, 2, 1, 'h', 'i'}, stored, "little-endian expiry, then the bytes");
        assertEquals(0x0102030405060708L, ValueLayout.expireAt(stored));
        assertArrayEquals("hi".getBytes(StandardCharsets.US_ASCII), ValueLayout.data(stored));
        assertTrue(ValueLayout.expired(ValueLayout.encode(1000, new byte[0]), 1000));
        assertFalse(ValueLayout.expired(ValueLayout.encode(1001, new byte[0]), 1000));
        assertFalse(ValueLayout.expired(ValueLayout.encode(ValueLayout.NO_EXPIRY, new byte[0]), Long.MAX_VALUE));
    }
}
