package dev.ferrite.bench.queue;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.jctools.queues.MpscArrayQueue;
import org.jctools.queues.SpscArrayQueue;
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

import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.concurrent.TimeUnit;

/**
 * In-process peers of the queue benchmarks: Agrona's {@link ManyToOneRingBuffer} (1 MiB, direct
 * memory) and JCTools' {@link SpscArrayQueue} and {@link MpscArrayQueue}. The JCTools queues pass
 * references to one preallocated {@code byte[messageSize]} (no copy, no cross-process use): the
 * usual way to use them, and a floor for what copying queues can reach.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class QueueThroughputLocalPeers {

    /** Payload bytes per message. */
    @Param({"8", "64", "1024"})
    public int messageSize;

    /** Where the consumer runs: a thread of this JVM only (the report groups by it). */
    @Param("thread")
    public String peer;

    private ManyToOneRingBuffer agrona;
    private Queue<byte[]> spsc;
    private Queue<byte[]> mpsc;
    private UnsafeBuffer message;
    private byte[] reference;
    private Thread thread;
    private volatile boolean running = true;
    final Sink sink = new Sink();

    /** Makes the queues and one consumer thread that drains all three. */
    @Setup(Level.Trial)
    public void setUp() {
        agrona = new ManyToOneRingBuffer(new UnsafeBuffer(
                ByteBuffer.allocateDirect(QueueRigs.CAPACITY + RingBufferDescriptor.TRAILER_LENGTH)));
        int slots = QueueRigs.CAPACITY / 16; // as many 8-byte messages as the rings hold
        spsc = new SpscArrayQueue<>(slots);
        mpsc = new MpscArrayQueue<>(slots);
        message = new UnsafeBuffer(new byte[messageSize]);
        reference = new byte[messageSize];
        thread = new Thread(() -> {
            org.agrona.concurrent.MessageHandler h = (type, buffer, index, length) -> sink.add(buffer.getLong(index));
            while (running) {
                int n = agrona.read(h, 4096);
                byte[] m;
                while ((m = spsc.poll()) != null) {
                    sink.add(m[0]);
                    n++;
                }
                while ((m = mpsc.poll()) != null) {
                    sink.add(m[0]);
                    n++;
                }
                if (n == 0) {
                    Thread.onSpinWait();
                }
            }
        }, "bench-local-consumer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops the consumer. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        running = false;
        thread.join();
    }

    /** Agrona {@code ManyToOneRingBuffer.write} from one thread. */
    @Benchmark
    @OperationsPerInvocation(QueueRigs.BURST)
    public void agronaManyToOne() {
        for (int i = 0; i < QueueRigs.BURST; i++) {
            while (!agrona.write(1, message, 0, messageSize)) {
                Thread.onSpinWait();
            }
        }
    }

    /** JCTools {@code SpscArrayQueue.offer} of a reference. */
    @Benchmark
    @OperationsPerInvocation(QueueRigs.BURST)
    public void jctoolsSpsc() {
        for (int i = 0; i < QueueRigs.BURST; i++) {
            while (!spsc.offer(reference)) {
                Thread.onSpinWait();
            }
        }
    }

    /** JCTools {@code MpscArrayQueue.offer} of a reference, from one thread. */
    @Benchmark
    @OperationsPerInvocation(QueueRigs.BURST)
    public void jctoolsMpsc() {
        for (int i = 0; i < QueueRigs.BURST; i++) {
            while (!mpsc.offer(reference)) {
                Thread.onSpinWait();
            }
        }
    }
}
