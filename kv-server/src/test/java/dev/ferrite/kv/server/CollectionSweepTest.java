package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A collection's elements live while a key names it, whatever moves the key (RENAME, MOVE, SWAPDB,
 * COPY's new copy), and go with the last key that named it (DEL, an overwrite, expiry, FLUSHDB,
 * FLUSHALL, HDEL of the last field): after the sweep, the collection store holds exactly the
 * entries of the collections keys name.
 */
class CollectionSweepTest extends ServerFixture {

    /** A hash of {@code n} fields: {@code n} + 1 entries in the store (its header). */
    private static void hash(RespClient c, String key, int n) throws Exception {
        String[] hset = new String[2 + 2 * n];
        hset[0] = "HSET";
        hset[1] = key;
        for (int i = 0; i < n; i++) {
            hset[2 + 2 * i] = "f" + i;
            hset[3 + 2 * i] = "v" + i;
        }
        assertEquals((long) n, c.call(hset));
    }

    /** @return the store's entries once every orphan is dropped, less the next-id entry */
    private long entriesAfterSweep() {
        server.collectionSweeper().sweepAll();
        return server.databases().collections().entries() - 1;
    }

    @Test
    void movedKeysKeepTheirElementsAndRemovedOnesLoseThem() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            hash(c, "renamed", 10);
            hash(c, "moved", 20);
            hash(c, "swapped", 30);
            hash(c, "copied", 40);
            assertEquals(1L, c.call("COPY", "copied", "copy"));
            assertEquals("OK", c.call("RENAME", "renamed", "renamed2"));
            assertEquals(1L, c.call("MOVE", "moved", "3"));
            c.call("SELECT", "5");
            hash(c, "in5", 5);
            assertEquals("OK", c.call("SWAPDB", "5", "6"));
            c.call("SELECT", "0");
            assertEquals(1L, c.call("DEL", "copied"));
            assertEquals(11 + 21 + 31 + 41 + 6, entriesAfterSweep(), "the elements of every key's collection stay");
            assertEquals("v9", c.call("HGET", "renamed2", "f9"));
            assertEquals(40L, c.call("HLEN", "copy"));
            c.call("SELECT", "3");
            assertEquals(20L, c.call("HLEN", "moved"));
            c.call("SELECT", "6");
            assertEquals(5L, c.call("HLEN", "in5"));

            c.call("SELECT", "0");
            assertEquals("OK", c.call("SET", "copy", "a string now"));
            assertEquals(1L, c.call("PEXPIRE", "renamed2", "1"));
            Thread.sleep(5);
            assertEquals(0L, c.call("EXISTS", "renamed2"));
            hash(c, "emptied", 3);
            assertEquals(3L, c.call("HDEL", "emptied", "f0", "f1", "f2"));
            assertEquals(0L, c.call("EXISTS", "emptied"));
            c.call("SELECT", "3");
            assertEquals("OK", c.call("FLUSHDB"));
            assertEquals(31 + 6, entriesAfterSweep(), "only the hashes of databases 0 and 6 that keys name are left");
            assertEquals("OK", c.call("FLUSHALL"));
            assertEquals(0, entriesAfterSweep());
            assertEquals(List.of(), c.call("HGETALL", "in5"));
        }
    }

    @Test
    void aRestartKeepsHashesAndTheSweepGoesOnFromThem() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            hash(c, "kept", 100);
            hash(c, "dropped", 100);
            assertEquals(1L, c.call("DEL", "dropped"));
        }
        server.close();
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            assertEquals(100L, c.call("HLEN", "kept"));
            assertEquals("v42", c.call("HGET", "kept", "f42"));
            assertEquals(101, entriesAfterSweep());
            assertEquals("hash", c.call("TYPE", "kept"));
            assertEquals("listpack", c.call("OBJECT", "ENCODING", "kept"));
        }
    }
}
