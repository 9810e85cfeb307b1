package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server process killed with SIGKILL while a client streams SETs and INCRs (changed in place)
 * loses no acknowledged write: the maps are memory-mapped files, so a reply leaves only after the
 * value is in the file's pages.
 */
class KillDashNineTest {

    @TempDir
    Path data;

    @Test
    void everyAcknowledgedSetSurvivesAKillOfTheServer() throws Exception {
        for (int round = 0; round < 3; round++) {
            int port = ServerProcesses.freePort();
            Process server = ServerProcesses.start(port, data, data.resolve("server.log"));
            long acknowledged = -1;
            long counted = 0;
            try (RespClient c = ServerProcesses.connect(port, server)) {
                c.call("SELECT", "2");
                // The kill comes 300-1000 ms after the first SET is acknowledged, not after the
                // connect: a first SET that opens the map on a slow machine must not outlast the wait.
                long killAt = Long.MAX_VALUE;
                boolean killed = false;
                for (long i = 0; ; i++) {
                    if (killAt == Long.MAX_VALUE && acknowledged >= 0) {
                        killAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300 + ThreadLocalRandom.current().nextInt(700));
                    }
                    if (!killed && System.nanoTime() > killAt) {
                        server.destroyForcibly(); // SIGKILL: no shutdown hook runs
                        killed = true;
                    }
                    try {
                        Object reply = c.call("SET", "round" + round + ":" + i, "value-" + i);
                        assertEquals("OK", reply);
                        acknowledged = i;
                        counted = (Long) c.call("INCR", "counter" + round); // in place but a digit more
                    } catch (IOException e) {
                        break; // the server is gone
                    }
                }
            }
            assertTrue(server.waitFor(10, TimeUnit.SECONDS));
            assertTrue(acknowledged > 0, "round " + round + ": some SETs were acknowledged before the kill");
            try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
                 RespClient c = new RespClient(restarted.port())) {
                c.call("SELECT", "2");
                long counter = Long.parseLong((String) c.call("GET", "counter" + round));
                assertTrue(counter == counted || counter == counted + 1, "round " + round + ": the counter holds "
                        + counter + ", its last acknowledged INCR replied " + counted
                        + " (one more may have been applied without its reply arriving)");
                List<String> missing = new ArrayList<>();
                for (long i = 0; i <= acknowledged; i++) {
                    Object v = c.call("GET", "round" + round + ":" + i);
                    if (!("value-" + i).equals(v)) {
                        missing.add(i + "=" + v);
                    }
                }
                assertEquals(List.of(), missing, "round " + round + ": " + (acknowledged + 1) + " acknowledged SETs");
            }
        }
    }

    @Test
    void sigtermStopsTheServerCleanlyAndARestartKeepsValuesAndExpiry() throws Exception {
        int port = ServerProcesses.freePort();
        Process server = ServerProcesses.start(port, data, data.resolve("server.log"));
        try (RespClient c = ServerProcesses.connect(port, server)) {
            for (int i = 0; i < 1000; i++) {
                c.send("SET", "k" + i, "v" + i);
            }
            for (int i = 0; i < 1000; i++) {
                assertEquals("OK", c.read());
            }
            assertEquals("OK", c.call("SET", "expiring", "x", "EX", "1000"));
        }
        server.destroy(); // SIGTERM: the shutdown hook closes connections and maps
        assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server stops on SIGTERM");
        assertEquals(143, server.exitValue(), "exit status of a JVM ended by SIGTERM after its hooks ran");
        long start = System.nanoTime();
        try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
             RespClient c = new RespClient(restarted.port())) {
            long reopenMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(reopenMillis < 5_000, "reopened in " + reopenMillis + " ms");
            assertEquals(1001L, c.call("DBSIZE"));
            assertEquals("v999", c.call("GET", "k999"));
            long ttl = (Long) c.call("TTL", "expiring");
            assertTrue(ttl > 990 && ttl <= 1000, "the expiry survived the restart: " + ttl);
        }
    }
}
