package dev.ferrite.queue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Random sequences of every producer and consumer operation, with reopenings, against an
 * {@link ArrayDeque} of expected messages; also checks that an offer is refused exactly when the
 * ring has no room for it (counting the padding a wrap needs and, with one producer, the free
 * header word after the claim). Both producer modes.
 */
class QueueModelPropertyTest {

    private static final int STEPS = 20_000;
    private static final long CAPACITY = 4096;

    @TempDir
    Path dir;

    private final List<QueueSpec> made = new ArrayList<>();

    @AfterEach
    void deleteQueues() {
        made.forEach(IpcQueue::delete);
    }

    record Expected(byte[] payload, int type) {
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void randomOperationsMatchTheModel(String backend) {
        long[] seeds = {1, 42, 20261121, System.nanoTime()};
        for (boolean many : new boolean[] {false, true}) {
            for (long seed : seeds) {
                try {
                    run(backend, seed, many);
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError("seed " + seed + (many ? ", many producers" : ", one producer") + " on "
                            + backend + ": " + e.getMessage(), e);
                }
            }
        }
    }

    private void run(String backend, long seed, boolean many) {
        SplittableRandom random = new SplittableRandom(seed);
        QueueSpec spec = QueueTargets.spec(backend, dir).capacity(CAPACITY).maxMessageLength(600)
                .manyProducers(many).build();
        made.add(spec);
        ArrayDeque<Expected> model = new ArrayDeque<>();
        IpcQueue queue = IpcQueue.create(spec);
        Producer producer = queue.producer();
        Consumer consumer = queue.consumer();
        try {
            for (int step = 0; step < STEPS; step++) {
                int op = random.nextInt(100);
                if (op < 35) {
                    byte[] m = payload(random);
                    int type = random.nextInt(1000);
                    boolean room = hasRoom(queue, producer, RecordLayout.aligned(8 + m.length), many);
                    boolean offered = random.nextBoolean()
                            ? producer.offer(m, 0, m.length, type)
                            : producer.offer(ByteBuffer.wrap(m), type);
                    assertEquals(room, offered, "offer of " + m.length + " bytes at step " + step);
                    if (offered) {
                        model.add(new Expected(m, type));
                    }
                } else if (op < 45) {
                    byte[] m = payload(random);
                    Claim claim = producer.tryClaim(m.length, 7);
                    if (claim != null) {
                        claim.segment().copyFrom(m, 0, claim.offset(), m.length);
                        if (random.nextInt(4) == 0) {
                            claim.abort();
                        } else {
                            claim.commit();
                            model.add(new Expected(m, 7));
                        }
                    }
                } else if (op < 52) {
                    int count = 1 + random.nextInt(6);
                    int length = 1 + random.nextInt(100);
                    BatchClaim batch = producer.tryClaimBatch(count, length, 3);
                    if (batch != null) {
                        byte[][] ms = new byte[count][];
                        for (int i = 0; i < count; i++) {
                            ms[i] = new byte[length];
                            random.nextBytes(ms[i]);
                            batch.segment().copyFrom(ms[i], 0, batch.offset(i), length);
                        }
                        batch.commit();
                        for (byte[] m : ms) {
                            model.add(new Expected(m, 3));
                        }
                    }
                } else if (op < 58) {
                    int count = 1 + random.nextInt(5);
                    byte[][] ms = new byte[count][];
                    for (int i = 0; i < count; i++) {
                        ms[i] = payload(random);
                    }
                    long total = Arrays.stream(ms).mapToLong(m -> RecordLayout.aligned(8 + m.length)).sum();
                    if (total > CAPACITY / 2) {
                        Producer p = producer;
                        assertThrows(dev.ferrite.FerriteException.class, () -> p.offerBatch(ms, 0, count, 11));
                    } else if (producer.offerBatch(ms, 0, count, 11)) {
                        for (byte[] m : ms) {
                            model.add(new Expected(m, 11));
                        }
                    }
                } else if (op < 98) {
                    int limit = 1 + random.nextInt(5);
                    List<Expected> got = new ArrayList<>();
                    int n = consumer.poll((s, off, len, type) -> {
                        byte[] b = new byte[len];
                        s.copyTo(off, b, 0, len);
                        got.add(new Expected(b, type));
                    }, limit);
                    assertEquals(Math.min(limit, model.size()), n, "poll count at step " + step);
                    for (Expected e : got) {
                        Expected want = model.poll();
                        assertNotNull(want, "message the model does not have at step " + step);
                        assertEquals(want.type(), e.type(), "type at step " + step);
                        assertArrayEquals(want.payload(), e.payload(), "payload at step " + step);
                    }
                } else {
                    queue.close();
                    queue = IpcQueue.open(spec);
                    producer = queue.producer();
                    consumer = queue.consumer();
                }
            }
            List<Expected> rest = new ArrayList<>();
            while (consumer.poll((s, off, len, type) -> {
                byte[] b = new byte[len];
                s.copyTo(off, b, 0, len);
                rest.add(new Expected(b, type));
            }, 100) > 0) {
                // drain
            }
            assertEquals(model.size(), rest.size());
            for (Expected e : rest) {
                assertTrue(Arrays.equals(model.poll().payload(), e.payload()));
            }
            assertEquals(0, queue.bytesInUse());
        } finally {
            queue.close();
        }
    }

    private static byte[] payload(SplittableRandom random) {
        int length = random.nextInt(4) == 0 ? 1 + random.nextInt(600) : 1 + random.nextInt(40);
        byte[] m = new byte[length];
        random.nextBytes(m);
        return m;
    }

    /**
     * Whether {@code bytes} fit now: the ring's free space from the freed position (which the
     * consumer may leave behind its head, see the lag check), less the padding to the end on a wrap.
     */
    private static boolean hasRoom(IpcQueue queue, Producer producer, int bytes, boolean many) {
        long tail = many ? queue.segment().getLongVolatile(QueueLayout.TAIL_OFFSET) : producer.position();
        long head = queue.segment().getLongVolatile(QueueLayout.FREED_OFFSET);
        long lag = queue.segment().getLongVolatile(QueueLayout.HEAD_OFFSET) - head;
        assertTrue(lag >= 0 && lag <= (many ? 0 : QueueLayout.CONSUMER_LAG), "freed position lags the head by " + lag);
        long toEnd = CAPACITY - (tail & (CAPACITY - 1));
        long needed = bytes > toEnd ? toEnd + bytes : bytes;
        return tail + needed + (many ? 0 : 8) - head <= CAPACITY; // one producer keeps the next header word free
    }
}
