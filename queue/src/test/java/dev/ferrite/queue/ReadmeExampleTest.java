package dev.ferrite.queue;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's queue example, as written there (both "processes" in this one), does what it says. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleWorks() {
        QueueSpec spec = QueueSpec.shm("orders-" + ProcessHandle.current().pid())
                .capacity(1 << 20)
                .maxMessageLength(4096)
                .manyProducers(false)
                .build();
        byte[] bytes = "seven".getBytes(UTF_8);
        long orderId = 17;
        long price = 99;
        long[] ticks = new long[32];
        for (int i = 0; i < 32; i++) {
            ticks[i] = 1000 + i;
        }
        List<Long> processed = new ArrayList<>();
        try (IpcQueue queue = IpcQueue.create(spec); Producer producer = queue.producer()) {
            assertTrue(producer.offer("hello".getBytes(UTF_8)));
            assertTrue(producer.offer(bytes, 0, bytes.length, 7, Duration.ofSeconds(1)));

            Claim claim = producer.tryClaim(16, 3);
            claim.segment().putLong(claim.offset(), orderId);
            claim.segment().putLong(claim.offset() + 8, price);
            claim.commit();

            BatchClaim batch = producer.tryClaimBatch(32, 8, 1);
            for (int i = 0; i < 32; i++) {
                batch.segment().putLong(batch.offset(i), ticks[i]);
            }
            batch.commit();
        }
        try (IpcQueue queue = IpcQueue.open(spec); Consumer consumer = queue.consumer()) {
            MessageHandler handler = (segment, offset, length, type) -> processed.add(
                    length >= 8 ? segment.getLong(offset) : (long) length);
            assertEquals(2, consumer.poll(handler, 2));
            assertEquals(33, consumer.take(handler, 100, Duration.ofMillis(10)));
            assertEquals(orderId, processed.get(2));
            assertEquals(1031L, processed.get(34));
            assertEquals(false, consumer.isPeerAlive(), "the producer was closed");
        } finally {
            IpcQueue.delete(spec);
        }
    }
}
