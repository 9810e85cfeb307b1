package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

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
        Map<String, Integer> met = new TreeMap<>();
        List<String> wrong = Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < rounds; round++) {
            KvDatabase db = KvServer.openDatabase(data, 0);
            AtomicBoolean calling = new AtomicBoolean();
            Thread caller = new Thread(() -> {
                calling.set(true);
                try {
                    for (int n = 0; ; n++) {
                        db.hget("h", "f" + n % 100);
                        db.zscore("z", "m");
                        db.set("s", "v");
                        db.get("s");
                    }
                } catch (FerriteException e) {
                    synchronized (met) {
                        met.merge(e.getClass().getSimpleName(), 1, Integer::sum);
                    }
                } catch (Throwable e) {
                    wrong.add(e.toString());
                }
            });
            caller.setDaemon(true);
            caller.start();
            while (!calling.get()) {
                Thread.onSpinWait();
            }
            for (int spin = ThreadLocalRandom.current().nextInt(20_000); spin > 0; spin--) {
                Thread.onSpinWait();
            }
            db.close();
            caller.join(10_000);
            if (caller.isAlive()) {
                wrong.add("a caller still ran 10 s after the close");
            }
        }
        System.out.println("met " + met);
        if (!wrong.isEmpty()) {
            System.out.println("wrong " + wrong);
            System.exit(1);
        }
        System.out.println("done");
    }
}
