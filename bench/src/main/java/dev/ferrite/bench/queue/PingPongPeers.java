package dev.ferrite.bench.queue;

import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The {@link PingPong} round trip over Agrona {@link OneToOneRingBuffer}s mapped from /dev/shm files
 * (echo in a thread or a second JVM).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PingPongPeers {

    /** Where the echo runs: "thread" or "process". */
    @Param({"thread", "process"})
    public String peer;

    private Path pingFile;
    private Path pongFile;
    private OneToOneRingBuffer ping;
    private OneToOneRingBuffer pong;
    private Thread echo;
    private volatile boolean running = true;
    private PeerProcess process;
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
    private long received;
    private final MessageHandler receive = (type, buffer, index, length) -> received = buffer.getLong(index);

    /** Maps the rings and starts the echoes. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        pingFile = QueueRigs.shmFile(QueueRigs.uniqueName("agrona-ping"));
        pongFile = QueueRigs.shmFile(QueueRigs.uniqueName("agrona-pong"));
        ping = new OneToOneRingBuffer(QueueRigs.agronaBuffer(pingFile, true));
        pong = new OneToOneRingBuffer(QueueRigs.agronaBuffer(pongFile, true));
        if (peer.equals("thread")) {
            OneToOneRingBuffer echoIn = new OneToOneRingBuffer(QueueRigs.agronaBuffer(pingFile, false));
            OneToOneRingBuffer echoOut = new OneToOneRingBuffer(QueueRigs.agronaBuffer(pongFile, false));
            UnsafeBuffer reply = new UnsafeBuffer(new byte[8]);
            MessageHandler back = (type, buffer, index, length) -> {
                reply.putLong(0, buffer.getLong(index));
                while (!echoOut.write(type, reply, 0, 8)) {
                    Thread.onSpinWait();
                }
            };
            echo = new Thread(() -> {
                while (running) {
                    if (echoIn.read(back, 1) == 0) {
                        Thread.onSpinWait();
                    }
                }
            }, "bench-agrona-echo");
            echo.setDaemon(true);
            echo.start();
        } else {
            process = PeerProcess.start("agrona-echo", pingFile.toString(), pongFile.toString());
        }
    }

    /** Stops the echoes and removes the files. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        running = false;
        if (echo != null) {
            echo.join();
        }
        if (process != null) {
            process.close();
        }
        Files.deleteIfExists(pingFile);
        Files.deleteIfExists(pongFile);
    }

    /** @return the echoed value; one round trip over Agrona rings */
    @Benchmark
    public long agronaOneToOne() {
        message.putLong(0, message.getLong(0) + 1);
        while (!ping.write(1, message, 0, 8)) {
            Thread.onSpinWait();
        }
        while (pong.read(receive, 1) == 0) {
            Thread.onSpinWait();
        }
        return received;
    }
}
