package dev.ferrite.kv.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sharding by an existing proxy: twemproxy ({@code nutcracker}, Debian's package) in front of two
 * servers, with the configuration the README shows; Jedis and redis-benchmark go through it and
 * each server holds a share of the keys.
 */
class TwemproxyTest {

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The pool definition the README documents, for two servers. */
    static String config(int listenPort, int first, int second) {
        return String.join("\n",
                "ferrite:",
                "  listen: 127.0.0.1:" + listenPort,
                "  redis: true",
                "  hash: fnv1a_64",
                "  distribution: ketama",
                "  auto_eject_hosts: false",
                "  servers:",
                "   - 127.0.0.1:" + first + ":1 shard-a",
                "   - 127.0.0.1:" + second + ":1 shard-b",
                "");
    }

    @Test
    void keysAreShardedOverTwoServersThroughNutcracker() throws Exception {
        String nutcracker = ExternalTools.require("nutcracker", "nutcracker");
        String benchmark = ExternalTools.require("redis-benchmark", "redis-tools");
        KvServer a = KvServer.builder().port(0).dataDirectory(dir.resolve("a")).threads(1).start();
        open.add(a);
        KvServer b = KvServer.builder().port(0).dataDirectory(dir.resolve("b")).threads(1).start();
        open.add(b);
        int proxyPort = freePort();
        Path conf = dir.resolve("nutcracker.yml");
        Files.writeString(conf, config(proxyPort, a.port(), b.port()));
        Process proxy = new ProcessBuilder(nutcracker, "-c", conf.toString(), "-s", Integer.toString(freePort()),
                "-a", "127.0.0.1", "-o", dir.resolve("nutcracker.log").toString()).start();
        open.add(() -> {
            proxy.destroy();
            proxy.waitFor(10, TimeUnit.SECONDS);
        });

        DefaultJedisClientConfig plain = DefaultJedisClientConfig.builder()
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED).socketTimeoutMillis(10_000).build();
        try (Jedis viaProxy = connectWhenUp(proxyPort, plain, proxy)) {
            for (int i = 0; i < 1000; i++) {
                assertEquals("OK", viaProxy.set("user:" + i, "v" + i));
            }
            for (int i = 0; i < 1000; i += 7) {
                assertEquals("v" + i, viaProxy.get("user:" + i));
            }
            assertEquals(List.of("v1", "v2", "v999"), viaProxy.mget("user:1", "user:2", "user:999"), "MGET split over shards");
            assertEquals(6, viaProxy.incr("counter"));
        }
        try (Jedis direct = new Jedis(new HostAndPort("127.0.0.1", a.port()), plain)) {
            long onA = direct.dbSize();
            try (Jedis other = new Jedis(new HostAndPort("127.0.0.1", b.port()), plain)) {
                long onB = other.dbSize();
                assertEquals(1001, onA + onB, "every key on exactly one shard");
                assertTrue(onA > 300 && onB > 300, "both shards hold a share: " + onA + " and " + onB);
            }
        }

        Process bench = new ProcessBuilder(benchmark, "-p", Integer.toString(proxyPort), "-t", "set,get", "-n", "20000",
                "-r", "10000", "-c", "10", "-P", "8", "-q").redirectErrorStream(true).start();
        String out = new String(bench.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(bench.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, bench.exitValue(), out);
        assertTrue(out.contains("SET:") && out.contains("GET:"), out);
        try (Jedis direct = new Jedis(new HostAndPort("127.0.0.1", a.port()), plain);
             Jedis other = new Jedis(new HostAndPort("127.0.0.1", b.port()), plain)) {
            assertTrue(direct.dbSize() + other.dbSize() > 1001, "redis-benchmark's keys landed on the shards");
        }
    }

    private static Jedis connectWhenUp(int port, DefaultJedisClientConfig config, Process proxy) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                Jedis j = new Jedis(new HostAndPort("127.0.0.1", port), config);
                j.set("counter", "5");
                return j;
            } catch (RuntimeException notYet) {
                if (!proxy.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError("nutcracker did not start serving (alive: " + proxy.isAlive() + ")", notYet);
                }
                Thread.sleep(100);
            }
        }
    }
}
