package dev.ferrite.queue;

import dev.ferrite.Ferrite;
import dev.ferrite.testkit.ChildJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** Producers in other JVMs (and threads), the consumer here: order, loss, duplicates, kill -9. */
class QueueProcessTest {

    @TempDir
    Path dir;

    private final List<QueueSpec> made = new ArrayList<>();
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        children.forEach(Process::destroyForcibly);
        made.forEach(IpcQueue::delete);
    }

    /** Checks every message and that each producer's sequence numbers arrive in order, once. */
    static final class Verifier implements MessageHandler {
        final Map<Integer, Long> next = new HashMap<>();
        long total;

        @Override
        public void onMessage(dev.ferrite.Segment segment, long offset, int length, int type) {
            Messages.Decoded d = Messages.check(segment, offset, length);
            assertEquals(d.producer(), type, "type carries the producer id");
            long want = next.getOrDefault(d.producer(), 0L);
            if (d.seq() != want) {
                fail("producer " + d.producer() + ": got message " + d.seq() + ", expected " + want
                        + (d.seq() < want ? " (duplicate)" : " (lost " + (d.seq() - want) + ")"));
            }
            next.put(d.producer(), want + 1);
            total++;
        }

        long received(int producer) {
            return next.getOrDefault(producer, 0L);
        }
    }

    private QueueSpec create(String backend, boolean many, Duration abandon) {
        QueueSpec spec = QueueTargets.spec(backend, dir).capacity(1 << 16).manyProducers(many)
                .abandonTimeout(abandon).build();
        made.add(spec);
        IpcQueue.create(spec).close();
        return spec;
    }

    private Process startProducer(QueueSpec spec, int id, long count, String mode, Path progress) throws IOException {
        String kind = spec.kind() == QueueSpec.Kind.FILE ? "file" : "shm";
        String location = spec.kind() == QueueSpec.Kind.FILE ? spec.path().toString() : spec.shmName();
        Process p = ChildJvm.start(ChildJvm.ferriteFlags(), QueuePeer.class, spec.backend(), kind, location,
                Boolean.toString(spec.manyProducers()), Integer.toString(id), Long.toString(count), mode,
                progress.toString());
        children.add(p);
        return p;
    }

    private static long readProgress(Path progress) throws IOException {
        byte[] b = Files.readAllBytes(progress);
        return b.length < 8 ? 0 : ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    /** Polls until {@code done} says so; fails after the timeout. */
    private static void pollUntil(Consumer consumer, MessageHandler handler, Duration timeout,
                                  java.util.function.BooleanSupplier done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (consumer.poll(handler, 256) == 0) {
                if (System.nanoTime() > deadline) {
                    fail("timed out after " + timeout);
                }
                Thread.onSpinWait();
            }
        }
    }

    /** Polls until nothing arrives for {@code quiet}. */
    private static void pollUntilQuiet(Consumer consumer, MessageHandler handler, Duration quiet) {
        long last = System.nanoTime();
        while (System.nanoTime() - last < quiet.toNanos()) {
            if (consumer.poll(handler, 256) > 0) {
                last = System.nanoTime();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void millionsOfMessagesBetweenTwoProcessesArriveInOrderOnce(String backend) throws Exception {
        // Ten million on the default backend and on shm, one million on the others (time).
        long count = backend.equals(Ferrite.backend().name()) || backend.equals("shm") ? 10_000_000 : 1_000_000;
        QueueSpec spec = create(backend, false, Duration.ofSeconds(1));
        try (IpcQueue queue = IpcQueue.open(spec); Consumer consumer = queue.consumer()) {
            Process child = startProducer(spec, 1, count, "offer", dir.resolve("progress-1"));
            Verifier verifier = new Verifier();
            pollUntil(consumer, verifier, Duration.ofMinutes(3), () -> verifier.total == count);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue());
            pollUntilQuiet(consumer, verifier, Duration.ofMillis(100));
            assertEquals(count, verifier.total, "no message more than sent");
            assertEquals(0, queue.bytesInUse());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void killedProducerLosesNothingCommittedAndANewOneContinues(String backend) throws Exception {
        QueueSpec spec = create(backend, false, Duration.ofMillis(100));
        SplittableRandom random = new SplittableRandom();
        try (IpcQueue queue = IpcQueue.open(spec); Consumer consumer = queue.consumer()) {
            Verifier verifier = new Verifier();
            int rounds = Integer.getInteger("ferrite.test.killRounds", 3);
            for (int round = 1; round <= rounds; round++) {
                Path progress = dir.resolve("progress-" + round);
                Process child = startProducer(spec, round, Long.MAX_VALUE, "mixed", progress);
                pollUntil(consumer, verifier, Duration.ofSeconds(60), () -> verifier.received(0) == 0
                        && consumer.isPeerAlive() && readProgressQuietly(progress) > 1000);
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50 + random.nextInt(300));
                while (System.nanoTime() < until) {
                    consumer.poll(verifier, 256);
                }
                child.destroyForcibly(); // SIGKILL
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                pollUntilQuiet(consumer, verifier, Duration.ofMillis(400));
                long committed = readProgress(progress);
                long received = verifier.received(round);
                assertTrue(received >= committed && received <= committed + 8,
                        "round " + round + ": committed " + committed + ", received " + received);
                assertFalse(consumer.isPeerAlive(), "the killed producer is not alive");
            }
            Process last = startProducer(spec, 1000, 5000, "mixed", dir.resolve("progress-last"));
            pollUntil(consumer, verifier, Duration.ofSeconds(60), () -> verifier.received(1000) == 5000);
            assertTrue(last.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, last.exitValue());
            pollUntilQuiet(consumer, verifier, Duration.ofMillis(200));
            assertEquals(5000, verifier.received(1000), "the new producer's messages all arrive, once");
        }
    }

    private static long readProgressQuietly(Path progress) {
        try {
            return Files.exists(progress) ? readProgress(progress) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void manyProducersInTwoProcessesAndTwoThreads(String backend) throws Exception {
        long each = 200_000;
        QueueSpec spec = create(backend, true, Duration.ofSeconds(1));
        try (IpcQueue queue = IpcQueue.open(spec); Consumer consumer = queue.consumer()) {
            startProducer(spec, 1, each, "mixed", dir.resolve("p1"));
            startProducer(spec, 2, each, "offer", dir.resolve("p2"));
            List<Thread> threads = new ArrayList<>();
            for (int id = 3; id <= 4; id++) {
                int producerId = id;
                Thread t = new Thread(() -> {
                    try (Producer producer = queue.producer()) {
                        for (long seq = 0; seq < each; seq++) {
                            byte[] m = Messages.make(seq, producerId, Messages.lengthFor(seq, 44));
                            while (!producer.offer(m, 0, m.length, producerId)) {
                                Thread.onSpinWait();
                            }
                        }
                    }
                });
                t.start();
                threads.add(t);
            }
            Verifier verifier = new Verifier();
            pollUntil(consumer, verifier, Duration.ofMinutes(3), () -> verifier.total == 4 * each);
            for (Thread t : threads) {
                t.join();
            }
            for (Process p : children) {
                assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, p.exitValue());
            }
            for (int id = 1; id <= 4; id++) {
                assertEquals(each, verifier.received(id), "producer " + id);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void claimOfAKilledProducerIsSkippedAndReported(String backend) throws Exception {
        for (boolean many : new boolean[] {false, true}) {
            QueueSpec spec = create(backend, many, Duration.ofMillis(200));
            try (IpcQueue queue = IpcQueue.open(spec); Consumer consumer = queue.consumer()) {
                Process child = startProducer(spec, 1, 10, "hang", dir.resolve("hang-" + many));
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream()));
                assertEquals("CLAIMED", out.readLine());
                Producer other = many ? queue.producer() : null;
                if (many) {
                    for (long seq = 0; seq < 5; seq++) {
                        other.offer(Messages.make(seq, 2, 30), 0, 30, 2); // lies after the open claim
                    }
                }
                Verifier verifier = new Verifier();
                pollUntilQuiet(consumer, verifier, Duration.ofMillis(400));
                assertEquals(10, verifier.total, "the consumer waits at the claim of a live producer");
                assertEquals(0, consumer.abandonedCount());
                long pid = child.pid();
                child.destroyForcibly();
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                pollUntil(consumer, verifier, Duration.ofSeconds(10), () -> consumer.abandonedCount() == 1);
                AbandonedRecord skipped = consumer.abandonedRecords().get(0);
                assertEquals(pid, skipped.writerPid());
                assertEquals(48, skipped.length());
                assertTrue(skipped.waitedMillis() >= 200, "waited " + skipped.waitedMillis());
                if (!many) {
                    other = queue.producer(); // takes over the dead producer's place
                    for (long seq = 0; seq < 5; seq++) {
                        other.offer(Messages.make(seq, 2, 30), 0, 30, 2);
                    }
                }
                pollUntilQuiet(consumer, verifier, Duration.ofMillis(200));
                assertEquals(5, verifier.received(2), "messages after the dead claim arrive");
                assertEquals(10, verifier.received(1));
                other.close();
            }
        }
    }
}
