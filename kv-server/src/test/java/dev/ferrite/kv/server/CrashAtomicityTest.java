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
 * Server processes killed with SIGKILL at random instants inside the commands that change more
 * than one thing at once, then restarted: every restart succeeds, every acknowledged write is
 * there, and each command is found whole or not at all.
 */
class CrashAtomicityTest {

    @TempDir
    Path data;
    /** Where the server processes write their logs: not in the data directory. */
    @TempDir
    Path logs;

    /**
     * The first writes to databases that do not exist yet make them; a kill during the making
     * must leave the server able to start, with every other database whole.
     */
    @Test
    void aKillWhileNewDatabasesAreMadeLeavesAServerThatStarts() throws Exception {
        for (int round = 0; round < 6; round++) {
            int port = ServerProcesses.freePort();
            Process server = ServerProcesses.start(port, data, logs.resolve("server.log"));
            List<String> acknowledged = new ArrayList<>();
            try (RespClient c = ServerProcesses.connect(port, server)) {
                if (round == 0) {
                    c.call("SELECT", "0");
                    assertEquals("OK", c.call("SET", "old", "kept")); // a database that exists before the kills
                }
                Thread killer = ServerProcesses.killLater(server, ThreadLocalRandom.current().nextInt(1500));
                try {
                    for (int i = 0; ; i++) {
                        int db = 1 + (round * 3 + i) % 15; // new databases, one after the other
                        c.send("SELECT", Integer.toString(db));
                        c.send("SET", "r" + round + ":" + i, "v");
                        c.read();
                        if ("OK".equals(c.read())) {
                            acknowledged.add(db + "/r" + round + ":" + i);
                        }
                    }
                } catch (IOException gone) {
                    // the server is gone
                }
                killer.join();
            }
            assertTrue(server.waitFor(10, TimeUnit.SECONDS));
            try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
                 RespClient c = new RespClient(restarted.port())) {
                assertEquals("kept", c.call("GET", "old"), "round " + round);
                for (String written : acknowledged) {
                    String[] dbKey = written.split("/", 2);
                    c.call("SELECT", dbKey[0]);
                    assertEquals("v", c.call("GET", dbKey[1]), "round " + round + ": acknowledged " + written);
                }
                c.call("SELECT", "0");
            }
        }
    }

    /** FLUSHDB and FLUSHALL killed at random instants: each database is found whole or empty, never in between. */
    @Test
    void aKillDuringAFlushLeavesEachDatabaseWholeOrEmpty() throws Exception {
        int keys = 30_000;
        for (int round = 0; round < 8; round++) {
            boolean all = round % 2 == 0;
            int port = ServerProcesses.freePort();
            Process server = ServerProcesses.start(port, data, logs.resolve("server.log"));
            try (RespClient c = ServerProcesses.connect(port, server)) {
                for (int db : new int[] {3, 4}) {
                    c.call("SELECT", Integer.toString(db));
                    for (int i = 0; i < keys; i++) {
                        c.send("SET", "k" + i, "v" + i);
                    }
                    for (int i = 0; i < keys; i++) {
                        assertEquals("OK", c.read());
                    }
                }
                c.send(all ? "FLUSHALL" : "FLUSHDB"); // database 4 is selected
                Thread.sleep(ThreadLocalRandom.current().nextInt(all ? 30 : 10));
                server.destroyForcibly();
            }
            assertTrue(server.waitFor(10, TimeUnit.SECONDS));
            try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
                 RespClient c = new RespClient(restarted.port())) {
                long[] sizes = new long[2];
                for (int k = 0; k < 2; k++) {
                    c.call("SELECT", Integer.toString(3 + k));
                    sizes[k] = (Long) c.call("DBSIZE");
                    assertTrue(sizes[k] == 0 || sizes[k] == keys, "round " + round + ": database " + (3 + k)
                            + " holds " + sizes[k] + " keys, neither all " + keys + " nor none");
                }
                if (all) {
                    assertEquals(sizes[0], sizes[1], "round " + round + ": FLUSHALL dropped one database, not both");
                } else {
                    assertEquals(keys, sizes[0], "round " + round + ": FLUSHDB of database 4 left database 3 alone");
                }
                c.call("FLUSHALL"); // the next round starts empty
            }
        }
    }

    /**
     * MSET of many keys, RENAME back and forth, and MULTI/EXEC killed at random instants: after the
     * restart every MSET and EXEC is found whole (all its keys from one call, none newer than the
     * last one acknowledged plus the one in flight) and the renamed key under exactly one name.
     */
    @Test
    void aKillDuringMultiKeyCommandsLeavesEachWholeOrNotAtAll() throws Exception {
        int keys = 2000;
        int queued = 200;
        for (int round = 0; round < 8; round++) {
            int port = ServerProcesses.freePort();
            Process server = ServerProcesses.start(port, data, logs.resolve("server.log"));
            long acknowledged = -1;
            try (RespClient c = ServerProcesses.connect(port, server)) {
                c.call("FLUSHALL");
                assertEquals("OK", c.call("SET", "moving:a", "payload"));
                acknowledged = ServerProcesses.runUntilKilled(server, 800, i -> {
                    String[] mset = new String[1 + 2 * keys];
                    mset[0] = "MSET";
                    for (int k = 0; k < keys; k++) {
                        mset[1 + 2 * k] = "m" + k;
                        mset[2 + 2 * k] = Long.toString(i);
                    }
                    c.send(mset);
                    c.send("RENAME", i % 2 == 0 ? "moving:a" : "moving:b", i % 2 == 0 ? "moving:b" : "moving:a");
                    c.send("MULTI");
                    for (int k = 0; k < queued; k++) {
                        c.send("SET", "x" + k, Long.toString(i));
                    }
                    c.send("EXEC");
                    assertEquals("OK", c.read());
                    assertEquals("OK", c.read());
                    assertEquals("OK", c.read());
                    for (int k = 0; k < queued; k++) {
                        assertEquals("QUEUED", c.read());
                    }
                    assertTrue(c.read() instanceof List<?> l && l.size() == queued);
                });
            }
            try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
                 RespClient c = new RespClient(restarted.port())) {
                for (String prefix : List.of("m", "x")) {
                    int count = prefix.equals("m") ? keys : queued;
                    Object first = c.call("GET", prefix + 0);
                    long v = Long.parseLong((String) first);
                    assertTrue(v == acknowledged || v == acknowledged + 1, "round " + round + ": " + prefix
                            + "0 holds " + v + ", the last acknowledged wrote " + acknowledged);
                    for (int k = 1; k < count; k++) {
                        assertEquals(first, c.call("GET", prefix + k), "round " + round + ": " + prefix + k
                                + " is from another call than " + prefix + "0");
                    }
                }
                long names = (Long) c.call("EXISTS", "moving:a", "moving:b");
                assertEquals(1L, names, "round " + round + ": the renamed key is under one name");
            }
        }
    }

    /**
     * HSET of many fields, HDEL of a whole hash and its re-making, and RENAME of a hash back and
     * forth, and EXEC of hash writes, killed at random instants: after the restart every hash holds
     * the fields of one call (none newer than the last acknowledged plus the one in flight), the
     * emptied hash is whole or gone, the renamed one is under one name with all its fields, every
     * EXEC is whole or not at all, and once the sweep has run the
     * collection store holds the live hashes' entries and nothing else (no orphan survives).
     */
    @Test
    void aKillDuringHashCommandsLeavesEachWholeOrNotAtAll() throws Exception {
        int fields = 500;
        for (int round = 0; round < 6; round++) {
            int port = ServerProcesses.freePort();
            Process server = ServerProcesses.start(port, data, logs.resolve("server.log"));
            long acknowledged = -1;
            try (RespClient c = ServerProcesses.connect(port, server)) {
                c.call("FLUSHALL");
                assertEquals(100L, c.call(hsetOfPayloads("moving:a")));
                acknowledged = ServerProcesses.runUntilKilled(server, 800, i -> {
                    String[] hset = new String[2 + 2 * fields];
                    hset[0] = "HSET";
                    hset[1] = "h" + i % 3;
                    for (int k = 0; k < fields; k++) {
                        hset[2 + 2 * k] = "f" + k;
                        hset[3 + 2 * k] = Long.toString(i);
                    }
                    c.send(hset);
                    String[] hdel = new String[2 + fields];
                    hdel[0] = "HDEL";
                    hdel[1] = "h" + (i + 1) % 3;
                    for (int k = 0; k < fields; k++) {
                        hdel[2 + k] = "f" + k;
                    }
                    c.send(hdel);
                    c.send("RENAME", i % 2 == 0 ? "moving:a" : "moving:b", i % 2 == 0 ? "moving:b" : "moving:a");
                    c.send("DEL", "gone");
                    c.send("HSET", "gone", "f", Long.toString(i));
                    c.send("MULTI");
                    for (int k = 0; k < 50; k++) {
                        c.send("HSET", "x" + k, "f", Long.toString(i), "g" + i, "new");
                        c.send("HDEL", "x" + k, "g" + (i - 1));
                    }
                    c.send("SET", "xs", Long.toString(i));
                    c.send("EXEC");
                    c.read();
                    c.read();
                    assertEquals("OK", c.read());
                    c.read();
                    assertEquals(1L, c.read());
                    assertEquals("OK", c.read());
                    for (int k = 0; k < 101; k++) {
                        assertEquals("QUEUED", c.read());
                    }
                    assertTrue(c.read() instanceof List<?> l && l.size() == 101);
                });
            }
            try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
                 RespClient c = new RespClient(restarted.port())) {
                long expectedEntries = 1; // the next id
                for (int h = 0; h < 3; h++) {
                    Object all = c.call("HGETALL", "h" + h);
                    List<?> pairs = (List<?>) all;
                    if (pairs.isEmpty()) {
                        continue; // emptied by an HDEL
                    }
                    assertEquals(2 * fields, pairs.size(), "round " + round + ": h" + h + " holds part of a call");
                    Object first = pairs.get(1);
                    long v = Long.parseLong((String) first);
                    assertTrue(v <= acknowledged + 1, "round " + round + ": h" + h + " holds " + v
                            + ", the last acknowledged wrote " + acknowledged);
                    for (int k = 1; k < fields; k++) {
                        assertEquals(first, pairs.get(2 * k + 1), "round " + round + ": h" + h + " mixes calls");
                    }
                    expectedEntries += 1 + fields;
                }
                assertEquals(1L, c.call("EXISTS", "moving:a", "moving:b"), "round " + round + ": the renamed hash is under one name");
                String name = (Long) c.call("EXISTS", "moving:a") == 1 ? "moving:a" : "moving:b";
                assertEquals(100L, c.call("HLEN", name), "round " + round);
                assertEquals("payload99", c.call("HGET", name, "f99"));
                expectedEntries += 1 + 100;
                String xs = (String) c.call("GET", "xs"); // the last EXEC: whole, or none of it
                for (int k = 0; k < 50; k++) {
                    assertEquals(xs, c.call("HGET", "x" + k, "f"), "round " + round + ": x" + k + " is from another EXEC");
                    assertEquals(xs == null ? 0L : 2L, c.call("HLEN", "x" + k), "round " + round + ": x" + k);
                    if (xs != null) {
                        assertEquals("new", c.call("HGET", "x" + k, "g" + xs));
                        expectedEntries += 3;
                    }
                }
                if ((Long) c.call("EXISTS", "gone") == 1) {
                    assertEquals(1L, c.call("HLEN", "gone"));
                    expectedEntries += 2;
                }
                restarted.collectionSweeper().sweepAll();
                assertEquals(expectedEntries, restarted.databases().collections().entries(),
                        "round " + round + ": the store holds the live hashes' entries and no orphan");
            }
        }
    }

    /**
     * A server process killed at random while ZADD moves 300 members to new scores, ZREMRANGEBYSCORE
     * empties a sorted set and ZUNIONSTORE makes one: after a restart each sorted set holds one
     * call's scores for all its members or is gone, its members by score agree with its members
     * (ZCARD, ZCOUNT, ZSCORE of each), and after the sweep the store holds exactly their entries.
     */
    @Test
    void aKillDuringSortedSetCommandsLeavesEachWholeOrNotAtAll() throws Exception {
        int members = 300;
        for (int round = 0; round < 4; round++) {
            int port = ServerProcesses.freePort();
            Process server = ServerProcesses.start(port, data, logs.resolve("server.log"));
            long acknowledged = -1;
            try (RespClient c = ServerProcesses.connect(port, server)) {
                c.call("FLUSHALL");
                acknowledged = ServerProcesses.runUntilKilled(server, 800, i -> {
                    String[] zadd = new String[2 + 2 * members];
                    zadd[0] = "ZADD";
                    zadd[1] = "z" + i % 3;
                    for (int k = 0; k < members; k++) {
                        zadd[2 + 2 * k] = Long.toString(i * 1000 + (k % 7)); // seven scores per call, members mixed
                        zadd[3 + 2 * k] = "m" + k;
                    }
                    c.send(zadd);
                    c.send("ZREMRANGEBYSCORE", "z" + (i + 1) % 3, "-inf", "+inf");
                    c.send("ZUNIONSTORE", "u", "2", "z0", "z1");
                    c.read();
                    c.read();
                    c.read();
                });
            }
            try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
                 RespClient c = new RespClient(restarted.port())) {
                long expectedEntries = 1; // the next id
                for (String key : new String[] {"z0", "z1", "z2", "u"}) {
                    List<?> all = (List<?>) c.call("ZRANGE", key, "0", "-1", "WITHSCORES");
                    long card = (Long) c.call("ZCARD", key);
                    assertEquals(2 * card, all.size(), "round " + round + ": " + key + "'s members by score and its count agree");
                    assertEquals(card, c.call("ZCOUNT", key, "-inf", "+inf"), "round " + round + ": " + key);
                    if (card == 0) {
                        continue;
                    }
                    assertEquals(members, card, "round " + round + ": " + key + " holds part of a call");
                    long call = (long) Double.parseDouble((String) all.get(1)) / 1000;
                    assertTrue(key.equals("u") || call <= acknowledged + 1, "round " + round + ": " + key + " is from call "
                            + call + ", the last acknowledged was " + acknowledged);
                    for (int k = 0; k < all.size(); k += 2) {
                        String member = (String) all.get(k);
                        assertEquals(all.get(k + 1), c.call("ZSCORE", key, member), "round " + round + ": " + key + " " + member);
                        if (!key.equals("u")) {
                            int m = Integer.parseInt(member.substring(1));
                            assertEquals(Long.toString(call * 1000 + m % 7), all.get(k + 1), "round " + round + ": " + key
                                    + " mixes calls");
                        }
                    }
                    expectedEntries += 1 + 2L * members;
                }
                restarted.collectionSweeper().sweepAll();
                assertEquals(expectedEntries, restarted.databases().collections().entries(),
                        "round " + round + ": the store holds the live sorted sets' entries and no orphan");
            }
        }
    }

    /**
     * RENAME and MOVE of a hash back and forth, killed at random instants: after the restart the
     * hash is under one of its names whole, and the sweep leaves it whole: the owners its header
     * names include the name the journal's recovery left.
     */
    @Test
    void aKillDuringRenameOrMoveOfAHashLeavesItWholeAfterTheSweep() throws Exception {
        String[][] steps = {{"0", "RENAME", "a", "b"}, {"0", "MOVE", "b", "1"}, {"1", "RENAME", "b", "a"}, {"1", "MOVE", "a", "0"}};
        for (int round = 0; round < 30; round++) {
            int port = ServerProcesses.freePort();
            Process server = ServerProcesses.start(port, data, logs.resolve("server.log"));
            try (RespClient c = ServerProcesses.connect(port, server)) {
                if (round == 0) {
                    assertEquals(100L, c.call(hsetOfPayloads("a")));
                }
                String[] at = where(c);
                int from = 0;
                while (!(steps[from][0].equals(at[0]) && steps[from][2].equals(at[1]))) {
                    from++;
                }
                int next = from;
                ServerProcesses.runUntilKilled(server, 400, i -> {
                    for (int k = 0; k < 32; k++) {
                        String[] step = steps[(next + k) % 4];
                        c.send("SELECT", step[0]);
                        c.send(step[1], step[2], step[3]);
                    }
                    for (int k = 0; k < 32; k++) {
                        c.read();
                        Object reply = c.read();
                        assertTrue("OK".equals(reply) || Long.valueOf(1).equals(reply), "a reply " + reply);
                    }
                });
            }
            try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
                 RespClient c = new RespClient(restarted.port())) {
                String[] at = where(c);
                restarted.collectionSweeper().sweepAll();
                c.call("SELECT", at[0]);
                assertEquals(100L, c.call("HLEN", at[1]), "round " + round + ": the hash at " + String.join("/", at)
                        + " after the sweep");
                assertEquals("payload99", c.call("HGET", at[1], "f99"), "round " + round);
                assertEquals(1L + 1 + 100, restarted.databases().collections().entries(), "round " + round
                        + ": the store holds the hash's entries and no orphan");
            }
        }
    }

    /** @return HSET of fields f0 to f99 with values payload0 to payload99 at {@code key} */
    private static String[] hsetOfPayloads(String key) {
        String[] hset = new String[2 + 2 * 100];
        hset[0] = "HSET";
        hset[1] = key;
        for (int k = 0; k < 100; k++) {
            hset[2 + 2 * k] = "f" + k;
            hset[3 + 2 * k] = "payload" + k;
        }
        return hset;
    }

    /** @return the database and the name of the one key among a and b of databases 0 and 1, asserting there is one */
    private static String[] where(RespClient c) throws IOException {
        List<String[]> found = new ArrayList<>();
        for (String db : new String[] {"0", "1"}) {
            c.call("SELECT", db);
            for (String key : new String[] {"a", "b"}) {
                if ((Long) c.call("EXISTS", key) == 1) {
                    found.add(new String[] {db, key});
                }
            }
        }
        assertEquals(1, found.size(), "the hash is under exactly one name");
        return found.get(0);
    }
}
