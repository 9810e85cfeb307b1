package dev.ferrite.bench.queue;

import dev.ferrite.queue.Consumer;
import dev.ferrite.queue.IpcQueue;
import dev.ferrite.queue.MessageHandler;
import dev.ferrite.queue.Producer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Queue throughput (seed 004): the benchmark thread sends {@link QueueRigs#BURST} messages per
 * invocation into a 1 MiB ring, spinning while it is full, while a consumer drains it in another
 * thread or another process (reading each payload's first word). Time per message; in the steady
 * state the producer can only go as fast as the consumer frees room.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class QueueThroughput {

    /** Ferrite backend of the queue's pool (set by the runner to every available one). */
    @Param("unsafe")
    public String backend;

    /** Payload bytes per message. */
    @Param({"8", "64", "1024"})
    public int messageSize;

    /** Where the consumer runs: "thread" (this JVM) or "process" (a second JVM). */
    @Param({"thread", "process"})
    public String peer;

    private String name;
    private IpcQueue queue;
    private Producer producer;
    private LocalConsumer local;
    private PeerProcess process;
    private byte[] message;
    private byte[][] batch;

    /** Creates the queue in shm and starts the consumer. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        name = QueueRigs.uniqueName("tput");
        queue = QueueRigs.createFerrite(backend, name, false);
        if (peer.equals("thread")) {
            local = new LocalConsumer(queue.consumer());
        } else {
            process = PeerProcess.start("ferrite-consume", backend, name);
        }
        producer = queue.producer();
        message = new byte[messageSize];
        Arrays.fill(message, (byte) 7);
        batch = new byte[QueueRigs.BATCH][];
        Arrays.fill(batch, message);
    }

    /** Stops the consumer, removes the queue. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (local != null) {
            local.stop();
        }
        if (process != null) {
            process.close();
        }
        queue.close();
        IpcQueue.delete(QueueRigs.ferriteSpec(backend, name, false));
    }

    /** One {@code offer} (a copy into the ring) per message. */
    @Benchmark
    @OperationsPerInvocation(QueueRigs.BURST)
    public void offer() {
        for (int i = 0; i < QueueRigs.BURST; i++) {
            while (!producer.offer(message, 0, messageSize, 1)) {
                Thread.onSpinWait();
            }
        }
    }

    /** {@code offerBatch} of 32 messages: one publication and one tail update per batch. */
    @Benchmark
    @OperationsPerInvocation(QueueRigs.BURST)
    public void offerBatch() {
        for (int i = 0; i < QueueRigs.BURST; i += QueueRigs.BATCH) {
            while (!producer.offerBatch(batch, 0, QueueRigs.BATCH, 1)) {
                Thread.onSpinWait();
            }
        }
    }

    /** Drains a Ferrite queue in a daemon thread until stopped. */
    static final class LocalConsumer implements Runnable {
        private final Consumer consumer;
        private final Thread thread;
        private volatile boolean running = true;
        final Sink sink = new Sink();

        LocalConsumer(Consumer consumer) {
            this.consumer = consumer;
            this.thread = new Thread(this, "bench-consumer");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            MessageHandler handler = (segment, offset, length, type) -> sink.add(segment.getLong(offset));
            while (running) {
                if (consumer.poll(handler, 4096) == 0) {
                    Thread.onSpinWait();
                }
            }
            consumer.close();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }
    }
}
