package dev.ferrite.bench.queue;

import dev.ferrite.queue.IpcQueue;
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
 * Throughput of a many-producer queue with one producer thread (the machine has two cores): what
 * the CAS on the tail and the in-progress mark cost, beside Agrona's ManyToOneRingBuffer and
 * JCTools' MpscArrayQueue in {@link QueueThroughputLocalPeers}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class QueueThroughputMany {

    /** Ferrite backend of the queue's pool. */
    @Param("unsafe")
    public String backend;

    /** Payload bytes per message. */
    @Param({"8", "64", "1024"})
    public int messageSize;

    /** Where the consumer runs: a thread of this JVM only (the report groups by it). */
    @Param("thread")
    public String peer;

    private String name;
    private IpcQueue queue;
    private Producer producer;
    private QueueThroughput.LocalConsumer local;
    private byte[] message;

    /** Creates the queue and starts the consumer thread. */
    @Setup(Level.Trial)
    public void setUp() {
        name = QueueRigs.uniqueName("mpsc");
        queue = QueueRigs.createFerrite(backend, name, true);
        local = new QueueThroughput.LocalConsumer(queue.consumer());
        producer = queue.producer();
        message = new byte[messageSize];
        Arrays.fill(message, (byte) 7);
    }

    /** Stops the consumer, removes the queue. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        local.stop();
        queue.close();
        IpcQueue.delete(QueueRigs.ferriteSpec(backend, name, true));
    }

    /** One {@code offer} per message on a many-producer queue. */
    @Benchmark
    @OperationsPerInvocation(QueueRigs.BURST)
    public void offerMany() {
        for (int i = 0; i < QueueRigs.BURST; i++) {
            while (!producer.offer(message, 0, messageSize, 1)) {
                Thread.onSpinWait();
            }
        }
    }
}
