package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a crash leaves in the data directory, and who may use it. */
class DataDirectoryTest extends ServerFixture {

    @Test
    void unfinishedMapsAreDeletedAtStartAndTheOtherDatabasesServe() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            c.call("SELECT", "2");
            assertEquals("OK", c.call("SET", "k", "v"));
        }
        server.close();
        // What a kill while maps are made leaves: empty and half-written files under temporary names.
        Files.write(data.resolve("db5.ferrite.new"), new byte[0]);
        Files.write(data.resolve("spare.ferrite.new"), new byte[4096]);
        startServer();
        assertFalse(Files.exists(data.resolve("db5.ferrite.new")));
        assertFalse(Files.exists(data.resolve("spare.ferrite.new")));
        try (RespClient c = new RespClient(server.port())) {
            c.call("SELECT", "2");
            assertEquals("v", c.call("GET", "k"));
            c.call("SELECT", "5");
            assertEquals("OK", c.call("SET", "k5", "v5"), "the half-made database is made anew");
        }
    }

    @Test
    void filesTheManifestDoesNotNameAreDeletedAtStart() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            c.call("SELECT", "1");
            c.call("SET", "k", "v1");
        }
        server.close();
        // What a kill between a rename and the manifest's replacement leaves: a map file nobody names.
        Path orphan = data.resolve("map-999.ferrite");
        Files.write(orphan, new byte[4096]);
        startServer();
        assertFalse(Files.exists(orphan));
        try (RespClient c = new RespClient(server.port())) {
            c.call("SELECT", "1");
            assertEquals("v1", c.call("GET", "k"));
            c.call("SELECT", "2");
            assertEquals("OK", c.call("SET", "k", "v2"), "a new database's file is named past the orphan's number");
        }
        assertTrue(Files.readString(data.resolve("databases")).contains("2 map-1000.ferrite"),
                Files.readString(data.resolve("databases")));
    }

    @Test
    void aDirectoryOfAServerBeforeTheManifestIsAdopted() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            c.call("SELECT", "3");
            c.call("SET", "k", "v3");
        }
        server.close();
        String name = Files.readString(data.resolve("databases")).strip().split(" ")[1];
        Files.move(data.resolve(name), data.resolve("db3.ferrite")); // the layout before the manifest
        Files.delete(data.resolve("databases"));
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            c.call("SELECT", "3");
            assertEquals("v3", c.call("GET", "k"));
        }
        assertEquals("3 db3.ferrite", Files.readString(data.resolve("databases")).strip());
    }

    @Test
    void aDamagedManifestIsRefusedNamingTheLine() throws Exception {
        Files.createDirectories(data);
        Files.writeString(data.resolve("databases"), "0 map-1.ferrite\nzero map-2.ferrite\n");
        FerriteException e = assertThrows(FerriteException.class, this::startServer);
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    }

    @Test
    void aSecondServerOnTheDirectoryIsRefusedNamingTheFirstsPid() {
        startServer();
        FerriteException e = assertThrows(FerriteException.class,
                () -> KvServer.builder().port(0).dataDirectory(data).start());
        assertTrue(e.getMessage().contains("in use by another server"), e.getMessage());
        assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()), e.getMessage());
        server.close();
        startServer(); // the lock is given back on close
    }

    @Test
    void theDirectoryAndItsFilesAreTheOwnersOnly() throws Exception {
        Path fresh = data.resolve("fresh");
        server = KvServer.builder().port(0).dataDirectory(fresh).start();
        try (RespClient c = new RespClient(server.port())) {
            c.call("SET", "k", "v");
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)));
        for (String f : List.of("map-1.ferrite", "ferrite.lock", "databases")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh.resolve(f))), f);
        }
    }
}
