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

    /**
     * A consumer that died after it stored the pending head but before it finished zeroing and
     * published the head: its successor finishes the zeroing, moves the head, and delivers what
     * came after, once. With one producer too (whose consumer zeroes the start of each record,
     * its successor every byte up to the pending head), and laps later every message still
     * arrives as written.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aConsumerDeadWhileZeroingIsFinishedByItsSuccessor(boolean many, @TempDir Path dir) {
        QueueSpec spec = QueueSpec.file(dir.resolve("q.pool")).capacity(4096).manyProducers(many).build();
        try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer()) {
            dev.ferrite.Segment s = q.segment();
            int ring = QueueLayout.RING_OFFSET;
            for (int i = 0; i < 3; i++) {
                assertTrue(p.offer(new byte[] {(byte) i, 9, 9, 9, 9, 9, 9, 9}, 0, 8, i));
            }
            // The dead consumer delivered the first two (16 bytes each), stored the pending head
            // and zeroed only the first word.
            s.putLong(QueueLayout.HEAD_PENDING_OFFSET, 32);
            s.putLong(ring, 0L);
            try (Consumer c = q.consumer()) {
                assertEquals(32, s.getLong(QueueLayout.HEAD_OFFSET), "head moved to the pending head");
                for (int at = 0; at < 32; at += 8) {
                    assertEquals(0, s.getLong(ring + at), "zeroed at ring byte " + at);
                }
                List<Integer> types = new ArrayList<>();
                assertEquals(1, c.poll((seg, off, len, type) -> types.add(type), 10));
                assertEquals(List.of(2), types, "only the message after the pending head");
                // Laps of the ring: each message arrives once, intact.
                byte[] m = new byte[40];
                for (int i = 0; i < 1000; i++) {
                    m[0] = (byte) i;
                    assertTrue(p.offer(m, 0, 8 + i % 33, 7));
                    int expected = i;
                    assertEquals(1, c.poll((seg, off, len, type) -> {
                        assertEquals(8 + expected % 33, len);
                        assertEquals((byte) expected, seg.getByte(off));
                    }, 10));
                }
                assertEquals(0, c.poll((seg, off, len, type) -> { }, 10), "nothing stale read as a message");
            }
        }
    }

    /**
     * A consumer that died with consumed bytes not yet zeroed: after a poll that left the records
     * of its last line (FREED 64 behind HEAD 80), or between its store of FREED and its store of
     * HEAD (HEAD 16, FREED 64, pending head 80). Its successor zeroes up to the head, or the
     * pending head, before its first poll, moves HEAD and FREED there, and delivers what came
     * after, once.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"80, 80", "16, 80"})
    void aConsumerDeadWithBytesNotYetZeroedIsFinishedByItsSuccessor(long head, long pending, @TempDir Path dir) {
        QueueSpec spec = QueueSpec.file(dir.resolve("q.pool")).capacity(4096).build();
        try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer()) {
            dev.ferrite.Segment s = q.segment();
            int ring = QueueLayout.RING_OFFSET;
            for (int i = 0; i < 6; i++) {
                assertTrue(p.offer(new byte[] {(byte) i, 9, 9, 9, 9, 9, 9, 9}, 0, 8, i)); // 16 bytes each
            }
            // The dead consumer delivered five records and zeroed the first line only.
            for (int at = 0; at < 64; at += 8) {
                s.putLong(ring + at, 0L);
            }
            s.putLong(QueueLayout.HEAD_OFFSET, head);
            s.putLong(QueueLayout.HEAD_PENDING_OFFSET, pending);
            s.putLong(QueueLayout.FREED_OFFSET, 64);
            try (Consumer c = q.consumer()) {
                assertEquals(80, s.getLong(QueueLayout.HEAD_OFFSET), "head at the end of what was delivered");
                assertEquals(80, s.getLong(QueueLayout.FREED_OFFSET), "freed moved to the head");
                for (int at = 0; at < 80; at += 8) {
                    assertEquals(0, s.getLong(ring + at), "zeroed at ring byte " + at);
                }
                List<Integer> types = new ArrayList<>();
                assertEquals(1, c.poll((seg, off, len, type) -> types.add(type), 10));
                assertEquals(List.of(5), types, "only the message after the head");
            }
        }
    }

    /**
     * A freed position past the head (with no pending head beyond), negative, unaligned, or more
     * than the consumer's lag (256 bytes) behind the head is damage: the consumer is refused,
     * naming it, and zeroes nothing.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"16, 96", "16, -8", "16, 4", "4160, 32", "296, 32"})
    void aDamagedFreedPositionIsRefusedByTheConsumerNamingIt(long head, long freed, @TempDir Path dir) {
        QueueSpec spec = QueueSpec.file(dir.resolve("q.pool")).capacity(4096).build();
        try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer()) {
            dev.ferrite.Segment s = q.segment();
            for (int i = 0; i < 5; i++) {
                assertTrue(p.offer(new byte[] {1}, 0, 1, i));
            }
            s.putLong(QueueLayout.HEAD_OFFSET, head);
            s.putLong(QueueLayout.HEAD_PENDING_OFFSET, head);
            s.putLong(QueueLayout.FREED_OFFSET, freed);
            long firstHeader = s.getLong(QueueLayout.RING_OFFSET);
            CorruptFileException e = assertThrows(CorruptFileException.class, q::consumer);
            assertTrue(e.getMessage().contains("freed position " + freed), e.getMessage());
            assertEquals(firstHeader, s.getLong(QueueLayout.RING_OFFSET), "nothing zeroed");
        }
    }

    /**
     * The consumer's lag never blocks a claim that fits an empty ring: the largest message, which
     * wraps, is refused while the consumer holds back its last line, and fits once the consumer,
     * caught up, sees the producer's stored tail at its head.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theLargestMessageFitsAnEmptyRingOnceTheConsumerPollsAgain(boolean viaTake, @TempDir Path dir) {
        QueueSpec spec = QueueSpec.file(dir.resolve("q.pool")).capacity(4096).maxMessageLength(2040).build();
        try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer(); Consumer c = q.consumer()) {
            dev.ferrite.Segment s = q.segment();
            assertTrue(p.offer(new byte[2040], 0, 2040, 1)); // [0, 2048)
            assertTrue(p.offer(new byte[] {1}, 0, 1, 2)); // [2048, 2064)
            assertEquals(2, c.poll((seg, off, len, type) -> { }, 10));
            assertEquals(2064, s.getLong(QueueLayout.HEAD_OFFSET));
            assertEquals(2048, s.getLong(QueueLayout.FREED_OFFSET));
            byte[] largest = new byte[2040];
            largest[2039] = 42;
            // 2032 bytes of padding to the ring's end, then 2048 at its start, then the free word:
            // 4088 bytes, 8 more than a capacity past FREED allows.
            assertTrue(!p.offer(largest, 0, 2040, 3), "refused while the consumer lags");
            int n = viaTake ? c.take((seg, off, len, type) -> { }, 10, java.time.Duration.ofMillis(5))
                    : c.poll((seg, off, len, type) -> { }, 10);
            assertEquals(0, n, "nothing to deliver");
            assertEquals(2064, s.getLong(QueueLayout.FREED_OFFSET), "caught up with the stored tail: freed");
            assertTrue(p.offer(largest, 0, 2040, 3), "fits the empty ring now");
            List<Byte> last = new ArrayList<>();
            assertEquals(1, c.poll((seg, off, len, type) -> last.add(seg.getByte(off + 2039)), 10));
            assertEquals(List.of((byte) 42), last);
        }
    }

    /**
     * A queue of format 2 (whose one-producer consumer left consumed bytes as they were), 3 (whose
     * single producer relied on its consumer zeroing every consumed byte) or 4 (whose producers
     * measured their room from the head, not the freed position) is refused by name and version,
     * and opening it changes nothing: the build that made it can still drain it.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void aQueueOfAnOlderFormatIsRefusedNamingBothVersionsAndLeftAsItWas(int version, @TempDir Path dir) {
        QueueSpec spec = QueueSpec.file(dir.resolve("old.pool")).capacity(4096).build();
        try (IpcQueue q = IpcQueue.create(spec)) {
            try (Producer p = q.producer()) {
                assertTrue(p.offer(new byte[] {1, 2, 3}, 0, 3, 5));
            }
            q.segment().putInt(QueueLayout.VERSION_OFFSET, version);
            CorruptFileException e = assertThrows(CorruptFileException.class, () -> IpcQueue.open(spec));
            assertTrue(e.getMessage().contains("format version " + version + " is not the supported version 5"),
                    e.getMessage());
            assertEquals(version, q.segment().getInt(QueueLayout.VERSION_OFFSET));
            q.segment().putInt(QueueLayout.VERSION_OFFSET, QueueLayout.VERSION);
        }
        try (IpcQueue q = IpcQueue.open(spec); Consumer c = q.consumer()) {
            List<Integer> types = new ArrayList<>();
            assertEquals(1, c.poll((seg, off, len, type) -> types.add(type), 10));
            assertEquals(List.of(5), types, "the message written before the refusal is still there");
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

    /** An identity word no process has: pid 2^30 - 1 never exists with start time 12345. */
    private static final long DEAD_PROCESS = 12345L << 32 | 0x3FFF_FFFFL;

    /**
     * A dead writer's unmarked claim is followed by a live writer's claim whose header is not yet
     * written (it is between its CAS on the tail and its first store). The consumer pads the dead
     * claim only, waits for the live one however long it takes, and delivers its message once it
     * is written; then the producer goes on. The interleaving is built in the ring by hand, so it
     * is the same on every run.
     */
    @org.junit.jupiter.api.Test
    void skippingADeadWritersClaimNeverCoversALiveWritersClaim(@TempDir Path dir) throws Exception {
        QueueSpec spec = QueueSpec.file(dir.resolve("skip.pool")).capacity(1 << 12).manyProducers(true)
                .abandonTimeout(java.time.Duration.ofMillis(1)).build();
        try (IpcQueue queue = IpcQueue.create(spec); Consumer consumer = queue.consumer();
             Producer live = queue.producer()) {
            var s = queue.segment();
            int deadSlot = QueueLayout.producerSlot(5);
            s.putLong(deadSlot + QueueLayout.SLOT_IDENTITY, DEAD_PROCESS);
            s.putLong(deadSlot + QueueLayout.SLOT_CLAIM, 0);                 // the dead writer claimed [0, 64)
            s.putLong(QueueLayout.producerSlot(0) + QueueLayout.SLOT_CLAIM, 64); // the live one [64, 80)
            s.putLongVolatile(QueueLayout.TAIL_OFFSET, 80);
            List<String> got = new ArrayList<>();
            MessageHandler collect = (seg, off, len, type) -> {
                byte[] b = new byte[len];
                seg.copyTo(off, b, 0, len);
                got.add(type + ":" + new String(b, java.nio.charset.StandardCharsets.UTF_8));
            };
            long until = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < until) {
                assertEquals(0, consumer.poll(collect, 10));
                Thread.sleep(1);
            }
            assertEquals(64, consumer.position(), "the dead claim is skipped, the live one waited for");
            assertEquals(List.of(new AbandonedRecord(0, 64, 0, consumer.abandonedRecords().get(0).waitedMillis())),
                    consumer.abandonedRecords());
            assertEquals(0, s.getLongVolatile(QueueLayout.RING_OFFSET + 64), "the live claim's header is untouched");

            // The live writer resumes: payload, then its header.
            s.copyFrom("hi".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, QueueLayout.RING_OFFSET + 72, 2);
            s.putLongOrdered(QueueLayout.RING_OFFSET + 64, RecordLayout.header(10, 7));
            assertTrue(live.offer("next".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, 4, 3));
            while (consumer.poll(collect, 10) > 0) {
                // drain
            }
            assertEquals(List.of("7:hi", "3:next"), got);
            assertEquals(1, consumer.abandonedCount());
        }
    }

    /**
     * Dead writers whose slots were taken again (their CLAIM words are gone) left two unmarked
     * claims before a published record: the consumer pads up to the record, never past it, and
     * delivers it.
     */
    @org.junit.jupiter.api.Test
    void deadClaimsWithForgottenClaimWordsArePaddedUpToTheNextRecord(@TempDir Path dir) throws Exception {
        QueueSpec spec = QueueSpec.file(dir.resolve("skip2.pool")).capacity(1 << 12).manyProducers(true)
                .abandonTimeout(java.time.Duration.ofMillis(1)).build();
        try (IpcQueue queue = IpcQueue.create(spec); Consumer consumer = queue.consumer();
             Producer live = queue.producer()) {
            var s = queue.segment();
            // [0, 32) and [32, 80) were claimed by writers that died; [80, 96) holds a record.
            s.putLong(QueueLayout.RING_OFFSET + 88, 0x0102030405060708L);
            s.putLongOrdered(QueueLayout.RING_OFFSET + 80, RecordLayout.header(16, 9));
            s.putLongVolatile(QueueLayout.TAIL_OFFSET, 96);
            List<Long> got = new ArrayList<>();
            long until = System.nanoTime() + 5_000_000_000L;
            while (got.isEmpty() && System.nanoTime() < until) {
                consumer.poll((seg, off, len, type) -> got.add(seg.getLong(off)), 10);
                Thread.sleep(1);
            }
            assertEquals(List.of(0x0102030405060708L), got);
            assertEquals(96, consumer.position());
            assertEquals(80, consumer.abandonedRecords().stream().mapToLong(AbandonedRecord::length).sum());
            assertTrue(live.offer(new byte[] {1}));
            assertEquals(1, consumer.poll((seg, off, len, type) -> got.add((long) seg.getByte(off)), 10));
        }
    }
}
