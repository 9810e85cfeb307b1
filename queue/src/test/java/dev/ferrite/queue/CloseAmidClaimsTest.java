package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue closed by one thread while another offers and commits claims through its producer: the
 * close neither throws nor undoes an offer or commit that returned; whoever opens the queue next
 * receives every such message, in order, and at most the one the close cut short; and a producer
 * opened after the close is heard.
 */
class CloseAmidClaimsTest {

    private static final int ROUNDS = 150;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "manyProducers={0}")
    @ValueSource(booleans = {false, true})
    void everySentMessageOutlivesAConcurrentClose(boolean manyProducers) throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            QueueSpec spec = QueueTargets.spec("bytebuffer", dir).capacity(1 << 16).manyProducers(manyProducers)
                    .abandonTimeout(Duration.ofMillis(10)).livenessTimeout(Duration.ofMillis(200)).build();
            IpcQueue queue = IpcQueue.create(spec);
            Producer producer = queue.producer();
            Consumer consumer = queue.consumer();
            List<Long> early = new ArrayList<>();
            MessageHandler keepEarly = (segment, offset, length, type) -> early.add(segment.getLong(offset));
            AtomicLong committed = new AtomicLong();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            Thread user = new Thread(() -> {
                try {
                    for (long seq = 1; ; seq++) {
                        boolean sent;
                        if (seq % 3 == 0) {
                            sent = producer.offer(bytes(seq), 0, 8, 1);
                        } else {
                            Claim c = producer.tryClaim(8, 1);
                            sent = c != null;
                            if (sent) {
                                c.segment().putLong(c.offset(), seq);
                                c.commit();
                            }
                        }
                        if (sent) {
                            committed.set(seq);
                        } else {
                            seq--;
                        }
                        if ((seq & 63) == 0) {
                            consumer.poll(keepEarly, 1024); // the ring never fills: claims go on until the close
                        }
                    }
                } catch (FerriteException e) {
                    // the close ended the call: what it had not committed is not owed
                } catch (Throwable t) {
                    unexpected.set(t);
                }
            }, "claims");
            user.start();
            while (committed.get() == 0 && user.isAlive()) {
                Thread.onSpinWait();
            }
            for (int spin = ThreadLocalRandom.current().nextInt(50_000); spin > 0; spin--) {
                Thread.onSpinWait();
            }
            queue.close(); // never throws, whatever the other thread was doing
            user.join(30_000);
            assertFalse(user.isAlive(), "round " + round + ": the sending thread still ran 30 s after the close");
            assertNull(unexpected.get());
            assertTrue(committed.get() > 0, "round " + round + ": nothing was committed before the close");

            long acked = committed.get();
            List<Long> received = new ArrayList<>();
            MessageHandler keep = (segment, offset, length, type) -> received.add(segment.getLong(offset));
            try (IpcQueue again = IpcQueue.open(spec)) {
                Consumer next = again.consumer();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (last(early, received) < acked && System.nanoTime() - deadline < 0) {
                    if (next.poll(keep, 1024) == 0) {
                        Thread.sleep(1);
                    }
                }
                // then past the abandon timeout, which a claim the close cut short takes to be skipped
                next.take(keep, 1024, Duration.ofMillis(40));
                next.poll(keep, 1024);
                // and the queue goes on: a new producer's message arrives after them
                List<Long> after = new ArrayList<>();
                try (Producer successor = again.producer()) {
                    assertTrue(successor.offer(bytes(-1), 0, 8, 1));
                }
                long heard = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (!after.contains(-1L) && System.nanoTime() - heard < 0) {
                    next.poll((segment, offset, length, type) -> {
                        long n = segment.getLong(offset);
                        (n == -1 ? after : received).add(n);
                    }, 1024);
                }
                assertEquals(List.of(-1L), after, "round " + round + ": the message of the producer after the close");
            } finally {
                IpcQueue.delete(spec);
            }
            // The first consumer's messages are 1, 2, ...; the next one's go on from there, and may
            // begin again at any of the first's (delivery is at least once: a poll the close cut
            // short does not publish its head).
            String what = "round " + round + ": " + acked + " commits returned; the first consumer received "
                    + around(early, 1) + ", the next " + around(received, received.isEmpty() ? 0 : received.get(0));
            assertEquals(-1, firstOutOfSequence(early, 1), what);
            if (!received.isEmpty()) {
                long from = received.get(0);
                assertTrue(from >= 1 && from <= early.size() + 1, what);
                assertEquals(-1, firstOutOfSequence(received, from), what);
            }
            long last = last(early, received);
            assertTrue(last == acked || last == acked + 1, "every committed message arrives, and at most the one in flight: " + what);
        }
    }

    @Test
    void anOfferTheCloseCutShortLeavesNoHoleBeforeTheNextProducer() throws Exception {
        QueueSpec spec = QueueTargets.spec("bytebuffer", dir).capacity(1 << 16).build();
        try {
            try (IpcQueue queue = IpcQueue.create(spec)) {
                RingProducer producer = (RingProducer) queue.producer();
                assertTrue(producer.offer(bytes(1), 0, 8, 1));
                // an offer on another thread that has claimed its bytes and not yet written its
                // header when the close comes, and never does (its memory was closed under it)
                assertTrue(producer.claim(RecordLayout.aligned(RecordLayout.HEADER_BYTES + 8)) >= 0);
            }
            try (IpcQueue queue = IpcQueue.open(spec); Producer next = queue.producer()) {
                assertTrue(next.offer(bytes(2), 0, 8, 1));
                List<Long> received = new ArrayList<>();
                queue.consumer().take((segment, offset, length, type) -> received.add(segment.getLong(offset)), 16,
                        Duration.ofSeconds(5));
                assertEquals(List.of(1L, 2L), received, "the next producer writes where the headers end");
            }
        } finally {
            IpcQueue.delete(spec);
        }
    }

    private static byte[] bytes(long n) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(n).array();
    }

    /** @return the last number received by either consumer, 0 if none */
    private static long last(List<Long> early, List<Long> received) {
        List<Long> l = received.isEmpty() ? early : received;
        return l.isEmpty() ? 0 : l.get(l.size() - 1);
    }

    /** @return the index of the first number that is not {@code from} plus its index, or -1 */
    private static int firstOutOfSequence(List<Long> numbers, long from) {
        for (int i = 0; i < numbers.size(); i++) {
            if (numbers.get(i) != from + i) {
                return i;
            }
        }
        return -1;
    }

    /** @return the list's size and the numbers around its first out of sequence, for a message */
    private static String around(List<Long> numbers, long from) {
        int i = firstOutOfSequence(numbers, from);
        if (i < 0) {
            return numbers.size() + " in sequence" + (numbers.isEmpty() ? "" : " from " + numbers.get(0));
        }
        return numbers.size() + ", out of sequence at index " + i + ": "
                + numbers.subList(Math.max(0, i - 3), Math.min(numbers.size(), i + 5));
    }
}
