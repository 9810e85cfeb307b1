package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FLUSHDB and FLUSHALL while other connections, on other event loops, read and write the same
 * databases: no command fails on a dropped map, and what is written after a flush's reply stays.
 */
class FlushUnderLoadTest extends ServerFixture {

    @Test
    void flushesAmidWritersFailNoCommandAndKeepLaterWrites() throws Exception {
        startServer(b -> b.threads(2));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLongArray written = new AtomicLongArray(2);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<Long>> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int id = w;
                writers.add(pool.submit(() -> {
                    long n = 0;
                    try (RespClient c = new RespClient(server.port())) {
                        c.call("SELECT", Integer.toString(id));
                        while (!stop.get()) {
                            Object set = c.call("SET", "w" + id + ":" + n, "v");
                            Object get = c.call("GET", "w" + id + ":" + n);
                            assertEquals("OK", set);
                            assertTrue(get == null || "v".equals(get), String.valueOf(get));
                            assertTrue(c.call("DBSIZE") instanceof Long);
                            written.set(id, ++n);
                        }
                    }
                    return n;
                }));
            }
            try (RespClient c = new RespClient(server.port())) {
                // 40 flushes at least, and on until each writer has written 20 keys (a busy host may
                // start one late), or 60 s have passed
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                for (int i = 0; i < 40 || Math.min(written.get(0), written.get(1)) < 20 && System.nanoTime() < deadline; i++) {
                    c.call("SELECT", Integer.toString(i % 2));
                    assertEquals("OK", c.call(i % 3 == 0 ? "FLUSHALL" : "FLUSHDB"));
                    Thread.sleep(20);
                }
            }
            stop.set(true);
            for (Future<Long> w : writers) {
                assertTrue(w.get() > 0, "each writer wrote while the databases were flushed: " + written);
            }
            try (RespClient c = new RespClient(server.port())) {
                assertEquals("OK", c.call("FLUSHALL"));
                assertEquals("OK", c.call("SET", "after", "flush"));
                assertEquals(1L, c.call("DBSIZE"));
                assertEquals("flush", c.call("GET", "after"));
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }
}
