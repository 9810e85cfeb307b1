package dev.ferrite.bench.queue;

import dev.ferrite.queue.Consumer;
import dev.ferrite.queue.IpcQueue;
import dev.ferrite.queue.MessageHandler;
import dev.ferrite.queue.Producer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The other process of the cross-process queue benchmarks; runs until killed. Arguments:
 * <ul>
 *   <li>{@code ferrite-consume BACKEND NAME}: drains a Ferrite queue in shm;</li>
 *   <li>{@code ferrite-echo BACKEND PING PONG}: sends every message of PING back on PONG;</li>
 *   <li>{@code agrona-consume FILE}, {@code agrona-echo PING_FILE PONG_FILE}: the same for Agrona
 *       {@link OneToOneRingBuffer}s mapped from files.</li>
 * </ul>
 * Prints READY once attached.
 */
public final class QueuePeerMain {

    /** The echo reads the payload as a long and writes it back from a byte[], as Agrona's echo does. */
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private QueuePeerMain() {
    }

    /** Consumed payload words, so the JIT cannot drop the reads. */
    static long sink;

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "ferrite-consume":
                ferriteConsume(args[1], args[2]);
                break;
            case "ferrite-echo":
                ferriteEcho(args[1], args[2], args[3]);
                break;
            case "agrona-consume":
                agronaConsume(Path.of(args[1]));
                break;
            case "agrona-echo":
                agronaEcho(Path.of(args[1]), Path.of(args[2]));
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static void ready() {
        System.out.println("READY");
        System.out.flush();
    }

    private static void ferriteConsume(String backend, String name) {
        try (IpcQueue queue = IpcQueue.open(QueueRigs.ferriteSpec(backend, name, false));
             Consumer consumer = queue.consumer()) {
            MessageHandler handler = (segment, offset, length, type) -> sink += segment.getLong(offset);
            ready();
            while (true) {
                if (consumer.poll(handler, 4096) == 0) {
                    Thread.onSpinWait();
                }
            }
        }
    }

    private static void ferriteEcho(String backend, String ping, String pong) {
        try (IpcQueue in = IpcQueue.open(QueueRigs.ferriteSpec(backend, ping, false));
             IpcQueue out = IpcQueue.open(QueueRigs.ferriteSpec(backend, pong, false));
             Consumer consumer = in.consumer(); Producer producer = out.producer()) {
            byte[] reply = new byte[8];
            MessageHandler echo = (segment, offset, length, type) -> {
                LONG.set(reply, 0, segment.getLong(offset));
                while (!producer.offer(reply, 0, 8, type)) {
                    Thread.onSpinWait();
                }
            };
            ready();
            while (true) {
                if (consumer.poll(echo, 1) == 0) {
                    Thread.onSpinWait();
                }
            }
        }
    }

    private static void agronaConsume(Path file) throws Exception {
        OneToOneRingBuffer ring = new OneToOneRingBuffer(QueueRigs.agronaBuffer(file, false));
        org.agrona.concurrent.MessageHandler handler = (type, buffer, index, length) -> sink += buffer.getLong(index);
        ready();
        while (true) {
            if (ring.read(handler, 4096) == 0) {
                Thread.onSpinWait();
            }
        }
    }

    private static void agronaEcho(Path pingFile, Path pongFile) throws Exception {
        OneToOneRingBuffer ping = new OneToOneRingBuffer(QueueRigs.agronaBuffer(pingFile, false));
        OneToOneRingBuffer pong = new OneToOneRingBuffer(QueueRigs.agronaBuffer(pongFile, false));
        UnsafeBuffer reply = new UnsafeBuffer(new byte[8]);
        org.agrona.concurrent.MessageHandler echo = (type, buffer, index, length) -> {
            reply.putLong(0, buffer.getLong(index));
            while (!pong.write(type, reply, 0, 8)) {
                Thread.onSpinWait();
            }
        };
        ready();
        while (true) {
            if (ping.read(echo, 1) == 0) {
                Thread.onSpinWait();
            }
        }
    }
}
