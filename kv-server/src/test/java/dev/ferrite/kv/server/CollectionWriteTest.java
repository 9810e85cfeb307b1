package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CollectionWrite}: a key names its collection while it holds an element and not after its
 * last is removed, whether a change changed elements or left them as they were (a change that
 * changed none is not asked again whether its collection is empty).
 */
class CollectionWriteTest {

    @Test
    void aKeyStaysWithItsElementsAndGoesWithItsLast(@TempDir Path data) {
        try (KvServer server = KvServer.builder().port(0).httpPort(-1).dataDirectory(data).start()) {
            assertTrue(server.port() > 0); // a server makes the directory's files
        }
        try (KvDatabase db = KvServer.openDatabase(data, 0)) {
            assertTrue(db.zadd("z", 1.5, "a"));
            for (int i = 0; i < 3; i++) {
                assertFalse(db.zadd("z", 1.5, "a"), "the same score again changes nothing");
                assertFalse(db.zrem("z", "absent"), "removing an absent member changes nothing");
                assertFalse(db.hdel("z-none", "f"), "a key with no collection stays absent");
                assertEquals("zset", db.type("z"));
                assertEquals(1, db.zcard("z"));
            }
            assertFalse(db.zadd("z", 2.5, "a"), "a new score for a member there");
            assertEquals(Map.of("a", 2.5), db.zrange("z", 0, -1));
            assertTrue(db.zrem("z", "a"));
            assertEquals("none", db.type("z"), "the key went with the last member");
            assertEquals(0, db.zcard("z"));

            assertTrue(db.hset("h", "f", "v"));
            assertFalse(db.hset("h", "f", "v"));
            assertEquals("hash", db.type("h"));
            assertTrue(db.hdel("h", "f"));
            assertEquals("none", db.type("h"));
            assertEquals("none", db.type("z-none"));
        }
    }
}
