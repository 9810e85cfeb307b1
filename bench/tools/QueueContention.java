import dev.ferrite.queue.Consumer;
import dev.ferrite.queue.IpcQueue;
import dev.ferrite.queue.MessageHandler;
import dev.ferrite.queue.Producer;
import dev.ferrite.queue.QueueSpec;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * How often a caught-up consumer finds the ring empty, beside the producer's speed: the bench's
 * {@code QueueThroughput} with a consumer thread (1 MiB ring in /dev/shm, one producer sending
 * messages as fast as {@code offer} lets it, a consumer thread polling up to 4,096 at a time and
 * calling {@code Thread.onSpinWait()} {@code SPINS} times after a poll that found nothing), one JVM
 * per run, with the share of the consumer's polls that found the ring empty and the share of the
 * producer's offers that found it full. A poll of an empty ring reads the line the producer is
 * writing next, which makes the producer's stores wait for that line to come back: the suspect this
 * tool was written to test. What it showed is in docs/PERFORMANCE.md ("That spread of JVMs with a
 * consumer thread ..."): on a quiet host the share of empty polls does not decide a JVM's speed.
 *
 * <pre>
 *   java -cp bench/target/ferrite-bench.jar bench/tools/QueueContention.java CONTENDER SIZE [SPINS]
 * </pre>
 * CONTENDER is a Ferrite backend ({@code unsafe}, {@code ffm}, ...) or {@code agrona} (Agrona's
 * {@code OneToOneRingBuffer} over a mapped file, the bench's baseline); SIZE is the payload in
 * bytes; SPINS defaults to 1, the bench's harness. Prints ns per message for six one-second rounds
 * after two of warm-up, then the two shares. Agrona needs
 * {@code --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED}; on JDK 24+ add
 * {@code --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED} as well.
 */
public final class QueueContention {

    private static final int CAPACITY = 1 << 20;
    private static final int POLL_LIMIT = 4096;
    private static final int ROUNDS = 8;
    private static final int WARMUP_ROUNDS = 2;

    /** The consumer's sum of first words, alone in the middle of its array (no line shared with the producer). */
    private static final long[] SINK = new long[32];
    private static final long[] CONSUMER_COUNTS = new long[32];
    private static volatile boolean running = true;

    /** One side of a contender: a send that may find the ring full, and a poll that may find it empty. */
    interface Ring {
        /** @return false if the ring was full */
        boolean send();

        /** @return how many messages the poll handed over */
        int poll();

        void close() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        String contender = args[0];
        int size = Integer.parseInt(args[1]);
        int spins = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        byte[] message = new byte[size];
        Arrays.fill(message, (byte) 7);
        Ring ring = contender.equals("agrona") ? agrona(message) : ferrite(contender, message);
        Thread consumer = new Thread(() -> {
            long empty = 0;
            long polls = 0;
            while (running) {
                polls++;
                if (ring.poll() == 0) {
                    empty++;
                    for (int i = 0; i < spins; i++) {
                        Thread.onSpinWait();
                    }
                }
            }
            CONSUMER_COUNTS[16] = empty;
            CONSUMER_COUNTS[17] = polls;
        }, "consumer");
        consumer.setDaemon(true);
        consumer.start();
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%s %d B, spins %d: ns/message", contender, size, spins));
        long fullTotal = 0;
        long sentTotal = 0;
        for (int round = 0; round < ROUNDS; round++) {
            long full = 0;
            long sent = 0;
            long start = System.nanoTime();
            long end = start + 1_000_000_000L;
            while (System.nanoTime() < end) {
                for (int i = 0; i < 1000; i++) {
                    while (!ring.send()) {
                        full++;
                        Thread.onSpinWait();
                    }
                }
                sent += 1000;
            }
            if (round >= WARMUP_ROUNDS) {
                out.append(String.format(Locale.ROOT, " %.2f", (System.nanoTime() - start) / (double) sent));
                fullTotal += full;
                sentTotal += sent;
            }
        }
        running = false;
        consumer.join();
        ring.close();
        out.append(String.format(Locale.ROOT, "; empty polls %.3f; full offers %.4f",
                CONSUMER_COUNTS[16] / (double) CONSUMER_COUNTS[17], fullTotal / (double) sentTotal));
        System.out.println(out);
    }

    private static Ring ferrite(String backend, byte[] message) {
        QueueSpec spec = QueueSpec.shm("contention-" + ProcessHandle.current().pid()).backend(backend)
                .capacity(CAPACITY).overwrite(true).build();
        IpcQueue queue = IpcQueue.create(spec);
        Consumer consumer = queue.consumer();
        Producer producer = queue.producer();
        MessageHandler handler = (segment, offset, length, type) -> SINK[16] += segment.getLong(offset);
        return new Ring() {
            @Override
            public boolean send() {
                return producer.offer(message, 0, message.length, 1);
            }

            @Override
            public int poll() {
                return consumer.poll(handler, POLL_LIMIT);
            }

            @Override
            public void close() {
                consumer.close();
                producer.close();
                queue.close();
                IpcQueue.delete(spec);
            }
        };
    }

    private static Ring agrona(byte[] message) throws Exception {
        Path file = Path.of("/dev/shm/contention-agrona-" + ProcessHandle.current().pid());
        MappedByteBuffer map;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            map = ch.map(FileChannel.MapMode.READ_WRITE, 0, CAPACITY + RingBufferDescriptor.TRAILER_LENGTH);
        }
        OneToOneRingBuffer ring = new OneToOneRingBuffer(new UnsafeBuffer(map));
        UnsafeBuffer source = new UnsafeBuffer(message);
        org.agrona.concurrent.MessageHandler handler = (type, buffer, index, length) -> SINK[16] += buffer.getLong(index);
        return new Ring() {
            @Override
            public boolean send() {
                return ring.write(1, source, 0, message.length);
            }

            @Override
            public int poll() {
                return ring.read(handler, POLL_LIMIT);
            }

            @Override
            public void close() throws Exception {
                Files.deleteIfExists(file);
            }
        };
    }
}
