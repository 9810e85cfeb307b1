package dev.ferrite.kv.server;

import dev.ferrite.kv.server.RespClient.Err;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A database nobody wrote to is empty to every read and to writes that find no key, and none of
 * them creates its file (a new database is a 1 GiB sparse map file whose creation holds up the
 * event loop); the first write that stores something does. Redis's replies to the same commands
 * are checked by {@code RedisDifferentialTest}'s catalogue.
 */
class UnwrittenDatabaseTest extends ServerFixture {

    @Test
    void readsAndWritesThatFindNothingCreateNoDatabase() throws Exception {
        startServer(b -> b.httpPort(0).threads(1));
        int db7 = 7;
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SELECT", "7"));
            List<List<Object>> commandsAndReplies = List.of(
                    List.of(List.of("GET", "x"), "nil"),
                    List.of(List.of("MGET", "x", "y"), Arrays.asList(null, null)),
                    List.of(List.of("EXISTS", "x", "y"), 0L),
                    List.of(List.of("TYPE", "x"), "none"),
                    List.of(List.of("TTL", "x"), -2L),
                    List.of(List.of("PTTL", "x"), -2L),
                    List.of(List.of("STRLEN", "x"), 0L),
                    List.of(List.of("GETRANGE", "x", "0", "-1"), ""),
                    List.of(List.of("DBSIZE"), 0L),
                    List.of(List.of("KEYS", "*"), List.of()),
                    List.of(List.of("SCAN", "0"), List.of("0", List.of())),
                    List.of(List.of("RANDOMKEY"), "nil"),
                    List.of(List.of("DEL", "x"), 0L),
                    List.of(List.of("UNLINK", "x", "y"), 0L),
                    List.of(List.of("EXPIRE", "x", "10"), 0L),
                    List.of(List.of("PEXPIREAT", "x", "1"), 0L),
                    List.of(List.of("PERSIST", "x"), 0L),
                    List.of(List.of("GETDEL", "x"), "nil"),
                    List.of(List.of("GETEX", "x", "EX", "10"), "nil"),
                    List.of(List.of("SET", "x", "1", "XX"), "nil"),
                    List.of(List.of("SET", "x", "1", "XX", "GET"), "nil"),
                    List.of(List.of("SETRANGE", "x", "0", ""), 0L),
                    List.of(List.of("RENAME", "x", "y"), new Err("ERR no such key")),
                    List.of(List.of("RENAMENX", "x", "y"), new Err("ERR no such key")),
                    List.of(List.of("FLUSHDB"), "OK"));
            for (List<Object> cr : commandsAndReplies) {
                @SuppressWarnings("unchecked")
                List<String> command = (List<String>) cr.get(0);
                Object expected = "nil".equals(cr.get(1)) ? null : cr.get(1);
                assertEquals(expected, c.call(command.toArray(String[]::new)), command.toString());
                assertFalse(databaseExists(db7), command + " created database 7");
            }

            HttpClient http = HttpClient.newHttpClient();
            for (String method : List.of("GET", "HEAD", "DELETE")) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/kv/7/x"))
                        .method(method, HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(404, r.statusCode(), method);
            }
            HttpResponse<String> list = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/kv/7?prefix=")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, list.statusCode());
            assertTrue(list.body().contains("\"keys\":[]"), list.body());
            assertFalse(databaseExists(db7), "HTTP reads created database 7");
            assertTrue(((String) c.call("INFO", "keyspace")).lines().noneMatch(l -> l.startsWith("db7:")));

            assertEquals("OK", c.call("SET", "x", "1"));
            assertTrue(databaseExists(db7), "the first write creates the database");
            assertEquals("1", c.call("GET", "x"));
            assertEquals(1L, c.call("DBSIZE"));
            assertEquals("OK", c.call("SELECT", "0"));
            assertNull(c.call("GET", "x"), "another database");
        }
        server.close();
        startServer(b -> b.threads(1));
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SELECT", "7"));
            assertEquals("1", c.call("GET", "x"), "reopened at start");
        }
    }

    @Test
    void theFirstWriteToANewDatabaseHoldsUpOnlyItsOwnConnection() throws Exception {
        startServer(b -> b.threads(1));
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SET", "a", "b")); // database 0 exists before creations are held back
        }
        CountDownLatch creating = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        holdCreationsBack(creating, release);
        try (RespClient writer = new RespClient(server.port()); RespClient other = new RespClient(server.port())) {
            whileHeldBack(writer, other, creating, release);
        } finally {
            release.countDown(); // also when an assertion failed: the server must be able to stop
        }
        assertTrue(databaseExists(3) && databaseExists(4));
    }

    private static void whileHeldBack(RespClient writer, RespClient other, CountDownLatch creating,
                                  CountDownLatch release) throws Exception {
        assertEquals("OK", writer.call("SELECT", "3"));
        // A pipeline: the first write waits for database 3, and the rest waits behind it, in order.
        writer.send("SET", "k", "1");
        writer.send("INCR", "k");
        writer.send("GET", "k");
        writer.send("SELECT", "4");
        writer.send("SET", "j", "x"); // database 4 does not exist either
        writer.send("SELECT", "3");
        writer.send("GET", "k");
        assertTrue(creating.await(10, TimeUnit.SECONDS), "the creation started");
        // The one event loop still serves the other connection, also in other databases.
        assertEquals("PONG", other.call("PING"));
        assertEquals("OK", other.call("SET", "a", "c"));
        assertEquals("c", other.call("GET", "a"));
        assertEquals("OK", other.call("SELECT", "3"));
        assertNull(other.call("GET", "k"), "database 3 holds nothing yet");
        release.countDown();
        assertEquals("OK", writer.read());
        assertEquals(2L, writer.read());
        assertEquals("2", writer.read());
        assertEquals("OK", writer.read());
        assertEquals("OK", writer.read());
        assertEquals("OK", writer.read());
        assertEquals("2", writer.read());
        assertEquals("2", other.call("GET", "k"));
        assertEquals("OK", other.call("SELECT", "4"));
        assertEquals("x", other.call("GET", "j"));
        assertEquals(1L, other.call("DBSIZE"));
    }

    @Test
    void aProtocolErrorAfterRequestsThatWaitIsAnsweredAfterThem() throws Exception {
        startServer(b -> b.threads(1));
        CountDownLatch creating = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        holdCreationsBack(creating, release);
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            // The SET waits for database 0; the GET behind it; then bytes that break the protocol.
            s.getOutputStream().write("SET k v\r\nGET k\r\n*1\r\n:4\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertTrue(creating.await(10, TimeUnit.SECONDS), "the creation started");
            release.countDown();
            // As Redis: the requests before the bad bytes run and are answered, then the error, then the close.
            assertEquals("+OK\r\n$1\r\nv\r\n-ERR Protocol error: expected '$', got ':'\r\n",
                    readUntil(s.getInputStream(), "<never>"));
        } finally {
            release.countDown();
        }
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("v", c.call("GET", "k"));
        }
    }

    @Test
    void aCreationThatFailsIsAnsweredAsAnError() throws Exception {
        startServer(b -> b.threads(1));
        // A directory where the spare a new database is made of is written: creating database 5
        // fails, on the creator thread and inline; once it is gone, creations work again.
        Path inTheWay = data.resolve("spare.ferrite.new").resolve("in-the-way");
        Files.createDirectories(inTheWay);
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SELECT", "5"));
            Object reply = c.call("SET", "k", "v");
            assertTrue(reply instanceof Err e && e.text().startsWith("ERR "), String.valueOf(reply));
            assertEquals("PONG", c.call("PING"), "the connection goes on");
            assertEquals(0L, c.call("DBSIZE"));
            Files.delete(inTheWay);
            Files.delete(inTheWay.getParent());
            assertEquals("OK", c.call("SELECT", "0"));
            assertEquals("OK", c.call("SET", "k", "v"));
        }
    }

    @Test
    void anHttpPutIntoANewDatabaseHoldsUpOnlyItsOwnConnection() throws Exception {
        startServer(b -> b.httpPort(0).threads(1));
        CountDownLatch creating = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        holdCreationsBack(creating, release);
        try (Socket http = new Socket("127.0.0.1", server.httpPort()); RespClient other = new RespClient(server.port())) {
            http.setSoTimeout(10_000);
            // Two pipelined requests: the PUT waits for database 6, the GET behind it.
            http.getOutputStream().write(("PUT /v1/kv/6/k HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello"
                    + "GET /v1/kv/6/k HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            http.getOutputStream().flush();
            assertTrue(creating.await(10, TimeUnit.SECONDS), "the creation started");
            assertEquals("PONG", other.call("PING"), "the event loop serves other connections meanwhile");
            release.countDown();
            String replies = readUntil(http.getInputStream(), "hello");
            int created = replies.indexOf("HTTP/1.1 201");
            int ok = replies.indexOf("HTTP/1.1 200");
            assertTrue(created >= 0 && ok > created, replies);
        } finally {
            release.countDown();
        }
        assertTrue(databaseExists(6));
    }

    /** Reads until the text read so far ends with {@code end}. */
    private static String readUntil(InputStream in, String end) throws Exception {
        StringBuilder b = new StringBuilder();
        while (!b.toString().endsWith(end)) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            b.append((char) c);
        }
        return b.toString();
    }

    /** Makes each database creation count {@code creating} down, then wait for {@code release}. */
    private void holdCreationsBack(CountDownLatch creating, CountDownLatch release) {
        server.databases().beforeCreation = () -> {
            creating.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /** @return whether the data directory's manifest names database {@code n} */
    private boolean databaseExists(int n) throws java.io.IOException {
        Path manifest = data.resolve("databases");
        return Files.exists(manifest) && Files.readAllLines(manifest).stream().anyMatch(l -> l.startsWith(n + " "));
    }
}
