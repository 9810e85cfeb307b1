package dev.ferrite.kv.server;

import io.lettuce.core.GetExArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lettuce, a real Redis client, against the server: its handshake (HELLO 3 refused, fall back to
 * RESP2), the commands synchronously, and a large asynchronous pipeline.
 */
class LettuceTest extends ServerFixture {

    private RedisClient client;

    @BeforeEach
    void start() {
        startServer(b -> b.threads(2));
    }

    @AfterEach
    void stopClient() {
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private StatefulRedisConnection<String, String> connect(String password) {
        RedisURI.Builder uri = RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                .withTimeout(Duration.ofSeconds(10));
        if (password != null) {
            uri.withPassword(password.toCharArray());
        }
        if (client == null) {
            client = RedisClient.create();
        }
        return client.connect(uri.build());
    }

    @Test
    void commandsSynchronously() {
        try (StatefulRedisConnection<String, String> c = connect(null)) {
            RedisCommands<String, String> r = c.sync();
            assertEquals("PONG", r.ping());
            assertEquals("OK", r.set("k", "v"));
            assertEquals("v", r.get("k"));
            assertNull(r.set("k", "w", SetArgs.Builder.nx()));
            assertEquals("OK", r.set("k", "w", SetArgs.Builder.xx().px(60_000)));
            assertTrue(r.pttl("k") > 55_000);
            assertEquals("w", r.getex("k", GetExArgs.Builder.persist()));
            assertEquals(-1L, r.ttl("k"));
            assertEquals("OK", r.mset(Map.of("a", "1", "b", "2")));
            List<KeyValue<String, String>> values = r.mget("a", "b", "none");
            assertEquals("1", values.get(0).getValue());
            assertEquals("2", values.get(1).getValue());
            assertTrue(!values.get(2).hasValue());
            assertEquals(6L, r.incrby("a", 5));
            assertEquals(5L, r.decr("a"));
            assertEquals(5.25, r.incrbyfloat("a", 0.25));
            RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class, () -> r.incr("a"));
            assertEquals("ERR value is not an integer or out of range", e.getMessage());
            assertEquals(4L, r.append("b", "xyz"));
            assertEquals("2xyz", r.getrange("b", 0, -1));
            assertEquals(1L, r.exists("b"));
            assertEquals("string", r.type("b"));
            assertEquals(true, r.expire("b", 100));
            assertTrue(r.ttl("b") > 95);
            assertEquals(true, r.persist("b"));
            assertEquals("OK", r.rename("b", "c"));
            assertEquals("2xyz", r.getdel("c"));
            assertEquals(2L, r.del("a", "k"));
            for (int i = 0; i < 100; i++) {
                r.set("s" + i, "v");
            }
            Set<String> seen = new HashSet<>();
            KeyScanCursor<String> cursor = r.scan(ScanArgs.Builder.limit(7).match("s*"));
            seen.addAll(cursor.getKeys());
            while (!cursor.isFinished()) {
                cursor = r.scan(ScanCursor.of(cursor.getCursor()), ScanArgs.Builder.limit(7).match("s*"));
                seen.addAll(cursor.getKeys());
            }
            assertEquals(100, seen.size());
            assertEquals(100, r.keys("s*").size());
            assertEquals(100L, r.dbsize());
            assertTrue(r.info("keyspace").contains("db0:keys=100"));
        }
    }

    @Test
    void aLargeAsynchronousPipelineIsAnsweredInOrder() throws Exception {
        try (StatefulRedisConnection<String, String> c = connect(null)) {
            RedisAsyncCommands<String, String> a = c.async();
            c.setAutoFlushCommands(false);
            int n = 20_000;
            List<RedisFuture<Long>> counts = new ArrayList<>();
            List<RedisFuture<String>> sets = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sets.add(a.set("key:" + i, "value:" + i));
                counts.add(a.incr("counter"));
            }
            c.flushCommands();
            for (int i = 0; i < n; i++) {
                assertEquals("OK", sets.get(i).get(10, TimeUnit.SECONDS));
                assertEquals(i + 1L, counts.get(i).get(10, TimeUnit.SECONDS));
            }
            c.setAutoFlushCommands(true);
            assertEquals("value:12345", c.sync().get("key:12345"));
            assertEquals(Long.toString(n), c.sync().get("counter"));
        }
    }

    @Test
    void withAPasswordLettuceAuthenticatesAfterFallingBackToResp2() {
        server.close();
        startServer(b -> b.requirePassword("pw-for-lettuce"));
        try (StatefulRedisConnection<String, String> c = connect("pw-for-lettuce")) {
            assertEquals("OK", c.sync().set("k", "v"));
            assertEquals("v", c.sync().get("k"));
        }
        assertThrows(Exception.class, () -> connect("wrong").sync().get("k"));
    }
}
