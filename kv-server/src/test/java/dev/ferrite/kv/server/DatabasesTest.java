package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The server's databases: one map file each, made with the server's section count, reopened as they are. */
class DatabasesTest {

    @TempDir
    Path dir;

    @Test
    void aNewDatabaseHasTheServersSectionsAndKeepsThemWhenReopened() throws Exception {
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        byte[] value = "v".getBytes(StandardCharsets.UTF_8);
        try (Databases dbs = new Databases(dir, "unsafe")) {
            FerriteMap<byte[], byte[]> db3 = dbs.get(3);
            assertEquals(DatabaseMaps.SECTIONS, db3.stats().sections());
            db3.putBytes(key, value);
        }
        assertEquals("3 map-1.ferrite", Files.readString(dir.resolve("databases")).strip());
        try (Databases dbs = new Databases(dir, "unsafe")) {
            assertEquals(DatabaseMaps.SECTIONS, dbs.ifOpen(3).stats().sections(), "opened at start, as it exists");
            assertArrayEquals(value, dbs.get(3).getBytes(key));
            assertEquals(null, dbs.ifOpen(0), "a database nobody used is not made");
        }
    }
}
