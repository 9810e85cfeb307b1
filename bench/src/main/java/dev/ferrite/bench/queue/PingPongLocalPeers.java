package dev.ferrite.bench.queue;

import org.jctools.queues.SpscArrayQueue;
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

import java.util.concurrent.TimeUnit;

/** The {@link PingPong} round trip over JCTools {@link SpscArrayQueue}s of references, echo in a thread. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PingPongLocalPeers {

    /** Where the echo runs: a thread only (references do not cross processes). */
    @Param("thread")
    public String peer;

    private SpscArrayQueue<long[]> ping;
    private SpscArrayQueue<long[]> pong;
    private Thread echo;
    private volatile boolean running = true;
    private final long[] token = new long[1];

    /** Makes the queues and starts the echo thread. */
    @Setup(Level.Trial)
    public void setUp() {
        ping = new SpscArrayQueue<>(1024);
        pong = new SpscArrayQueue<>(1024);
        echo = new Thread(() -> {
            while (running) {
                long[] t = ping.poll();
                if (t == null) {
                    Thread.onSpinWait();
                    continue;
                }
                while (!pong.offer(t)) {
                    Thread.onSpinWait();
                }
            }
        }, "bench-jctools-echo");
        echo.setDaemon(true);
        echo.start();
    }

    /** Stops the echo. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        running = false;
        echo.join();
    }

    /** @return the echoed token; one round trip */
    @Benchmark
    public long jctoolsSpsc() {
        token[0]++;
        while (!ping.offer(token)) {
            Thread.onSpinWait();
        }
        long[] t;
        while ((t = pong.poll()) == null) {
            Thread.onSpinWait();
        }
        return t[0];
    }
}
