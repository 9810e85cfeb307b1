package dev.ferrite.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.Ferrite;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 12's reproducers: the endpoint guard knows queues by where they are, opening never takes
 * a running queue for a damaged one, and a damaged shared head cache loses no acknowledged message.
 */
class QueueRobustnessTest {

    /** Two anonymous pools with a queue under the same segment name are two queues: two producers. */
    @org.junit.jupiter.api.Test
    void twoAnonymousPoolsAreTwoQueuesWhateverTheirNames() {
        QueueSpec spec = QueueSpec.shm("ignored").capacity(1 << 16).build();
        try (ChunkPool a = Ferrite.backend().createPool(PoolSpec.anonymous().chunkSize(1 << 16).capacity(1 << 20).build());
             ChunkPool b = Ferrite.backend().createPool(PoolSpec.anonymous().chunkSize(1 << 16).capacity(1 << 20).build());
             IpcQueue qa = IpcQueue.create(a, "q", spec); IpcQueue qb = IpcQueue.create(b, "q", spec);
             Producer pa = qa.producer(); Producer pb = qb.producer()) {
            assertTrue(pa.offer(new byte[] {1}));
            assertTrue(pb.offer(new byte[] {2}));
        }
    }

    /** One file reached by two spellings of its path is one queue: its one producer place is taken once. */
    @org.junit.jupiter.api.Test
    void oneFileUnderTwoPathsIsOneQueue(@TempDir Path dir) {
        Path plain = dir.resolve("q.pool");
        Path dotted = Path.of(dir + "/./q.pool");
        try (IpcQueue first = IpcQueue.create(QueueSpec.file(plain).capacity(1 << 16).build());
             Producer producer = first.producer();
             IpcQueue second = IpcQueue.open(QueueSpec.file(dotted).build())) {
            FerriteException e = assertThrows(FerriteException.class, second::producer);
            assertTrue(e.getMessage().contains("live producer"), e.getMessage());
            assertTrue(producer.offer(new byte[] {3}));
        }
    }

    /** Opening a queue that runs at full speed never refuses it as corrupt, in both modes. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void opensNeverTakeARunningQueueForADamagedOne(boolean many, @TempDir Path dir) throws Exception {
        QueueSpec spec = QueueSpec.file(dir.resolve("busy.pool")).capacity(4096).manyProducers(many).build();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        try (IpcQueue queue = IpcQueue.create(spec); Producer producer = queue.producer();
             Consumer consumer = queue.consumer()) {
            byte[] message = new byte[24];
            Thread p = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        producer.offer(message);
                    }
                } catch (Throwable t) {
                    failed.compareAndSet(null, t);
                }
            });
            Thread c = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        consumer.poll((s, off, len, type) -> { }, 64);
                    }
                } catch (Throwable t) {
                    failed.compareAndSet(null, t);
                }
            });
            p.start();
            c.start();
            int refused = 0;
            try {
                for (int i = 0; i < 10_000; i++) {
                    try (IpcQueue again = IpcQueue.open(QueueSpec.file(spec.path()).build())) {
                        assertEquals(4096, again.capacity());
                    } catch (CorruptFileException e) {
                        refused++;
                    }
                }
            } finally {
                stop.set(true);
                p.join();
                c.join();
            }
            assertNull(failed.get());
            assertEquals(0, refused, "opens refused as corrupt");
        }
    }

    /**
     * A many-producer queue whose shared head cache is damaged (2^40) accepts only what fits and
     * delivers every acknowledged message, in order and intact.
     */
    @org.junit.jupiter.api.Test
    void aDamagedHeadCacheLosesNoAcknowledgedMessage(@TempDir Path dir) {
        QueueSpec spec = QueueSpec.file(dir.resolve("cache.pool")).capacity(1 << 16).manyProducers(true).build();
        try (IpcQueue queue = IpcQueue.create(spec); Producer producer = queue.producer();
             Consumer consumer = queue.consumer()) {
            queue.segment().putLongVolatile(QueueLayout.HEAD_CACHE_OFFSET, 1L << 40);
            List<Long> acknowledged = new ArrayList<>();
            byte[] message = new byte[100];
            ByteBuffer b = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
            for (long i = 0; i < 2_000; i++) {
                b.putLong(0, i).putLong(92, ~i);
                if (producer.offer(message)) {
                    acknowledged.add(i);
                }
            }
            assertTrue(acknowledged.size() <= (1 << 16) / 112, acknowledged.size() + " messages cannot fit");
            List<Long> received = new ArrayList<>();
            consumer.poll((s, off, len, type) -> {
                long seq = s.getLong(off);
                assertEquals(~seq, s.getLong(off + 92), "message " + seq + " intact");
                received.add(seq);
            }, Integer.MAX_VALUE);
            assertEquals(acknowledged, received);
        }
    }
}
