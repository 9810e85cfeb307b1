package dev.ferrite.kv;

import dev.ferrite.testkit.ChildJvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One round of a kill -9 test of a map shared by processes: writer JVMs that print each write they
 * acknowledge ({@code key sequence} lines), a reader thread of this JVM reading meanwhile, and the
 * writers killed with SIGKILL at a random instant once they acknowledged writes, however long the
 * JVMs took to start on this host. What the round leaves behind is the caller's to check.
 */
final class KillRound {

    /** Reads the map until told to stop, counting its reads; throws on anything torn. */
    interface ReadLoop {
        void run(AtomicBoolean stop, AtomicLong reads) throws Exception;
    }

    private KillRound() {
    }

    /**
     * Runs the round: the writers start, and once they acknowledged two writes between them, they
     * are killed {@code minDelayMillis} plus a random part of {@code spreadMillis} later.
     *
     * @param peer           the writers' main class
     * @param writers        each writer's arguments
     * @param minDelayMillis least time from the second acknowledgement to the kill
     * @param spreadMillis   the random part of that time, at least 1
     * @param random         the source of the instant of the kill
     * @param acked          the highest acknowledged sequence per key, added to
     * @param reads          what this JVM reads meanwhile
     * @throws AssertionError if the writers acknowledged nothing in 120 s, did not die, or a read failed
     */
    static void run(Class<?> peer, List<List<String>> writers, int minDelayMillis, int spreadMillis, Random random,
                    Map<String, Long> acked, ReadLoop reads) throws Exception {
        List<Process> processes = new ArrayList<>();
        List<Thread> ackReaders = new ArrayList<>();
        AtomicLong roundAcks = new AtomicLong();
        for (List<String> args : writers) {
            Process p = ChildJvm.start(ChildJvm.ferriteFlags(), peer, args.toArray(new String[0]));
            processes.add(p);
            ackReaders.add(readAcks(p, acked, roundAcks));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> readerError = new AtomicReference<>();
        AtomicLong readCount = new AtomicLong();
        Thread reader = new Thread(() -> {
            try {
                reads.run(stop, readCount);
            } catch (Throwable t) {
                readerError.set(t);
            }
        });
        reader.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (roundAcks.get() < 2 && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
            assertTrue(roundAcks.get() >= 2, "the writers " + writers + " acknowledged nothing in 120 s");
            Thread.sleep(minDelayMillis + random.nextInt(spreadMillis));
        } finally { // also when the round failed: no writer or reader outlives it
            for (Process p : processes) {
                p.destroyForcibly(); // SIGKILL
            }
            for (Process p : processes) {
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            }
            for (Thread t : ackReaders) {
                t.join();
            }
            long readDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // a busy host may start the reader late
            while (readCount.get() == 0 && readerError.get() == null && reader.isAlive() && System.nanoTime() - readDeadline < 0) {
                Thread.sleep(10);
            }
            stop.set(true);
            reader.join();
        }
        if (readerError.get() != null) {
            throw new AssertionError("a read during the writes failed", readerError.get());
        }
        assertTrue(readCount.get() > 0, "the reader read nothing in the round");
    }

    /**
     * @return the arguments of two writers ({@code writer backend where id keys base}), ids 0 and 1,
     *         each writing {@code keys} keys with sequence numbers from {@code base}
     */
    static List<List<String>> writers(String backend, String where, int keys, long base) {
        List<List<String>> writers = new ArrayList<>();
        for (int id = 0; id < 2; id++) {
            writers.add(List.of("writer", backend, where, String.valueOf(id), String.valueOf(keys), String.valueOf(base)));
        }
        return writers;
    }

    /**
     * Reads a writer's acknowledgements into {@code acked} (the highest sequence per key) until its
     * output ends, counting them.
     */
    private static Thread readAcks(Process p, Map<String, Long> acked, AtomicLong count) {
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    int space = line.indexOf(' ');
                    if (space > 0) {
                        long i = Long.parseLong(line.substring(space + 1));
                        acked.merge(line.substring(0, space), i, Math::max);
                        count.incrementAndGet();
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // a line cut by the kill: everything before it was read
            }
        });
        t.start();
        return t;
    }
}
