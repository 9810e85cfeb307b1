package dev.ferrite.bench.queue;

import dev.ferrite.queue.Consumer;
import dev.ferrite.queue.IpcQueue;
import dev.ferrite.queue.MessageHandler;
import dev.ferrite.queue.Producer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * Queue latency (seed 004): one 8-byte message goes out on a ping queue, an echo thread or process
 * sends it back on a pong queue, and the benchmark thread spins until it returns. Sampled per round
 * trip, so the report has percentiles.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PingPong {

    /** The echo reads the payload as a long and writes it back from a byte[], as Agrona's echo does. */
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Ferrite backend of the queues' pools. */
    @Param("unsafe")
    public String backend;

    /** Where the echo runs: "thread" or "process". */
    @Param({"thread", "process"})
    public String peer;

    private String pingName;
    private String pongName;
    private IpcQueue ping;
    private IpcQueue pong;
    private Producer out;
    private Consumer in;
    private Thread echo;
    private volatile boolean running = true;
    private PeerProcess process;
    private final byte[] message = new byte[8];
    private long received;
    private final MessageHandler receive = (segment, offset, length, type) -> received = segment.getLong(offset);

    /** Creates both queues and starts the echo. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        pingName = QueueRigs.uniqueName("ping");
        pongName = QueueRigs.uniqueName("pong");
        ping = QueueRigs.createFerrite(backend, pingName, false);
        pong = QueueRigs.createFerrite(backend, pongName, false);
        if (peer.equals("thread")) {
            Consumer echoIn = ping.consumer();
            Producer echoOut = pong.producer();
            byte[] reply = new byte[8];
            echo = new Thread(() -> {
                MessageHandler back = (segment, offset, length, type) -> {
                    LONG.set(reply, 0, segment.getLong(offset));
                    while (!echoOut.offer(reply, 0, 8, type)) {
                        Thread.onSpinWait();
                    }
                };
                while (running) {
                    if (echoIn.poll(back, 1) == 0) {
                        Thread.onSpinWait();
                    }
                }
            }, "bench-echo");
            echo.setDaemon(true);
            echo.start();
        } else {
            process = PeerProcess.start("ferrite-echo", backend, pingName, pongName);
        }
        out = ping.producer();
        in = pong.consumer();
    }

    /** Stops the echo and removes the queues. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        running = false;
        if (echo != null) {
            echo.join();
        }
        if (process != null) {
            process.close();
        }
        ping.close();
        pong.close();
        IpcQueue.delete(QueueRigs.ferriteSpec(backend, pingName, false));
        IpcQueue.delete(QueueRigs.ferriteSpec(backend, pongName, false));
    }

    /** @return the echoed value; one round trip */
    @Benchmark
    public long roundTrip() {
        message[0]++;
        while (!out.offer(message, 0, 8, 1)) {
            Thread.onSpinWait();
        }
        while (in.poll(receive, 1) == 0) {
            Thread.onSpinWait();
        }
        return received;
    }
}
