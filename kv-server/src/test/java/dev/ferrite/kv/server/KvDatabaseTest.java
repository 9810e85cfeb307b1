package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KvDatabase}: a Java program and a live server process (a child JVM running {@link Main})
 * on one data directory, each seeing the other's strings, hashes, sorted sets and expiries at
 * once, across FLUSHDB, SWAPDB, a database the program makes, and a kill -9 of the server.
 */
class KvDatabaseTest {

    @TempDir
    Path data;
    @TempDir
    Path logs;

    @Test
    void aJavaProgramRedisClientsAndHttpReadAndWriteTheSameDatabase() throws Exception {
        int port = ServerProcesses.freePort();
        int httpPort = ServerProcesses.freePort();
        Process server = ServerProcesses.start(port, httpPort, data, logs.resolve("server.log"));
        HttpClient http = HttpClient.newHttpClient();
        try (RespClient redis = ServerProcesses.connect(port, server);
             KvDatabase db = KvServer.openDatabase(data, 0)) {
            // Database 0 has no file yet: the program's first write makes it, and the server follows.
            db.set("greeting", "hello");
            assertEquals("hello", redis.call("GET", "greeting"));
            URI greeting = URI.create("http://127.0.0.1:" + httpPort + "/v1/kv/0/greeting");
            assertEquals("hello", http.send(HttpRequest.newBuilder(greeting).build(), HttpResponse.BodyHandlers.ofString()).body());
            assertEquals(200, http.send(HttpRequest.newBuilder(greeting).PUT(HttpRequest.BodyPublishers.ofString("hi"))
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals("hi", db.get("greeting"));
            db.set("greeting", "hello");
            assertEquals("OK", redis.call("SET", "from-redis", "v1"));
            assertEquals("v1", db.get("from-redis"));
            assertEquals("string", db.type("from-redis"));

            assertTrue(db.hset("user:1", "name", "Ada"));
            assertFalse(db.hset("user:1", "name", "Ada L."));
            assertEquals(1L, redis.call("HSET", "user:1", "born", "1815"));
            assertEquals("Ada L.", redis.call("HGET", "user:1", "name"));
            assertEquals(Map.of("born", "1815", "name", "Ada L."), db.hgetAll("user:1"));
            assertEquals("1815", db.hget("user:1", "born"));
            assertTrue(db.hdel("user:1", "born"));
            assertEquals(1L, redis.call("HLEN", "user:1"));

            assertTrue(db.zadd("board", 10, "a"));
            assertEquals(1L, redis.call("ZADD", "board", "5", "b"));
            assertFalse(db.zadd("board", 2.5, "a"));
            Map<String, Double> expected = new LinkedHashMap<>();
            expected.put("a", 2.5);
            expected.put("b", 5.0);
            assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(db.zrange("board", 0, -1).entrySet()));
            assertEquals(List.of("a", "2.5", "b", "5"), redis.call("ZRANGE", "board", "0", "-1", "WITHSCORES"));
            assertEquals(5.0, db.zscore("board", "b"));
            assertEquals(2, db.zcard("board"));
            assertTrue(db.zrem("board", "a"));
            assertTrue(db.zrem("board", "b")); // the last member: the key goes
            assertEquals(0L, redis.call("EXISTS", "board"));

            KvWrongTypeException wrong = assertThrows(KvWrongTypeException.class, () -> db.hset("greeting", "f", "v"));
            assertEquals("string", wrong.held());
            assertThrows(KvWrongTypeException.class, () -> db.get("user:1"));
            assertTrue(redis.call("HSET", "greeting", "f", "v") instanceof RespClient.Err e && e.text().startsWith("WRONGTYPE"));

            // Expiry holds on both sides.
            db.set("temp", "x", Duration.ofMillis(400));
            long pttl = (Long) redis.call("PTTL", "temp");
            assertTrue(pttl > 0 && pttl <= 400, "PTTL " + pttl);
            assertEquals("OK", redis.call("SET", "short", "y", "PX", "400"));
            assertTrue(db.pttl("short") > 0);
            assertTrue(db.expire("user:1", Duration.ofMillis(400)));
            assertTrue((Long) redis.call("PTTL", "user:1") > 0);
            Thread.sleep(600);
            assertNull(redis.call("GET", "temp"));
            assertNull(db.get("short"));
            assertEquals(-2, db.pttl("short"));
            assertNull(db.hget("user:1", "name"));
            assertEquals(0L, redis.call("EXISTS", "user:1"));

            // The server's FLUSHDB drops the file the program held: it follows, and its next write
            // makes the database again.
            assertEquals("OK", redis.call("FLUSHDB"));
            assertNull(db.get("greeting"));
            db.set("after-flush", "1");
            assertEquals("1", redis.call("GET", "after-flush"));
            assertEquals(1L, redis.call("DBSIZE"));

            // SWAPDB: the program's database 0 is the other file now.
            assertEquals("OK", redis.call("SWAPDB", "0", "1"));
            assertNull(db.get("after-flush"));
            db.set("in-zero", "z");
            assertEquals("z", redis.call("GET", "in-zero"));
            redis.call("SELECT", "1");
            assertEquals("1", redis.call("GET", "after-flush"));
            redis.call("SELECT", "0");

            // A kill -9 of the server loses nothing either side wrote; the program goes on meanwhile.
            db.hset("h", "f", "v");
            server.destroyForcibly();
            assertTrue(server.waitFor(10, TimeUnit.SECONDS));
            db.zadd("z", 1, "m");
            assertEquals("v", db.hget("h", "f"));
            server = ServerProcesses.start(port, data, logs.resolve("server.log"));
            try (RespClient again = ServerProcesses.connect(port, server)) {
                assertEquals("v", again.call("HGET", "h", "f"));
                assertEquals("1", again.call("ZSCORE", "z", "m"));
                assertEquals("z", again.call("GET", "in-zero"));
            }
        } finally {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Writers on both sides at once: each hash ends as a model of the writes that were acknowledged says. */
    @Test
    void concurrentWritesOfBothSidesAllLand() throws Exception {
        int port = ServerProcesses.freePort();
        Process server = ServerProcesses.start(port, data, logs.resolve("server.log"));
        try (RespClient redis = ServerProcesses.connect(port, server);
             KvDatabase db = KvServer.openDatabase(data, 0)) {
            redis.call("SET", "made", "by the server");
            int n = 2000;
            Thread local = new Thread(() -> {
                Random r = new Random(1);
                for (int i = 0; i < n; i++) {
                    db.hset("h" + r.nextInt(20), "java" + i, Integer.toString(i));
                    db.zadd("z", i, "java" + i);
                }
            });
            local.start();
            for (int i = 0; i < n; i++) {
                redis.send("HSET", "h" + (i % 20), "redis" + i, Integer.toString(i));
                redis.send("ZADD", "z", Integer.toString(-i), "redis" + i);
            }
            for (int i = 0; i < 2 * n; i++) {
                assertEquals(1L, redis.read());
            }
            local.join();
            assertEquals((long) 2 * n, redis.call("ZCARD", "z"));
            assertEquals(2L * n, db.zcard("z"));
            long fields = 0;
            for (int h = 0; h < 20; h++) {
                fields += (Long) redis.call("HLEN", "h" + h);
                assertEquals(db.hgetAll("h" + h).size(), ((List<?>) redis.call("HGETALL", "h" + h)).size() / 2);
            }
            assertEquals(2L * n, fields);
            assertEquals("redis" + (n - 1), db.zrange("z", 0, 0).keySet().iterator().next());
        } finally {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aDirectoryNoServerMadeAndBadArgumentsAreRefusedClearly(@TempDir Path empty) {
        FerriteException e = assertThrows(FerriteException.class, () -> KvServer.openDatabase(empty, 0));
        assertTrue(e.getMessage().contains("no KV server data"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KvServer.openDatabase(empty, 16));
        try (KvServer s = KvServer.builder().port(0).httpPort(-1).dataDirectory(data).start();
             KvDatabase db = KvServer.openDatabase(data, 3)) {
            assertThrows(IllegalArgumentException.class, () -> db.zadd("z", Double.NaN, "m"));
            assertThrows(IllegalArgumentException.class, () -> db.set("k", "v", Duration.ZERO));
            assertThrows(IllegalArgumentException.class, () -> db.hset("h", "f".repeat(3000), "v"));
            assertNull(db.get("absent"));
            assertEquals("none", db.type("absent"));
            assertFalse(db.delete("absent"));
            assertFalse(db.expire("absent", Duration.ofSeconds(1)));
            assertFalse(db.hdel("absent", "f"));
            assertEquals(Map.of(), db.zrange("absent", 0, -1));
        }
        KvDatabase closed = null;
        try (KvDatabase db = KvServer.openDatabase(data, 0)) {
            closed = db;
            db.set("k", "v");
        }
        KvDatabase c = closed;
        assertThrows(FerriteException.class, () -> c.get("k"));
    }

    /**
     * A program killed with SIGKILL while it writes, holding the collection store's lock or not:
     * every call it finished is there, the server's collection commands go on (the lock is taken
     * over), and its unfinished call left at most itself.
     */
    @Test
    void aProgramKilledWhileItWritesCostsOnlyItsUnfinishedCall() throws Exception {
        int port = ServerProcesses.freePort();
        Process server = ServerProcesses.start(port, data, logs.resolve("server.log"));
        try (RespClient redis = ServerProcesses.connect(port, server)) {
            for (int round = 0; round < 3; round++) {
                redis.call("DEL", "h", "z");
                Process writer = new ProcessBuilder(ServerProcesses.javaCommand(KvDatabaseWriter.class, data.toString()))
                        .redirectError(logs.resolve("writer.log").toFile()).start();
                long last = -1;
                try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(writer.getInputStream()))) {
                    long stopAt = 200 + new Random(round).nextInt(800);
                    String line;
                    while ((line = out.readLine()) != null) {
                        last = Long.parseLong(line);
                        if (last >= stopAt) {
                            writer.destroyForcibly(); // SIGKILL, anywhere in its next calls
                            break;
                        }
                    }
                }
                assertTrue(writer.waitFor(10, TimeUnit.SECONDS));
                assertTrue(last >= 0, "the writer wrote nothing; see " + logs.resolve("writer.log"));
                assertEquals(1L, redis.call("HSET", "after", "f", "v")); // the store's lock is free again
                redis.call("DEL", "after");
                long fields = (Long) redis.call("HLEN", "h");
                long members = (Long) redis.call("ZCARD", "z");
                // Every step read from the writer finished; it may have finished a few more before the kill.
                assertTrue(fields >= last + 1, "round " + round + ": " + fields + " fields after step " + last);
                assertTrue(members == fields || members == fields - 1, "round " + round + ": " + members + " members, " + fields + " fields");
                for (long i = 0; i < fields; i++) {
                    assertEquals("v" + i, redis.call("HGET", "h", "f" + i));
                }
                assertEquals(members, redis.call("ZCOUNT", "z", "-inf", "+inf"));
                assertEquals(Long.toString(members - 1), redis.call("ZSCORE", "z", "m" + (members - 1)));
            }
        } finally {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
