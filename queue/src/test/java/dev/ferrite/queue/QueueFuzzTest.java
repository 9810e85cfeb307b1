package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random damage to a queue's ring and positions, on every backend (the unchecked {@code unsafe}
 * one included: a read outside the segment would crash this JVM). Every poll, offer and takeover
 * must either work, with every delivered message inside the ring and within the length limit, or
 * throw a {@link FerriteException}.
 */
class QueueFuzzTest {

    private static final int ROUNDS = 500;
    private static final long CAPACITY = 4096;

    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void damagedRingsNeverLeadOutsideTheRing(String backend) {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        int refused = 0;
        for (int round = 0; round < ROUNDS; round++) {
            boolean many = random.nextBoolean();
            QueueSpec spec = QueueTargets.spec(backend, dir).capacity(CAPACITY).maxMessageLength(300)
                    .manyProducers(many).abandonTimeout(Duration.ofMillis(1)).build();
            try {
                try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer()) {
                    for (int i = 0; i < random.nextInt(40); i++) {
                        p.offer(new byte[1 + random.nextInt(300)]);
                    }
                    damage(q.segment(), random);
                }
                try (IpcQueue q = IpcQueue.open(spec); Consumer c = q.consumer()) {
                    for (int i = 0; i < 20; i++) {
                        c.poll(QueueFuzzTest::checkBounds, 1 + random.nextInt(50));
                    }
                    try (Producer p = q.producer()) {
                        p.offer(new byte[1 + random.nextInt(300)]);
                    }
                    c.poll(QueueFuzzTest::checkBounds, 100);
                }
            } catch (FerriteException e) {
                refused++;
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + " round " + round + ": " + e.getMessage(), e);
            } finally {
                IpcQueue.delete(spec);
            }
        }
        assertTrue(refused > 0, "some damage was noticed (seed " + seed + ")");
    }

    private static void checkBounds(Segment segment, long offset, int length, int type) {
        long ringStart = QueueLayout.RING_OFFSET + RecordLayout.HEADER_BYTES;
        long ringEnd = QueueLayout.RING_OFFSET + CAPACITY;
        if (offset < ringStart || offset + length > ringEnd || length < 1 || length > 300 || type < 0) {
            throw new AssertionError("delivered offset " + offset + " length " + length + " type " + type
                    + " outside the ring [" + ringStart + ", " + ringEnd + ") or the limits");
        }
        segment.getByte(offset + length - 1);
    }

    /** Random words in the ring, and sometimes a damaged head, tail, pending head or freed position. */
    private static void damage(Segment s, SplittableRandom random) {
        int words = 1 + random.nextInt(8);
        for (int i = 0; i < words; i++) {
            long at = QueueLayout.RING_OFFSET + 8L * random.nextInt((int) (CAPACITY / 8));
            long value = switch (random.nextInt(4)) {
                case 0 -> RecordLayout.header(random.nextInt(), random.nextInt());
                case 1 -> RecordLayout.header(random.nextInt(600) - 300, random.nextInt(4) - 2);
                case 2 -> RecordLayout.header(-random.nextInt(5000), random.nextInt(200));
                default -> random.nextLong();
            };
            s.putLong(at, value);
        }
        if (random.nextInt(4) == 0) {
            int[] positions = {QueueLayout.HEAD_OFFSET, QueueLayout.TAIL_OFFSET, QueueLayout.HEAD_PENDING_OFFSET,
                QueueLayout.FREED_OFFSET};
            long delta = 8L * (random.nextInt(2000) - 1000);
            int field = positions[random.nextInt(positions.length)];
            s.putLong(field, Math.max(0, s.getLong(field) + delta));
        }
    }
}
