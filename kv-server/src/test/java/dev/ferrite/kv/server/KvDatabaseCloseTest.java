package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.testkit.ChildJvm;
import dev.ferrite.testkit.CloseUnderUse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link KvDatabase} closed while another thread reads and writes its strings, hashes and sorted
 * sets, hundreds of times at random instants, in a child JVM (a crash there is a failed test, not
 * a lost test run): that thread's calls end or throw {@link FerriteException}, the JVM lives, and
 * what was written is there when the database is opened again.
 */
class KvDatabaseCloseTest {

    @TempDir
    Path dir;
    /** Where a crashed child JVM's report goes: not in the data directory. */
    @TempDir
    Path logs;

    @Test
    void closingTheDatabaseUnderACallerNeverCrashesTheJvm() throws Exception {
        try (KvServer server = KvServer.builder().port(0).httpPort(-1).dataDirectory(dir).start()) {
            assertTrue(server.port() > 0);
        }
        ChildJvm.Result r = ChildJvm.runCrashReportingTo(logs, KvDatabaseCloseTest.class, dir.toString(), "300");
        assertEquals(0, r.exitCode(), "the child JVM died: " + r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("done"), r.stdout() + r.stderr());
        try (KvDatabase db = KvServer.openDatabase(dir, 0)) {
            assertEquals("v", db.hget("h", "f7"), "a field written before the races");
            assertEquals(1.0, db.zscore("z", "m"));
        }
    }

    /**
     * Closes a server's database 0 under a calling thread, again and again, and prints what that
     * thread met; exits with 1 if it met anything but the database's closed error.
     *
     * @param args the data directory, rounds
     */
    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        int rounds = Integer.parseInt(args[1]);
        try (KvDatabase db = KvServer.openDatabase(data, 0)) {
            for (int i = 0; i < 100; i++) {
                db.hset("h", "f" + i, "v");
            }
            db.zadd("z", 1.0, "m");
        }
        CloseUnderUse race = new CloseUnderUse();
        for (int round = 0; round < rounds; round++) {
            KvDatabase db = KvServer.openDatabase(data, 0);
            race.race(n -> {
                db.hget("h", "f" + n % 100);
                db.zscore("z", "m");
                db.set("s", "v");
                db.get("s");
            }, db::close);
        }
        System.exit(race.report());
    }
}
