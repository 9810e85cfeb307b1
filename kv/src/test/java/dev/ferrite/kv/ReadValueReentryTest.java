package dev.ferrite.kv;

import dev.ferrite.Ferrite;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link ValueReader} may look other keys up: the key of the read it runs in stays that key,
 * also when the read runs again because a writer changed what it read.
 */
class ReadValueReentryTest {

    @Test
    void aReaderThatLooksUpAnotherKeyDoesNotChangeItsOwnReadsKey() {
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8())
                .backend(Ferrite.backend().name()).sections(1).create()) {
            map.put("key-1", "one");
            map.put("key-2", "two");
            AtomicInteger calls = new AtomicInteger();
            String got = map.readValue(buffer("key-1"), (segment, offset, length) -> {
                if (calls.getAndIncrement() == 0) {
                    // Another lookup by buffer on this thread, then a write that makes this read run again.
                    assertEquals("two", map.readValue(buffer("key-2"), ReadValueReentryTest::string));
                    map.put("key-1", "uno");
                }
                return string(segment, offset, length);
            });
            assertEquals("uno", got, "the read ran again for key-1, not for the key the reader looked up");
            assertTrue(calls.get() >= 2, "the write made the read run again: " + calls.get());
        }
    }

    private static ByteBuffer buffer(String key) {
        return ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8));
    }

    private static String string(dev.ferrite.Segment segment, long offset, int length) {
        byte[] b = new byte[length];
        segment.copyTo(offset, b, 0, length);
        return new String(b, StandardCharsets.UTF_8);
    }
}
