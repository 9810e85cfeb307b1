package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocked clients: served longest waiting first, each element to one client; a client that goes
 * away while blocked takes nothing with it; a timeout answers nil and leaves the client's next
 * requests to run; the requests pipelined behind a blocked one wait for it.
 */
class BlockingListsTest extends ServerFixture {

    private static void awaitBlocked(RespClient c, long n) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            String info = (String) c.call("INFO", "clients");
            if (info.contains("blocked_clients:" + n + "\r\n")) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "not " + n + " blocked clients in 10 s: " + info);
            Thread.sleep(5);
        }
    }

    @Test
    void clientsAreServedInTheOrderTheyBlockedAndNoElementIsLostToAClosedOne() throws Exception {
        startServer(b -> b.threads(2));
        try (RespClient writer = new RespClient(server.port());
             RespClient first = new RespClient(server.port());
             RespClient second = new RespClient(server.port())) {
            RespClient gone = new RespClient(server.port());
            gone.send("BLPOP", "q", "0");
            awaitBlocked(writer, 1);
            gone.close(); // blocked, then gone: it must not take the next element
            awaitBlocked(writer, 0);
            first.send("BRPOP", "q", "0");
            awaitBlocked(writer, 1);
            second.send("BLPOP", "q", "other", "0");
            second.send("ECHO", "after"); // pipelined behind the blocked request
            awaitBlocked(writer, 2);
            assertEquals(3L, writer.call("RPUSH", "q", "a", "b", "c"));
            assertEquals(List.of("q", "c"), first.read()); // BRPOP: the tail
            assertEquals(List.of("q", "a"), second.read());
            assertEquals("after", second.read());
            assertEquals(List.of("b"), writer.call("LRANGE", "q", "0", "-1"));
        }
    }

    @Test
    void aTimeoutAnswersNilAndAChainOfMovesRunsThroughAtOnce() throws Exception {
        startServer();
        try (RespClient writer = new RespClient(server.port());
             RespClient waiting = new RespClient(server.port());
             RespClient mover1 = new RespClient(server.port());
             RespClient mover2 = new RespClient(server.port())) {
            long start = System.nanoTime();
            assertNull(waiting.call("BLPOP", "nothing", "0.2"));
            assertTrue(System.nanoTime() - start >= 150_000_000L, "BLPOP answered before its timeout");
            assertEquals("PONG", waiting.call("PING"));

            mover1.send("BLMOVE", "l1", "l2", "RIGHT", "LEFT", "0");
            awaitBlocked(writer, 1);
            mover2.send("BLMOVE", "l2", "l3", "LEFT", "RIGHT", "0");
            awaitBlocked(writer, 2);
            assertEquals(1L, writer.call("RPUSH", "l1", "x"));
            // served before RPUSH's reply: the element is through both moves already
            assertEquals(List.of(), writer.call("LRANGE", "l1", "0", "-1"));
            assertEquals(List.of(), writer.call("LRANGE", "l2", "0", "-1"));
            assertEquals(List.of("x"), writer.call("LRANGE", "l3", "0", "-1"));
            assertEquals("x", mover1.read());
            assertEquals("x", mover2.read());
        }
    }
}
