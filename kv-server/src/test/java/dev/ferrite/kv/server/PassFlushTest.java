package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Requests run at the end of the event loop's pass ({@link PassFlush}), within its budget. */
class PassFlushTest extends ServerFixture {

    @Test
    void aPassCountsTheBytesItDefersAndStartsAfreshAfterItRan() {
        PassFlush pass = PassFlush.ofCurrentLoop();
        pass.run(); // whatever an earlier test on this thread left
        byte[][] small = {"SET".getBytes(StandardCharsets.US_ASCII), new byte[10], new byte[100]};
        assertTrue(pass.defer(small));
        long smallBytes = PassFlush.REQUEST_OVERHEAD + 3 + 10 + 100;
        long rest = PassFlush.BUDGET_BYTES - smallBytes - PassFlush.REQUEST_OVERHEAD - 3 - 10;
        byte[][] large = {"SET".getBytes(StandardCharsets.US_ASCII), new byte[10], new byte[(int) rest]};
        assertTrue(pass.defer(large), "exactly the budget");
        assertFalse(pass.defer(new byte[][] {new byte[0]}), "one request more");
        pass.run();
        assertTrue(pass.defer(small));
        pass.run();
    }

    /**
     * Three connections on one event loop each send 1.5 MiB of APPENDs in one write, more than a
     * pass defers: those past the budget run as they are read, the others at the pass's end. Every
     * APPEND must run once and in its connection's order: each reply is the length so far.
     */
    @Test
    void requestsPastThePassesBudgetRunOnceAndInOrder() throws Exception {
        startServer(b -> b.threads(1));
        int clients = 3;
        int appends = 48;
        int chunk = 32 << 10;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                String key = "log" + t;
                String value = String.valueOf((char) ('a' + t)).repeat(chunk);
                done.add(pool.submit(() -> {
                    String one = new String(RespClient.encode("APPEND", key, value), StandardCharsets.UTF_8);
                    try (RespClient c = new RespClient(server.port())) {
                        c.sendRaw(one.repeat(appends));
                        for (int i = 1; i <= appends; i++) {
                            assertEquals((long) i * chunk, c.read(), key + ", APPEND " + i);
                        }
                        assertEquals((long) appends * chunk, c.call("STRLEN", key));
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
}
