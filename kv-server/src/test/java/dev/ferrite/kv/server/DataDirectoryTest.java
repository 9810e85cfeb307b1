package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

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
    void aFlushAllIntentLeftByACrashIsCarriedOutButSparesFilesMadeSince() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            for (String db : List.of("1", "2")) {
                c.call("SELECT", db);
                c.call("SET", "k", "v" + db);
            }
        }
        server.close();
        Path db1 = data.resolve("db1.ferrite");
        Path db2 = data.resolve("db2.ferrite");
        // A FLUSHALL killed after its list was written: db1 still the listed file, db2 made anew since.
        Files.writeString(data.resolve("flush.intent"), "db1.ferrite " + DataDirectory.identity(db1)
                + "\ndb2.ferrite (dev=0,ino=0)\n");
        startServer();
        assertFalse(Files.exists(data.resolve("flush.intent")));
        assertFalse(Files.exists(db1));
        try (RespClient c = new RespClient(server.port())) {
            c.call("SELECT", "1");
            assertEquals(0L, c.call("DBSIZE"));
            c.call("SELECT", "2");
            assertEquals("v2", c.call("GET", "k"), "a file the intent does not name by identity is kept");
        }
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
        for (String f : List.of("db0.ferrite", "ferrite.lock")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh.resolve(f))), f);
        }
    }

    @Test
    void dropAllLeavesNoIntentBehind() throws Exception {
        DataDirectory dir = new DataDirectory(data.resolve("d"));
        Path a = dir.database(0);
        Files.write(a, new byte[10]);
        dir.dropAll(Map.of(a, DataDirectory.identity(a)));
        assertEquals(List.of(), dir.names());
    }
}
