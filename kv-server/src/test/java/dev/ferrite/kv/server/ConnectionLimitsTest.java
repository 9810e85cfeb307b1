package dev.ferrite.kv.server;

import dev.ferrite.kv.server.RespClient.Err;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's bounds on clients (connection count, idle time, unread replies), protected mode and
 * active expiry, each against real sockets.
 */
class ConnectionLimitsTest extends ServerFixture {

    @Test
    void aConnectionOverMaxClientsGetsRedisErrorAndIsClosed() throws Exception {
        startServer(b -> b.maxClients(2));
        try (RespClient a = new RespClient(server.port()); RespClient b = new RespClient(server.port())) {
            assertEquals("PONG", a.call("PING"));
            assertEquals("PONG", b.call("PING"));
            try (RespClient c = new RespClient(server.port())) {
                assertEquals(new Err("ERR max number of clients reached"), c.read());
                assertThrows(IOException.class, c::read);
            }
            assertEquals("PONG", a.call("PING"), "the clients within the limit are unaffected");
        }
        // Both closed: a new client is served once the server has counted them out.
        for (int i = 0; ; i++) {
            try (RespClient d = new RespClient(server.port())) {
                Object reply = d.call("PING");
                if ("PONG".equals(reply)) {
                    break;
                }
                assertTrue(i < 50, "still refused after the others closed: " + reply);
            } catch (IOException e) {
                assertTrue(i < 50, "still refused after the others closed");
            }
            Thread.sleep(20);
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterTheTimeout() throws Exception {
        startServer(b -> b.idleTimeoutSeconds(1));
        try (RespClient idle = new RespClient(server.port()); RespClient busy = new RespClient(server.port())) {
            assertEquals("PONG", idle.call("PING"));
            for (int i = 0; i < 12; i++) {
                Thread.sleep(200);
                assertEquals("PONG", busy.call("PING"));
            }
            assertThrows(IOException.class, () -> idle.call("PING"), "closed after 1 s without traffic");
        }
    }

    @Test
    void aClientThatDoesNotReadItsRepliesIsDisconnectedAtTheOutputLimit() throws Exception {
        startServer(b -> b.maxOutputBufferBytes(1 << 20));
        String big = "x".repeat(200_000);
        try (RespClient writer = new RespClient(server.port()); RespClient greedy = new RespClient(server.port())) {
            assertEquals("OK", writer.call("SET", "big", big));
            StringBuilder pipeline = new StringBuilder();
            for (int i = 0; i < 100; i++) {
                pipeline.append(new String(RespClient.encode("GET", "big"), java.nio.charset.StandardCharsets.UTF_8));
            }
            greedy.sendRaw(pipeline.toString()); // 20 MB of replies asked for at once
            int replies = 0;
            try {
                while (replies < 100) {
                    assertEquals(big, greedy.read());
                    replies++;
                }
            } catch (IOException closed) {
                // expected: the server gave up on this client
            }
            assertTrue(replies < 100, "the client got all " + replies + " replies over a 1 MiB output limit");
            assertEquals("PONG", writer.call("PING"), "other clients are unaffected");
            assertTrue(((String) writer.call("INFO", "stats")).contains("total_commands_processed:"));
        }
    }

    @Test
    void anyAddressIsServedWithAPasswordOnly() throws Exception {
        assertThrows(dev.ferrite.FerriteException.class,
                () -> KvServer.builder().bind("0.0.0.0").port(0).dataDirectory(data).start());
        startServer(b -> b.bind("0.0.0.0").requirePassword("pw"));
        try (RespClient c = new RespClient(server.port())) {
            assertEquals(new Err("NOAUTH Authentication required."), c.call("GET", "k"));
            assertEquals("OK", c.call("AUTH", "pw"));
            assertEquals("OK", c.call("SET", "k", "v"));
        }
    }

    @Test
    void aTakenPortIsNamedAndNothingIsLeftOpen() throws Exception {
        startServer(b -> b.httpPort(0));
        dev.ferrite.FerriteException resp = assertThrows(dev.ferrite.FerriteException.class,
                () -> KvServer.builder().port(server.port()).dataDirectory(data.resolve("other")).start());
        assertTrue(resp.getMessage().startsWith("cannot listen on 127.0.0.1, port " + server.port() + " (RESP)"),
                resp.getMessage());
        dev.ferrite.FerriteException http = assertThrows(dev.ferrite.FerriteException.class,
                () -> KvServer.builder().port(0).httpPort(server.httpPort()).dataDirectory(data.resolve("other")).start());
        assertTrue(http.getMessage().startsWith("cannot listen on 127.0.0.1, port " + server.httpPort() + " (HTTP)"),
                http.getMessage());
        // The failed starts closed their databases: a third server opens the same directory.
        try (KvServer third = KvServer.builder().port(0).dataDirectory(data.resolve("other")).start();
             RespClient c = new RespClient(third.port())) {
            assertEquals("PONG", c.call("PING"));
        }
    }

    @Test
    void expiredKeysNobodyReadsAreReclaimedInTheBackground() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            for (int i = 0; i < 1000; i++) {
                c.send("SET", "temp:" + i, "v", "PX", "100");
            }
            for (int i = 0; i < 10; i++) {
                c.send("SET", "keep:" + i, "v");
            }
            for (int i = 0; i < 1010; i++) {
                assertEquals("OK", c.read());
            }
            long size = (Long) c.call("DBSIZE");
            assertTrue(size > 10, "entries before expiry: " + size);
            long deadline = System.currentTimeMillis() + 10_000;
            while ((size = (Long) c.call("DBSIZE")) > 10 && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(10, size, "expired entries left in the map without any read of them");
            assertTrue(((String) c.call("INFO", "stats")).contains("expired_keys:1000"));
        }
    }

    @Test
    void theReaperRestsOnAKeyspaceWithoutExpiriesAndWakesForANewOne() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            for (int i = 0; i < 5000; i++) {
                c.send("SET", "keep:" + i, "v");
            }
            for (int i = 0; i < 5000; i++) {
                assertEquals("OK", c.read());
            }
            awaitResting(true);
            assertEquals("OK", c.call("SET", "temp", "v", "PX", "100"));
            awaitSize(c, 5000); // reclaimed without a read: the write woke the reaper
            assertTrue(((String) c.call("INFO", "stats")).contains("expired_keys:1"));
            awaitResting(true);
            assertEquals(1L, c.call("PEXPIRE", "keep:1", "100"));
            awaitSize(c, 4999);
            assertEquals("OK", c.call("SET", "moved", "v", "PX", "60000"));
            awaitResting(false); // an expiring entry it has seen keeps it awake
            Thread.sleep(500);
            assertFalse(server.expiryReaper().resting(0), "resting while 'moved' expires in a minute");
        }
    }

    private void awaitResting(boolean resting) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (server.expiryReaper().resting(0) != resting && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(resting, server.expiryReaper().resting(0), "the expiry reaper's rest");
    }

    private static void awaitSize(RespClient c, long expected) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        long size;
        while ((size = (Long) c.call("DBSIZE")) != expected && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(expected, size, "entries in the map");
    }
}
