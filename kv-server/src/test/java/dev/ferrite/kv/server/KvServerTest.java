package dev.ferrite.kv.server;

import dev.ferrite.kv.server.RespClient.Err;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server over a real socket: commands, pipelining, inline commands, errors, restarts. */
class KvServerTest extends ServerFixture {

    @BeforeEach
    void start() {
        startServer(b -> b.threads(2));
    }

    private RespClient client() throws Exception {
        return new RespClient(server.port());
    }

    @Test
    void connectionCommands() throws Exception {
        try (RespClient c = client()) {
            assertEquals("PONG", c.call("PING"));
            assertEquals("hello", c.call("ping", "hello"));
            assertEquals(new Err("ERR wrong number of arguments for 'ping' command"), c.call("PING", "a", "b"));
            assertEquals("some text", c.call("ECHO", "some text"));
            assertEquals(new Err("ERR wrong number of arguments for 'echo' command"), c.call("ECHO"));
            assertEquals(new Err("ERR unknown command 'NOPE', with args beginning with: 'x' 'y' "),
                    c.call("NOPE", "x", "y"));
            assertEquals(new Err("ERR unknown command 'NOPE', with args beginning with: "), c.call("NOPE"));
            List<?> time = (List<?>) c.call("TIME");
            long seconds = Long.parseLong((String) time.get(0));
            assertTrue(Math.abs(seconds - System.currentTimeMillis() / 1000) <= 2, "TIME " + time);
            long micros = Long.parseLong((String) time.get(1));
            assertTrue(micros >= 0 && micros < 1_000_000, "TIME " + time);
            assertEquals((long) CommandTable.count(), c.call("COMMAND", "COUNT"));
        }
    }

    @Test
    void handshakeCommandsClientsSendOnConnect() throws Exception {
        try (RespClient c = client()) {
            List<?> hello = (List<?>) c.call("HELLO", "2", "SETNAME", "app-1");
            assertEquals("ferrite", hello.get(hello.indexOf("server") + 1));
            assertEquals(2L, hello.get(hello.indexOf("proto") + 1));
            long id = (Long) hello.get(hello.indexOf("id") + 1);
            assertEquals(id, c.call("CLIENT", "ID"));
            assertEquals("app-1", c.call("CLIENT", "GETNAME"));
            assertEquals(new Err("NOPROTO unsupported protocol version"), c.call("HELLO", "3"));
            assertEquals(new Err("ERR Protocol version is not an integer or out of range"), c.call("HELLO", "x"));
            assertEquals("OK", c.call("CLIENT", "SETNAME", "renamed"));
            assertEquals("renamed", c.call("CLIENT", "GETNAME"));
            assertEquals(new Err("ERR Client names cannot contain spaces, newlines or special characters."),
                    c.call("CLIENT", "SETNAME", "a b"));
            assertEquals("OK", c.call("CLIENT", "SETINFO", "lib-name", "jedis"));
            assertEquals("OK", c.call("CLIENT", "SETINFO", "LIB-VER", "5.2.0"));
            assertEquals(new Err("ERR unknown subcommand 'KILL'. Try CLIENT HELP."), c.call("CLIENT", "KILL"));
            assertEquals(List.of("appendfsync", "everysec", "appendonly", "no", "save", ""), sortedPairs(c.call("CONFIG", "GET", "save", "append*")));
            assertEquals(List.of("databases", "16"), c.call("CONFIG", "GET", "data?ases"));
            assertEquals(List.of(), c.call("CONFIG", "GET", "nothing-like-this"));
            assertEquals(new Err("ERR AUTH <password> called without any password configured for the default user."
                    + " Are you sure your configuration is correct?"), c.call("AUTH", "secret"));
        }
        try (RespClient c = client()) {
            assertNull(c.call("CLIENT", "GETNAME"), "a name belongs to its connection");
        }
    }

    /** A CONFIG GET reply's name/value pairs, sorted by name. */
    private static List<Object> sortedPairs(Object reply) {
        List<?> flat = (List<?>) reply;
        java.util.TreeMap<String, Object> pairs = new java.util.TreeMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            pairs.put((String) flat.get(i), flat.get(i + 1));
        }
        List<Object> out = new ArrayList<>();
        pairs.forEach((k, v) -> {
            out.add(k);
            out.add(v);
        });
        return out;
    }

    @Test
    void stringCommandsBehaveAsRedisDocuments() throws Exception {
        try (RespClient c = client()) {
            assertNull(c.call("GET", "k"));
            assertEquals("OK", c.call("SET", "k", "v1"));
            assertEquals("v1", c.call("GET", "k"));
            assertNull(c.call("SET", "k", "v2", "NX"));
            assertEquals("v1", c.call("GET", "k"));
            assertEquals("OK", c.call("SET", "k", "v2", "XX"));
            assertNull(c.call("SET", "absent", "x", "XX"));
            assertEquals(0L, c.call("EXISTS", "absent"));
            assertEquals("v2", c.call("SET", "k", "v3", "GET"));
            assertNull(c.call("SET", "fresh", "f", "GET"));
            assertEquals(new Err("ERR syntax error"), c.call("SET", "k", "v", "NX", "XX"));
            assertEquals(new Err("ERR syntax error"), c.call("SET", "k", "v", "BOGUS"));
            assertEquals(1L, c.call("SETNX", "n", "1"));
            assertEquals(0L, c.call("SETNX", "n", "2"));
            assertEquals("1", c.call("GETSET", "n", "3"));
            assertEquals("3", c.call("GETDEL", "n"));
            assertNull(c.call("GETDEL", "n"));
            assertEquals("OK", c.call("MSET", "a", "1", "b", "2"));
            assertEquals(new Err("ERR wrong number of arguments for 'mset' command"), c.call("MSET", "a", "1", "b"));
            assertEquals(Arrays.asList("1", "2", null), c.call("MGET", "a", "b", "c"));
            assertEquals(3L, c.call("EXISTS", "a", "a", "b"));
            assertEquals(5L, c.call("APPEND", "a", "2345"));
            assertEquals("12345", c.call("GET", "a"));
            assertEquals(5L, c.call("STRLEN", "a"));
            assertEquals(0L, c.call("STRLEN", "none"));
            assertEquals("string", c.call("TYPE", "a"));
            assertEquals("none", c.call("TYPE", "none"));
            assertEquals(2L, c.call("DEL", "a", "b", "c"));
            assertEquals(0L, c.call("UNLINK", "a"));
            assertNull(c.call("SET", "empty", "", "GET"));
            assertEquals("", c.call("GET", "empty"));
        }
    }

    @Test
    void countersAreIntegersWithRedisErrors() throws Exception {
        try (RespClient c = client()) {
            assertEquals(1L, c.call("INCR", "n"));
            assertEquals(11L, c.call("INCRBY", "n", "10"));
            assertEquals(10L, c.call("DECR", "n"));
            assertEquals(-5L, c.call("DECRBY", "n", "15"));
            assertEquals("-5", c.call("GET", "n"));
            // Absent keys start from 0, with no expiry; one counter's first value is not another's.
            assertEquals(-1L, c.call("DECR", "down"));
            assertEquals(1L, c.call("INCR", "up"));
            assertEquals(2L, c.call("INCR", "up"));
            assertEquals(1L, c.call("INCR", "other"));
            assertEquals(42L, c.call("INCRBY", "fresh", "42"));
            assertEquals("-1", c.call("GET", "down"));
            assertEquals(-1L, c.call("TTL", "fresh"));
            c.call("SET", "s", "abc");
            assertEquals(new Err("ERR value is not an integer or out of range"), c.call("INCR", "s"));
            c.call("SET", "lead", "007");
            assertEquals(new Err("ERR value is not an integer or out of range"), c.call("INCR", "lead"));
            assertEquals(new Err("ERR value is not an integer or out of range"), c.call("INCRBY", "n", "1.5"));
            c.call("SET", "max", Long.toString(Long.MAX_VALUE));
            assertEquals(new Err("ERR increment or decrement would overflow"), c.call("INCR", "max"));
            assertEquals(Long.toString(Long.MAX_VALUE), c.call("GET", "max"));
            c.call("SET", "min", Long.toString(Long.MIN_VALUE));
            assertEquals(new Err("ERR increment or decrement would overflow"), c.call("DECR", "min"));
            assertEquals(new Err("ERR decrement would overflow"), c.call("DECRBY", "n", Long.toString(Long.MIN_VALUE)));
        }
    }

    @Test
    void aStringGrownPastTheMapsLimitGetsRedisErrorAndStaysAsItWas() throws Exception {
        try (RespClient c = client()) {
            String part = "x".repeat(40 << 20);
            assertEquals((long) part.length(), c.call("APPEND", "grown", part));
            assertEquals(new Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
                    c.call("APPEND", "grown", part));
            assertEquals((long) part.length(), c.call("STRLEN", "grown"));
            assertEquals(new Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
                    c.call("SETRANGE", "grown", Integer.toString(64 << 20), "y"));
            assertEquals((long) part.length(), c.call("STRLEN", "grown"));
        }
    }

    @Test
    void setRangeAtAnOffsetNearTheLongLimitIsRefusedAndChangesNothing() throws Exception {
        try (RespClient c = client()) {
            assertEquals("OK", c.call("SET", "far", "hello", "EX", "1000"));
            // offset + length overflowed a long and passed the size check: the patch was written
            // over the end of the stored value's expiry field
            for (String offset : List.of("9223372036854775807", "9223372036854775800", "9223372036854775790")) {
                assertEquals(new Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"),
                        c.call("SETRANGE", "far", offset, "abcdefghijklmnopqrst"), offset);
            }
            assertEquals("hello", c.call("GET", "far"));
            long ttl = (Long) c.call("TTL", "far");
            assertTrue(ttl > 990 && ttl <= 1000, "TTL " + ttl);
        }
    }

    @Test
    void incrIsAtomicAcrossConnections() throws Exception {
        int clients = 4;
        int each = 500;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                done.add(pool.submit(() -> {
                    try (RespClient c = client()) {
                        for (int i = 0; i < each; i++) {
                            c.call("INCR", "counter");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        try (RespClient c = client()) {
            assertEquals(String.valueOf(clients * each), c.call("GET", "counter"));
        }
    }

    /**
     * A connection's requests run at the end of the event loop's pass ({@link PassFlush}): those a
     * client sends just before it closes must run all the same, as they did when each ran as soon
     * as it was read. Each round writes 200 SETs in one write and closes at once, without reading.
     */
    @Test
    void requestsSentJustBeforeTheClientClosesStillRun() throws Exception {
        server.close();
        startServer(b -> b.threads(1));
        for (int round = 0; round < 20; round++) {
            StringBuilder pipeline = new StringBuilder();
            for (int i = 0; i < 200; i++) {
                pipeline.append(new String(RespClient.encode("SET", "r" + round + ":" + i, "v" + i),
                        java.nio.charset.StandardCharsets.UTF_8));
            }
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
                s.getOutputStream().write(pipeline.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                s.getOutputStream().flush();
            }
        }
        try (RespClient c = client()) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!"v199".equals(c.call("GET", "r19:199")) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 200; i++) {
                    assertEquals("v" + i, c.call("GET", "r" + round + ":" + i), "round " + round + ", SET " + i);
                }
            }
        }
    }

    /**
     * One event loop serving 16 connections at once flushes their replies after each pass over
     * the ready ones ({@link PassFlush}): every connection must get its own replies, whole and in
     * order, unpipelined and in pipelines of 10.
     */
    @Test
    void connectionsSharingOneEventLoopEachGetTheirOwnReplies() throws Exception {
        server.close();
        startServer(b -> b.threads(1));
        int clients = 16;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    try (RespClient c = client()) {
                        for (int i = 0; i < 300; i++) {
                            String key = "c" + id + ":" + i;
                            assertEquals("OK", c.call("SET", key, "v" + id + "-" + i));
                            assertEquals("v" + id + "-" + i, c.call("GET", key));
                        }
                        for (int round = 0; round < 30; round++) {
                            for (int i = 0; i < 10; i++) {
                                c.send("GET", "c" + id + ":" + (round * 10 + i));
                            }
                            for (int i = 0; i < 10; i++) {
                                assertEquals("v" + id + "-" + (round * 10 + i), c.read());
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void expiryIsKeptAndExpiredKeysAreNeverReturned() throws Exception {
        try (RespClient c = client()) {
            assertEquals(-2L, c.call("TTL", "k"));
            c.call("SET", "k", "v");
            assertEquals(-1L, c.call("TTL", "k"));
            assertEquals(1L, c.call("EXPIRE", "k", "100"));
            long ttl = (Long) c.call("TTL", "k");
            assertTrue(ttl >= 99 && ttl <= 100, "ttl " + ttl);
            assertEquals(1L, c.call("PERSIST", "k"));
            assertEquals(0L, c.call("PERSIST", "k"));
            assertEquals(-1L, c.call("TTL", "k"));
            assertEquals(0L, c.call("EXPIRE", "absent", "10"));
            c.call("SET", "short", "v", "PX", "150");
            long pttl = (Long) c.call("PTTL", "short");
            assertTrue(pttl > 0 && pttl <= 150, "pttl " + pttl);
            c.call("SET", "kept", "v", "EX", "100");
            c.call("SET", "kept", "w", "KEEPTTL");
            assertTrue((Long) c.call("TTL", "kept") > 0);
            c.call("SET", "kept", "x");
            assertEquals(-1L, c.call("TTL", "kept"), "a plain SET clears the expiry");
            Thread.sleep(250);
            assertNull(c.call("GET", "short"));
            assertEquals(0L, c.call("EXISTS", "short"));
            assertEquals(-2L, c.call("PTTL", "short"));
            assertEquals(new Err("ERR invalid expire time in 'set' command"), c.call("SET", "k", "v", "EX", "0"));
            assertEquals(new Err("ERR invalid expire time in 'set' command"), c.call("SET", "k", "v", "PX", "-5"));
            assertEquals(new Err("ERR value is not an integer or out of range"), c.call("SET", "k", "v", "EX", "soon"));
            assertEquals(new Err("ERR syntax error"), c.call("SET", "k", "v", "EX", "5", "PX", "5"));
            assertEquals(1L, c.call("EXPIRE", "k", "-1"), "an expiry in the past deletes the key");
            assertNull(c.call("GET", "k"));
        }
    }

    @Test
    void databasesAreSeparate() throws Exception {
        try (RespClient c = client()) {
            c.call("SET", "k", "zero");
            assertEquals("OK", c.call("SELECT", "1"));
            assertNull(c.call("GET", "k"));
            c.call("SET", "k", "one");
            c.call("SET", "k2", "one");
            assertEquals(2L, c.call("DBSIZE"));
            assertEquals(new Err("ERR DB index is out of range"), c.call("SELECT", "16"));
            assertEquals(new Err("ERR value is not an integer or out of range"), c.call("SELECT", "x"));
            assertEquals("OK", c.call("FLUSHDB"));
            assertEquals(0L, c.call("DBSIZE"));
            c.call("SELECT", "0");
            assertEquals("zero", c.call("GET", "k"));
            c.call("SELECT", "1");
            c.call("SET", "k", "one again");
            assertEquals("OK", c.call("FLUSHALL"));
            assertEquals(0L, c.call("DBSIZE"));
            c.call("SELECT", "0");
            assertEquals(0L, c.call("DBSIZE"), "FLUSHALL emptied database 0 as well");
        }
        try (var files = Files.list(data)) {
            assertEquals(Set.of(), files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith("map-"))
                    .collect(Collectors.toSet()), "FLUSHALL drops the databases' files and makes none that was never used");
        }
    }

    @Test
    void pipelinedAndInlineCommands() throws Exception {
        try (RespClient c = client()) {
            StringBuilder pipeline = new StringBuilder();
            for (int i = 0; i < 1000; i++) {
                pipeline.append(new String(RespClient.encode("SET", "key:" + i, "value:" + i)));
            }
            c.sendRaw(pipeline.toString());
            for (int i = 0; i < 1000; i++) {
                assertEquals("OK", c.read());
            }
            assertEquals(1000L, c.call("DBSIZE"));
            c.sendRaw("PING\r\n");
            assertEquals("PONG", c.read());
            c.sendRaw("SET \"a b\" 'c d'\r\n\r\nGET \"a b\"\n");
            assertEquals("OK", c.read());
            assertEquals("c d", c.read());
            c.sendRaw("ECHO \"\\x41\\n\"\r\n");
            assertEquals("A\n", c.read());
            c.sendRaw("*0\r\nPING\r\n");
            assertEquals("PONG", c.read());
        }
    }

    /**
     * A reply buffer is reused only once the channel has written it. The client first asks for
     * 4 MB it does not read, so the sockets fill; then it sends small requests one at a time, each
     * read and answered on its own while earlier replies wait in the server (which reads on until
     * 1 MiB waits). Every reply must arrive whole and in order.
     */
    @Test
    void repliesStayWholeWhileTheClientReadsNothingForAWhile() throws Exception {
        try (RespClient c = client()) {
            String[] values = new String[4];
            for (int i = 0; i < values.length; i++) {
                char[] text = new char[i == 0 ? 40_000 : 1_000 * i];
                Arrays.fill(text, (char) ('a' + i));
                values[i] = new String(text);
                assertEquals("OK", c.call("SET", "v" + i, values[i]));
            }
            List<Integer> asked = new ArrayList<>();
            StringBuilder large = new StringBuilder();
            for (int n = 0; n < 100; n++) {
                asked.add(0);
                large.append(new String(RespClient.encode("GET", "v0")));
            }
            c.sendRaw(large.toString());
            for (int n = 0; n < 1_000; n++) {
                Thread.sleep(1); // each small request in a read of its own
                int i = 1 + n % (values.length - 1);
                asked.add(i);
                c.send("GET", "v" + i);
            }
            for (int n = 0; n < asked.size(); n++) {
                int i = asked.get(n);
                assertEquals(values[i], c.read(), "reply " + n + " (GET v" + i + ")");
            }
        }
    }

    @Test
    void malformedRequestsGetRedisProtocolErrorsAndCloseOnlyTheirConnection() throws Exception {
        try (RespClient other = client()) {
            other.call("SET", "kept", "yes");
            String[][] cases = {
                    {"*1\r\n$-5\r\n", "ERR Protocol error: invalid bulk length"},
                    {"*1\r\n$2147483647\r\n", "ERR Protocol error: invalid bulk length"},
                    {"*99999999999\r\n", "ERR Protocol error: invalid multibulk length"},
                    {"*abc\r\n", "ERR Protocol error: invalid multibulk length"},
                    {"*2\r\n$3\r\nGET\r\nxx\r\n", "ERR Protocol error: expected '$', got 'x'"},
                    {"SET \"unbalanced\r\n", "ERR Protocol error: unbalanced quotes in request"},
                    {"PING " + "x".repeat(70_000), "ERR Protocol error: too big inline request"},
                    {"*1\r\n$" + "1".repeat(70_000), "ERR Protocol error: too big bulk count string"},
            };
            for (String[] bad : cases) {
                try (RespClient c = client()) {
                    assertEquals("OK", c.call("SET", "before", "ok"), "requests before the bad one are served");
                    c.sendRaw(bad[0]);
                    assertEquals(new Err(bad[1]), c.read(), bad[0].substring(0, Math.min(40, bad[0].length())));
                    assertTrue(c.closedByServer(), "connection closed after " + bad[1]);
                }
            }
            assertEquals("yes", other.call("GET", "kept"), "another client is unaffected");
            assertEquals(2L, other.call("DBSIZE"), "nothing else was written");
        }
    }

    @Test
    void quitRepliesThenCloses() throws Exception {
        try (RespClient c = client()) {
            c.sendRaw(new String(RespClient.encode("QUIT")) + new String(RespClient.encode("SET", "after", "quit")));
            assertEquals("OK", c.read());
            assertTrue(c.closedByServer());
        }
        try (RespClient c = client()) {
            assertNull(c.call("GET", "after"), "a command after QUIT is not run");
        }
    }

    @Test
    void aRestartKeepsValuesAndTheirExpiry() throws Exception {
        try (RespClient c = client()) {
            c.call("SET", "plain", "p");
            c.call("SET", "timed", "t", "EX", "1000");
            c.call("SET", "gone", "g", "PX", "100");
            c.call("SELECT", "3");
            c.call("SET", "in3", "three");
        }
        server.close();
        Thread.sleep(150);
        startServer();
        try (RespClient c = client()) {
            assertEquals("p", c.call("GET", "plain"));
            assertEquals("t", c.call("GET", "timed"));
            long ttl = (Long) c.call("TTL", "timed");
            assertTrue(ttl > 990 && ttl <= 1000, "ttl " + ttl);
            assertNull(c.call("GET", "gone"));
            c.call("SELECT", "3");
            assertEquals("three", c.call("GET", "in3"));
        }
    }

    @Test
    void theNativeEpollTransportServesOnLinuxX8664() {
        boolean linuxX64 = System.getProperty("os.name").equals("Linux")
                && System.getProperty("os.arch").matches("amd64|x86_64");
        // The build runs tests on JDK 24+ with --enable-native-access=ALL-UNNAMED (the jdk24+ profile).
        assertTrue(Transport.nativeAccessAllowed(), "native access in the test JVM");
        assertEquals(linuxX64 ? "epoll" : "nio", server.transport(), Transport.epollUnavailableReason());
    }
}
