package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import dev.ferrite.testkit.ChildJvm;
import dev.ferrite.testkit.CloseUnderUse;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue closed while another thread sends and takes through it, hundreds of times at random
 * instants, in a child JVM (a crash there is a failed test, not a lost test run): that thread's
 * calls end or throw {@link FerriteException}, and the JVM lives.
 */
class CloseUnderUseTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void closingAQueueUnderItsUserNeverCrashesTheJvm(String backend) throws Exception {
        ChildJvm.Result r = ChildJvm.runCrashReportingTo(dir, CloseUnderUseTest.class, backend, "300", dir.toString());
        assertEquals(0, r.exitCode(), "the child JVM died: " + r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("done"), r.stdout() + r.stderr());
    }

    /**
     * Closes queues under a producing and consuming thread and prints what that thread met; exits
     * with 1 if it met anything but the queue's closed errors.
     *
     * @param args backend, rounds, a directory for file-backed queues
     */
    public static void main(String[] args) throws Exception {
        String backend = args[0];
        int rounds = Integer.parseInt(args[1]);
        Path dir = Path.of(args[2]);
        CloseUnderUse race = new CloseUnderUse();
        for (int round = 0; round < rounds; round++) {
            QueueSpec spec = QueueTargets.spec(backend, dir).capacity(1 << 16).overwrite(true).build();
            IpcQueue queue = IpcQueue.create(spec);
            Producer producer = queue.producer();
            Consumer consumer = queue.consumer();
            race.race(n -> {
                Claim c = producer.tryClaim(64, 1);
                if (c != null) {
                    c.segment().putLong(c.offset(), 42L);
                    c.commit();
                }
                consumer.poll((segment, offset, length, type) -> segment.getLong(offset), 16);
            }, queue::close); // never throws for what the other thread does
            IpcQueue.delete(spec);
        }
        System.exit(race.report());
    }
}
