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
                Thread killer = null; // started at the first acknowledgement, however slow this host is
                try {
                    for (long i = 0; ; i++) {
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
                        acknowledged = i;
                        if (killer == null) {
                            killer = ServerProcesses.killLater(server, ThreadLocalRandom.current().nextInt(800));
                        }
                    }
                } catch (IOException gone) {
                    // the server is gone
                }
                assertTrue(killer != null, "round " + round + ": the server died before it acknowledged anything");
                killer.join();
            }
            assertTrue(server.waitFor(10, TimeUnit.SECONDS));
            try (KvServer restarted = KvServer.builder().port(0).dataDirectory(data).start();
                 RespClient c = new RespClient(restarted.port())) {
                assertTrue(acknowledged >= 0, "round " + round + ": nothing acknowledged before the kill");
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
}
