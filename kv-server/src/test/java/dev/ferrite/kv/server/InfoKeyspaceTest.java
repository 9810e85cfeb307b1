package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INFO's keyspace lines in Redis's form, {@code db0:keys=N,expires=E,avg_ttl=T}: monitoring tools
 * (redis_exporter, redis-py's {@code info()}) split that line into its three fields.
 */
class InfoKeyspaceTest extends ServerFixture {

    @Test
    void theKeyspaceLineCountsExpiringKeysAndTheirAverageTimeToLive() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            for (int i = 0; i < 100; i++) {
                c.send("SET", "plain:" + i, "v");
            }
            for (int i = 0; i < 40; i++) {
                c.send("SET", "timed:" + i, "v", "PX", "60000");
            }
            for (int i = 0; i < 140; i++) {
                assertEquals("OK", c.read());
            }
            String line = awaitLine(c, l -> l.contains("expires=40,"));
            assertTrue(line.startsWith("db0:keys=140,expires=40,avg_ttl="), line);
            long ttl = Long.parseLong(line.substring(line.lastIndexOf('=') + 1));
            assertTrue(ttl > 50_000 && ttl <= 60_000, "avg_ttl " + ttl + " ms of keys set to live 60000 ms");

            for (int i = 0; i < 10; i++) {
                assertEquals(1L, c.call("PERSIST", "timed:" + i));
            }
            awaitLine(c, l -> l.startsWith("db0:keys=140,expires=30,"));
            for (int i = 10; i < 40; i++) {
                assertEquals(1L, c.call("PERSIST", "timed:" + i));
            }
            assertEquals("db0:keys=140,expires=0,avg_ttl=0", awaitLine(c, l -> l.contains("expires=0,")));
        }
    }

    @Test
    void aDatabaseWithoutExpiriesSaysSoInRedisForm() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SELECT", "3"));
            assertEquals("OK", c.call("SET", "k", "v"));
            assertEquals("db3:keys=1,expires=0,avg_ttl=0", keyspaceLine(c, "db3:"));
        }
    }

    /** Waits (up to 10 s) until INFO's db0 line satisfies the condition; the reaper counts in passes. */
    private static String awaitLine(RespClient c, Predicate<String> condition) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        String line = keyspaceLine(c, "db0:");
        while (!condition.test(line) && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            line = keyspaceLine(c, "db0:");
        }
        assertTrue(condition.test(line), "INFO keyspace's db0 line: " + line);
        return line;
    }

    private static String keyspaceLine(RespClient c, String prefix) throws Exception {
        String info = (String) c.call("INFO", "keyspace");
        for (String l : info.split("\r\n")) {
            if (l.startsWith(prefix)) {
                return l;
            }
        }
        return "(no " + prefix + " line in: " + info + ")";
    }
}
