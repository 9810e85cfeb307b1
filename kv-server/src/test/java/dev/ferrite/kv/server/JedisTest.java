package dev.ferrite.kv.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.GetExParams;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Jedis, a real Redis client, against the server: every command, pipelined and not, against a model. */
class JedisTest extends ServerFixture {

    @BeforeEach
    void start() {
        startServer(b -> b.threads(2));
    }

    private Jedis jedis() {
        return new Jedis("127.0.0.1", server.port());
    }

    @Test
    void connectionAndServerCommands() {
        try (Jedis j = jedis()) {
            assertEquals("PONG", j.ping());
            assertEquals("hi", j.echo("hi"));
            assertEquals("OK", j.clientSetname("jedis-test"));
            assertEquals("jedis-test", j.clientGetname());
            assertTrue(j.clientId() > 0);
            assertEquals("OK", j.select(3));
            j.set("in3", "x");
            assertEquals(1, j.dbSize());
            assertEquals("OK", j.select(0));
            assertEquals(0, j.dbSize());
            assertThrows(JedisDataException.class, () -> j.select(16), "ERR DB index is out of range");
            List<String> time = j.time();
            assertTrue(Math.abs(Long.parseLong(time.get(0)) - System.currentTimeMillis() / 1000) < 5);
            String info = j.info();
            assertTrue(info.contains("# Server") && info.contains("connected_clients:") && info.contains("db3:keys=1"), info);
            assertTrue(j.info("memory").contains("used_memory:"));
            assertFalse(j.info("memory").contains("# Server"));
            Map<String, String> config = j.configGet("maxclients");
            assertEquals("10000", config.get("maxclients"));
            assertEquals("OK", j.flushAll());
            j.select(3);
            assertEquals(0, j.dbSize());
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.sendCommand(() -> "NOSUCH".getBytes()));
            assertTrue(e.getMessage().startsWith("ERR unknown command 'NOSUCH'"), e.getMessage());
        }
    }

    @Test
    void stringCommands() {
        try (Jedis j = jedis()) {
            assertEquals("OK", j.set("k", "v1"));
            assertEquals("v1", j.get("k"));
            assertNull(j.set("k", "v2", SetParams.setParams().nx()));
            assertEquals("OK", j.set("k", "v2", SetParams.setParams().xx().ex(100)));
            assertTrue(j.ttl("k") > 95);
            assertEquals("v2", j.setGet("k", "v3"));
            assertEquals(-1, j.ttl("k"));
            assertEquals(0, j.setnx("k", "x"));
            assertEquals(1, j.setnx("n", "x"));
            assertEquals("OK", j.setex("e", 50, "ev"));
            assertTrue(j.ttl("e") > 45);
            assertEquals("OK", j.psetex("p", 50_000, "pv"));
            assertTrue(j.pttl("p") > 45_000);
            assertEquals("v3", j.getSet("k", "v4"));
            assertEquals("v4", j.getDel("k"));
            assertNull(j.get("k"));
            assertEquals("ev", j.getEx("e", GetExParams.getExParams().persist()));
            assertEquals(-1, j.ttl("e"));
            assertEquals("ev", j.getEx("e", GetExParams.getExParams().px(80_000)));
            assertTrue(j.pttl("e") > 75_000);
            assertEquals("OK", j.mset("a", "1", "b", "2"));
            assertEquals(List.of("1", "2", "x"), j.mget("a", "b", "n"));
            assertEquals(0, j.msetnx("a", "9", "fresh", "1"));
            assertNull(j.get("fresh"), "MSETNX sets none when one key exists");
            assertEquals(1, j.msetnx("f1", "1", "f2", "2"));
            assertEquals(List.of("1", "2"), j.mget("f1", "f2"));
            assertEquals(2, j.incr("a"));
            assertEquals(12, j.incrBy("a", 10));
            assertEquals(11, j.decr("a"));
            assertEquals(1, j.decrBy("a", 10));
            assertEquals(10.5, j.incrByFloat("a", 9.5));
            assertEquals("10.5", j.get("a"));
            assertThrows(JedisDataException.class, () -> j.incr("a"));
            assertEquals(7, j.append("s", "Hello, "));
            assertEquals(12, j.append("s", "World"));
            assertEquals(12, j.strlen("s"));
            assertEquals("World", j.getrange("s", 7, -1));
            assertEquals("Hello", j.getrange("s", 0, 4));
            assertEquals(12, j.setrange("s", 7, "Redis"));
            assertEquals("Hello, Redis", j.get("s"));
            assertEquals(9, j.setrange("z", 6, "abc"));
            assertEquals("\0\0\0\0\0\0abc", j.get("z"));
            assertEquals(3, j.del("s", "z", "missing", "n"));
            assertEquals(1, j.unlink("b"));
            assertEquals(2, j.exists("a", "f1", "nope"));
            assertEquals("string", j.type("a"));
            assertEquals("none", j.type("nope"));
        }
    }

    @Test
    void expiryAndKeyCommands() throws Exception {
        try (Jedis j = jedis()) {
            j.set("x", "1");
            assertEquals(1, j.expire("x", 100));
            assertTrue(j.ttl("x") > 95);
            assertEquals(1, j.pexpire("x", 100_000));
            assertEquals(1, j.expireAt("x", System.currentTimeMillis() / 1000 + 200));
            assertTrue(j.ttl("x") > 190);
            assertEquals(1, j.pexpireAt("x", System.currentTimeMillis() + 300_000));
            assertEquals(1, j.persist("x"));
            assertEquals(0, j.persist("x"));
            assertEquals(-1, j.ttl("x"));
            assertEquals(-2, j.ttl("nope"));
            assertEquals(0, j.expire("nope", 10));
            j.psetex("short", 50, "gone soon");
            Thread.sleep(120);
            assertNull(j.get("short"));
            assertFalse(j.exists("short"));

            for (int i = 0; i < 300; i++) {
                j.set("user:" + i, "u" + i);
            }
            j.set("other", "o");
            Set<String> keys = j.keys("user:1?");
            assertEquals(new TreeSet<>(List.of("user:10", "user:11", "user:12", "user:13", "user:14", "user:15",
                    "user:16", "user:17", "user:18", "user:19")), new TreeSet<>(keys));
            assertEquals(302, j.keys("*").size());

            Set<String> scanned = new HashSet<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> r = j.scan(cursor, new ScanParams().match("user:*").count(25));
                scanned.addAll(r.getResult());
                cursor = r.getCursor();
            } while (!cursor.equals("0"));
            assertEquals(300, scanned.size());
            assertTrue(scanned.stream().allMatch(k -> k.startsWith("user:")));
            JedisDataException bad = assertThrows(JedisDataException.class, () -> j.scan("abc"));
            assertEquals("ERR invalid cursor", bad.getMessage());

            String random = j.randomKey();
            assertTrue(random.startsWith("user:") || random.equals("x") || random.equals("other"), random);
            assertEquals("OK", j.rename("other", "renamed"));
            assertNull(j.get("other"));
            assertEquals("o", j.get("renamed"));
            assertEquals(0, j.renamenx("renamed", "x"));
            assertEquals(1, j.renamenx("renamed", "again"));
            JedisDataException missing = assertThrows(JedisDataException.class, () -> j.rename("nope", "y"));
            assertEquals("ERR no such key", missing.getMessage());
            j.flushDB();
            assertNull(j.randomKey());
        }
    }

    /** The same random operations unpipelined and pipelined, each reply checked against a HashMap. */
    @Test
    void randomOperationsMatchAModelPipelinedAndNot() {
        try (Jedis j = jedis()) {
            for (boolean pipelined : new boolean[] {false, true}) {
                j.flushDB();
                Map<String, String> model = new HashMap<>();
                Random r = new Random(pipelined ? 2 : 1);
                List<Object> expected = new ArrayList<>();
                List<Object> actual = new ArrayList<>();
                List<Response<?>> responses = new ArrayList<>();
                Pipeline p = pipelined ? j.pipelined() : null;
                for (int i = 0; i < 3000; i++) {
                    String k = "k" + r.nextInt(40);
                    String v = Integer.toString(r.nextInt(1000));
                    int op = r.nextInt(9);
                    Object want;
                    Object got = null;
                    Response<?> pending = null;
                    switch (op) {
                        case 0 -> {
                            want = "OK";
                            model.put(k, v);
                            if (p != null) pending = p.set(k, v); else got = j.set(k, v);
                        }
                        case 1 -> {
                            want = model.get(k);
                            if (p != null) pending = p.get(k); else got = j.get(k);
                        }
                        case 2 -> {
                            want = model.remove(k) != null ? 1L : 0L;
                            if (p != null) pending = p.del(k); else got = j.del(k);
                        }
                        case 3 -> {
                            String old = model.get(k);
                            boolean integer = old == null || old.matches("-?[1-9][0-9]{0,8}|0");
                            if (!integer) {
                                continue; // the error is tested elsewhere; keep the pipeline's replies plain
                            }
                            long next = (old == null ? 0 : Long.parseLong(old)) + 1;
                            model.put(k, Long.toString(next));
                            want = next;
                            if (p != null) pending = p.incr(k); else got = j.incr(k);
                        }
                        case 4 -> {
                            String joined = model.getOrDefault(k, "") + "+";
                            model.put(k, joined);
                            want = (long) joined.length();
                            if (p != null) pending = p.append(k, "+"); else got = j.append(k, "+");
                        }
                        case 5 -> {
                            want = model.containsKey(k) ? 0L : 1L;
                            model.putIfAbsent(k, v);
                            if (p != null) pending = p.setnx(k, v); else got = j.setnx(k, v);
                        }
                        case 6 -> {
                            want = model.put(k, v);
                            if (p != null) pending = p.getSet(k, v); else got = j.getSet(k, v);
                        }
                        case 7 -> {
                            String k2 = "k" + r.nextInt(40);
                            List<String> w = new ArrayList<>();
                            w.add(model.get(k));
                            w.add(model.get(k2));
                            want = w;
                            if (p != null) pending = p.mget(k, k2); else got = j.mget(k, k2);
                        }
                        default -> {
                            String old = model.get(k);
                            want = (long) (old == null ? 0 : old.length());
                            if (p != null) pending = p.strlen(k); else got = j.strlen(k);
                        }
                    }
                    expected.add(want);
                    if (pending != null) {
                        responses.add(pending);
                    } else {
                        actual.add(got);
                    }
                }
                if (p != null) {
                    p.sync();
                    for (Response<?> resp : responses) {
                        actual.add(resp.get());
                    }
                }
                assertEquals(expected, actual, pipelined ? "pipelined" : "unpipelined");
                for (Map.Entry<String, String> e : model.entrySet()) {
                    assertEquals(e.getValue(), j.get(e.getKey()));
                }
                assertEquals(model.size(), j.dbSize());
            }
        }
    }

    @Test
    void aPasswordIsRequiredWhenSetAndCheckedAsRedisChecksIt() {
        server.close();
        startServer(b -> b.requirePassword("s3cret"));
        try (Jedis anonymous = jedis()) {
            JedisDataException e = assertThrows(JedisDataException.class, () -> anonymous.get("k"));
            assertEquals("NOAUTH Authentication required.", e.getMessage());
            JedisDataException wrong = assertThrows(JedisDataException.class, () -> anonymous.auth("nope"));
            assertTrue(wrong.getMessage().startsWith("WRONGPASS"), wrong.getMessage());
            assertEquals("OK", anonymous.auth("s3cret"));
            assertEquals("OK", anonymous.set("k", "v"));
        }
        try (Jedis configured = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().password("s3cret").clientName("with-password").build())) {
            assertEquals("v", configured.get("k"));
            assertEquals("with-password", configured.clientGetname());
        }
        try (Jedis withUser = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().user("default").password("s3cret").build())) {
            assertEquals("v", withUser.get("k"));
        }
    }
}
