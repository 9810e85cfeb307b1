package dev.ferrite.bench.queue;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Agrona's {@link OneToOneRingBuffer} under the same load as {@link QueueThroughput}: a 1 MiB ring
 * mapped from a file in /dev/shm, drained by a thread or by a second JVM. {@code write} copies the
 * message like Ferrite's {@code offer}. The second benchmark runs with Agrona's bounds checks off
 * ({@code -Dagrona.disable.bounds.checks=true}, also in the consumer process).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class QueueThroughputPeers {

    /** Payload bytes per message. */
    @Param({"8", "64", "1024"})
    public int messageSize;

    /** Where the consumer runs: "thread" or "process". */
    @Param({"thread", "process"})
    public String peer;

    private Path file;
    private OneToOneRingBuffer ring;
    private UnsafeBuffer message;
    private Thread thread;
    private volatile boolean running = true;
    private PeerProcess process;
    final Sink sink = new Sink();

    /** Maps the ring and starts the consumer. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        file = QueueRigs.shmFile(QueueRigs.uniqueName("agrona"));
        ring = new OneToOneRingBuffer(QueueRigs.agronaBuffer(file, true));
        message = new UnsafeBuffer(new byte[messageSize]);
        if (peer.equals("thread")) {
            OneToOneRingBuffer reader = new OneToOneRingBuffer(QueueRigs.agronaBuffer(file, false));
            thread = new Thread(() -> {
                org.agrona.concurrent.MessageHandler h = (type, buffer, index, length) -> sink.add(buffer.getLong(index));
                while (running) {
                    if (reader.read(h, 4096) == 0) {
                        Thread.onSpinWait();
                    }
                }
            }, "bench-agrona-consumer");
            thread.setDaemon(true);
            thread.start();
        } else {
            process = PeerProcess.start("agrona-consume", file.toString());
        }
    }

    /** Stops the consumer and removes the file. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        running = false;
        if (thread != null) {
            thread.join();
        }
        if (process != null) {
            process.close();
        }
        Files.deleteIfExists(file);
    }

    /** {@code OneToOneRingBuffer.write} with Agrona's default bounds checks: the baseline. */
    @Benchmark
    @OperationsPerInvocation(QueueRigs.BURST)
    public void agronaOneToOne() {
        send();
    }

    /** The same with Agrona's bounds checks off. */
    @Benchmark
    @OperationsPerInvocation(QueueRigs.BURST)
    @Fork(jvmArgsPrepend = "-Dagrona.disable.bounds.checks=true")
    public void agronaOneToOneNoChecks() {
        send();
    }

    private void send() {
        for (int i = 0; i < QueueRigs.BURST; i++) {
            while (!ring.write(1, message, 0, messageSize)) {
                Thread.onSpinWait();
            }
        }
    }
}
