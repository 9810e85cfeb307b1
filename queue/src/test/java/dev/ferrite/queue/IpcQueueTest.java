package dev.ferrite.queue;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.InvalidSpecException;
import dev.ferrite.Segment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

/** Behaviour of one queue in one process, on every backend. */
class IpcQueueTest {

    @TempDir
    Path dir;

    private final List<QueueSpec> made = new ArrayList<>();

    private IpcQueue create(QueueSpec.Builder builder) {
        QueueSpec spec = builder.build();
        made.add(spec);
        return IpcQueue.create(spec);
    }

    @AfterEach
    void deleteQueues() {
        made.forEach(IpcQueue::delete);
    }

    private static List<String> drain(Consumer consumer) {
        List<String> out = new ArrayList<>();
        consumer.poll((s, off, len, type) -> {
            byte[] b = new byte[len];
            s.copyTo(off, b, 0, len);
            out.add(type + ":" + new String(b, StandardCharsets.UTF_8));
        }, Integer.MAX_VALUE);
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void offersArriveInOrderWithTheirTypes(String backend) {
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            assertTrue(p.offer(utf8("a")));
            assertTrue(p.offer(utf8("xbcdefghijklmnop"), 1, 3, 7));
            ByteBuffer buffer = ByteBuffer.wrap(utf8("buffer"));
            assertTrue(p.offer(buffer, 2));
            assertEquals(0, buffer.position(), "the buffer's position is not changed");
            assertEquals(List.of("0:a", "7:bcd", "2:buffer"), drain(c));
            assertEquals(List.of(), drain(c));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void fullRingRefusesUntilTheConsumerFreesRoom(String backend) {
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            byte[] m = new byte[56]; // 64-byte records: 63 fit in 4096 (the word after the last stays free)
            int n = 0;
            while (p.offer(m)) {
                n++;
            }
            assertEquals(63, n);
            assertEquals(4096 - 64, q.bytesInUse());
            assertEquals(1, c.poll((s, o, l, t) -> { }, 1));
            assertTrue(p.offer(m));
            assertFalse(p.offer(m));
            assertEquals(63, c.poll((s, o, l, t) -> { }, 1000));
            assertEquals(0, q.bytesInUse());
        }
    }

    /**
     * A lap later the ring holds old payload wherever nobody zeroed it. Here every old payload word
     * is a valid header (a 16-byte message of type 7): any header the consumer read before it was
     * zeroed or published would come out as a message of that type. Records of random sizes wrap
     * the 4 KiB ring about 200 times, with padding at its end, read in random batches; every
     * message arrives once, in order, as written, and nothing else does.
     */
    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void oldBytesThatLookLikeHeadersAreNeverDelivered(String backend) {
        long lookalike = RecordLayout.header(16, 7);
        SplittableRandom random = new SplittableRandom(33);
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096).maxMessageLength(400));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            long[] received = {0};
            MessageHandler check = (seg, off, len, type) -> {
                long seq = received[0]++;
                assertEquals(3, type, "message " + seq);
                assertEquals(lengthOf(seq), len, "message " + seq);
                assertEquals(seq, seg.getLong(off), "message " + seq);
                for (int i = 8; i + 8 <= len; i += 8) {
                    assertEquals(lookalike, seg.getLong(off + i), "message " + seq + " word " + i);
                }
            };
            ByteBuffer m = ByteBuffer.allocate(400).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (long seq = 0; seq < 6000; seq++) {
                int len = lengthOf(seq);
                fillLookalike(m, seq, len, lookalike);
                while (!p.offer(m.array(), 0, len, 3)) {
                    c.poll(check, 1 + random.nextInt(4));
                }
                if (random.nextInt(3) == 0) {
                    c.poll(check, 1 + random.nextInt(4));
                }
            }
            while (c.poll(check, 100) > 0) {
                // drain
            }
            assertEquals(6000, received[0]);
            assertEquals(0, c.poll(check, 100), "nothing old read as a message");
            assertEquals(0, q.bytesInUse());
        }
    }

    /**
     * As {@link #oldBytesThatLookLikeHeadersAreNeverDelivered}, with the consumer in a thread of its
     * own that polls as fast as it can, so that it often reads a header the moment the producer
     * makes it visible, at the ring's end too (the word at the ring's start must read 0 from the
     * moment the padding before it is published).
     */
    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void aConsumerThreadCaughtUpWithTheProducerNeverReadsOldBytes(String backend) throws Exception {
        long lookalike = RecordLayout.header(16, 7);
        int count = 300_000;
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096).maxMessageLength(400));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            long[] received = {0};
            Thread reader = new Thread(() -> {
                MessageHandler check = (seg, off, len, type) -> {
                    long seq = received[0]++;
                    if (type != 3 || len != lengthOf(seq) || seg.getLong(off) != seq
                            || (len >= 16 && seg.getLong(off + 8) != lookalike)) {
                        throw new AssertionError("message " + seq + ": type " + type + ", length " + len
                                + " (sent " + lengthOf(seq) + "), first word " + seg.getLong(off));
                    }
                };
                try {
                    while (received[0] < count) {
                        c.poll(check, 64);
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            reader.start();
            ByteBuffer m = ByteBuffer.allocate(400).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (long seq = 0; seq < count && failure.get() == null; seq++) {
                int len = lengthOf(seq);
                fillLookalike(m, seq, len, lookalike);
                while (!p.offer(m.array(), 0, len, 3) && failure.get() == null) {
                    Thread.onSpinWait();
                }
            }
            reader.join(60_000);
            assertNull(failure.get(), () -> String.valueOf(failure.get()));
            assertEquals(count, received[0]);
        }
    }

    /**
     * A one-producer consumer notes, per poll, which bytes of long records (over 256 bytes) to
     * zero; a poll over more such records than it notes stops early, and the next poll goes on:
     * all arrive, in order, once.
     */
    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void aPollOverManyLongRecordsStopsEarlyAndTheNextGoesOn(String backend) {
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(65536).maxMessageLength(400));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            byte[] m = new byte[300];
            for (int i = 0; i < 150; i++) {
                m[0] = (byte) i;
                assertTrue(p.offer(m, 0, 300, 1));
            }
            List<Integer> seen = new ArrayList<>();
            int first = c.poll((seg, off, len, type) -> seen.add((int) seg.getByte(off) & 0xFF), 1000);
            assertTrue(first >= 1 && first < 150, "the first poll stops early: " + first);
            while (c.poll((seg, off, len, type) -> seen.add((int) seg.getByte(off) & 0xFF), 1000) > 0) {
                // go on
            }
            assertEquals(150, seen.size());
            for (int i = 0; i < 150; i++) {
                assertEquals(i, seen.get(i));
            }
            assertEquals(0, q.bytesInUse());
        }
    }

    /** Writes a message's sequence number, then the lookalike header in every whole word of its {@code len} bytes. */
    private static void fillLookalike(ByteBuffer m, long seq, int len, long lookalike) {
        m.clear();
        m.putLong(seq);
        while (m.position() + 8 <= len) {
            m.putLong(lookalike);
        }
    }

    /** A message length from 8 to 400 bytes, fixed by the sequence number (multiples of 8 and not). */
    private static int lengthOf(long seq) {
        long x = seq * 0x9E3779B97F4A7C15L;
        return 8 + (int) ((x >>> 40) % 393);
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void oneProducersStoredTailLagsByLessThanTheLagAndIsExactWhenTheRingIsFullOrItCloses(String backend) {
        long lag = QueueLayout.tailLag(4096);
        assertEquals(512, lag, "an eighth of a small ring");
        assertEquals(4096, QueueLayout.tailLag(1 << 20), "at most MAX_TAIL_LAG");
        SplittableRandom random = new SplittableRandom(12);
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096))) {
            Segment s = q.segment();
            Producer p = q.producer();
            try (Consumer c = q.consumer()) {
                int fulls = 0;
                for (int i = 0; i < 3000; i++) {
                    if (p.offer(new byte[1 + random.nextInt(200)])) {
                        long stored = s.getLongVolatile(QueueLayout.TAIL_OFFSET);
                        assertTrue(stored <= p.position() && p.position() - stored < lag,
                                "stored tail " + stored + ", true tail " + p.position());
                    } else {
                        fulls++;
                        assertEquals(p.position(), s.getLongVolatile(QueueLayout.TAIL_OFFSET),
                                "a producer that finds the ring full stores its tail");
                    }
                    long head = s.getLongVolatile(QueueLayout.HEAD_OFFSET);
                    assertEquals(p.position() - head, q.bytesInUse(), "bytes in use follow the headers");
                    if (random.nextInt(8) == 0) { // slower than the producer: the ring fills at times
                        c.poll((seg, o, l, t) -> { }, 1 + random.nextInt(6));
                    }
                }
                assertTrue(fulls > 0, "the ring filled up at times");
                p.close();
                assertEquals(p.position(), s.getLongVolatile(QueueLayout.TAIL_OFFSET), "exact after close");
                c.poll((seg, o, l, t) -> { }, Integer.MAX_VALUE);
                assertEquals(0, q.bytesInUse());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void recordsWrapWithAPaddingRecordAndStayWhole(String backend) {
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096).maxMessageLength(1000));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            long seq = 0;
            long received = 0;
            for (int round = 0; round < 200; round++) {
                while (p.offer(Messages.make(seq, 1, Messages.lengthFor(seq, 900)))) {
                    seq++;
                }
                long[] expect = {received};
                received += c.poll((s, off, len, type) -> {
                    Messages.Decoded d = Messages.check(s, off, len);
                    assertEquals(expect[0]++, d.seq());
                }, 1 + round % 5);
            }
            assertTrue(seq > 500, "ring wrapped many times: " + seq);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void claimsCommitAbortAndBatchesPublishTogether(String backend) {
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            Claim claim = p.tryClaim(4, 3);
            claim.segment().putInt(claim.offset(), 0x64636261);
            assertEquals(List.of(), drain(c), "nothing visible before commit");
            claim.commit();
            assertThrows(FerriteException.class, claim::commit);
            Claim aborted = p.tryClaim(10, 1);
            assertThrows(FerriteException.class, () -> p.offer(utf8("x")), "a claim is open");
            aborted.abort();
            BatchClaim batch = p.tryClaimBatch(3, 2, 5);
            for (int i = 0; i < 3; i++) {
                batch.segment().putShort(batch.offset(i), (short) ('0' + i | 'z' << 8));
            }
            assertThrows(FerriteException.class, () -> batch.offset(3));
            assertEquals(List.of("3:abcd"), drain(c), "the batch is published only by its commit");
            batch.commit();
            assertTrue(p.offerBatch(new byte[][] {utf8("q"), utf8("rs"), utf8("tuvwxyz12")}, 0, 3, 9));
            assertEquals(List.of("5:0z", "5:1z", "5:2z", "9:q", "9:rs", "9:tuvwxyz12"), drain(c));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void badArgumentsAreRefusedWithTheLimitAndWriteNothing(String backend) {
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096).maxMessageLength(100));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            FerriteException tooLong = assertThrows(FerriteException.class, () -> p.offer(new byte[101]));
            assertTrue(tooLong.getMessage().contains("101") && tooLong.getMessage().contains("100"), tooLong.getMessage());
            assertThrows(FerriteException.class, () -> p.offer(new byte[0]));
            assertThrows(FerriteException.class, () -> p.offer(new byte[4], 0, 4, -2));
            assertThrows(FerriteException.class, () -> p.offer(new byte[4], 2, 4, 0));
            assertThrows(FerriteException.class, () -> p.tryClaim(-1, 0));
            assertThrows(FerriteException.class, () -> p.tryClaimBatch(1000, 100, 0), "more than half the ring");
            assertThrows(FerriteException.class, () -> c.poll((s, o, l, t) -> { }, 0));
            assertEquals(0, q.bytesInUse());
            assertEquals(List.of(), drain(c));
        }
        assertThrows(InvalidSpecException.class, () -> QueueSpec.shm("x").capacity(5000).build());
        assertThrows(InvalidSpecException.class, () -> QueueSpec.shm("x").capacity(4096).maxMessageLength(2041).build());
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void oneProducerAndOneConsumerAtATime(String backend) {
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096))) {
            Producer p = q.producer();
            Consumer c = q.consumer();
            assertThrows(FerriteException.class, q::producer);
            assertThrows(FerriteException.class, q::consumer);
            assertTrue(p.isPeerAlive());
            assertTrue(c.isPeerAlive());
            p.close();
            assertFalse(c.isPeerAlive(), "a closed producer is not alive");
            assertThrows(FerriteException.class, () -> p.offer(utf8("x")));
            try (Producer again = q.producer()) {
                assertTrue(again.offer(utf8("y")));
            }
            c.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void blockingCallsWaitAndTimeOut(String backend) throws Exception {
        try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096));
             Producer p = q.producer(); Consumer c = q.consumer()) {
            long t0 = System.nanoTime();
            assertEquals(0, c.take((s, o, l, t) -> { }, 10, Duration.ofMillis(50)));
            assertTrue(System.nanoTime() - t0 >= 50_000_000L);
            byte[] m = new byte[400];
            while (p.offer(m)) {
                // fill
            }
            assertFalse(p.offer(m, 0, m.length, 0, Duration.ofMillis(30)));
            Thread drainer = new Thread(() -> {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
                c.poll((s, o, l, t) -> { }, 2); // room for a record that wraps: its padding and itself
            });
            drainer.start();
            assertTrue(p.offer(m, 0, m.length, 0, Duration.ofSeconds(10)));
            drainer.join();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void reopenedQueueKeepsUnconsumedMessages(String backend) {
        QueueSpec spec = QueueTargets.spec(backend, dir).capacity(8192).build();
        made.add(spec);
        try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer(); Consumer c = q.consumer()) {
            p.offer(utf8("one"));
            p.offer(utf8("two"));
            c.poll((s, o, l, t) -> { }, 1);
        }
        try (IpcQueue q = IpcQueue.open(spec); Consumer c = q.consumer(); Producer p = q.producer()) {
            assertEquals(8192, q.capacity());
            p.offer(utf8("three"));
            assertEquals(List.of("0:two", "0:three"), drain(c));
        }
        assertThrows(FerriteException.class, () -> IpcQueue.create(spec), "exists and no overwrite");
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void corruptHeaderIsRefusedOnOpen(String backend) {
        QueueSpec spec = QueueTargets.spec(backend, dir).capacity(4096).build();
        made.add(spec);
        int[] fields = {QueueLayout.MAGIC_OFFSET, QueueLayout.VERSION_OFFSET, QueueLayout.CAPACITY_OFFSET,
                QueueLayout.MAX_MESSAGE_OFFSET, QueueLayout.GEOMETRY_CRC_OFFSET};
        try (IpcQueue q = IpcQueue.create(spec)) {
            assertEquals(4096, q.capacity());
        }
        for (int field : fields) {
            try (IpcQueue q = IpcQueue.open(spec)) {
                q.segment().putByte(field, (byte) (q.segment().getByte(field) ^ 0x10));
            }
            CorruptFileException e = assertThrows(CorruptFileException.class, () -> IpcQueue.open(spec));
            assertTrue(e.getMessage().startsWith("queue "), e.getMessage());
            try (RawQueue q = openRaw(spec)) {
                q.segment().putByte(field, (byte) (q.segment().getByte(field) ^ 0x10));
            }
        }
        try (IpcQueue q = IpcQueue.open(spec)) {
            q.segment().putLong(QueueLayout.TAIL_OFFSET, 4096 * 3);
        }
        CorruptFileException positions = assertThrows(CorruptFileException.class, () -> IpcQueue.open(spec));
        assertTrue(positions.getMessage().contains("tail 12288"), positions.getMessage());
    }

    /** Opens the pool and segment under a queue without checking the header (to repair it). */
    private static RawQueue openRaw(QueueSpec spec) {
        return RawQueue.open(spec);
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void corruptRecordHeadersNeverLeadOutsideTheRing(String backend) {
        long[] bad = {
            RecordLayout.header(4096 + 8, 0),          // past the ring's end
            RecordLayout.header(3, 0),                  // shorter than a header
            RecordLayout.header(8, 0),                  // empty message
            RecordLayout.header(16, -7),                // impossible type
            RecordLayout.header(600, 0),                // over the max message length
            RecordLayout.header(Integer.MAX_VALUE, 0),
            RecordLayout.header(Integer.MIN_VALUE, 5),  // in progress, absurd length
        };
        for (long word : bad) {
            try (IpcQueue q = create(QueueTargets.spec(backend, dir).capacity(4096).maxMessageLength(500)
                    .abandonTimeout(Duration.ofMillis(1)));
                 Producer p = q.producer(); Consumer c = q.consumer()) {
                assertTrue(p.offer(utf8("fine")));
                assertEquals(List.of("0:fine"), drain(c));
                long at = q.segment().size() - 4096 + (c.position() & 4095);
                q.segment().putLong(at, word);
                q.segment().putLong(QueueLayout.TAIL_OFFSET, c.position() + 8);
                boolean threw = false;
                for (int i = 0; i < 50 && !threw; i++) {
                    try {
                        drain(c);
                        Thread.sleep(2);
                    } catch (CorruptFileException e) {
                        threw = true;
                        assertTrue(e.getMessage().contains("position " + c.position()), e.getMessage());
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
                assertTrue(threw, "header 0x" + Long.toHexString(word) + " was not refused");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void newProducerAfterADeadOneStartsPastWhatTheConsumerAlreadyRead(String backend) {
        QueueSpec spec = QueueTargets.spec(backend, dir).capacity(4096).build();
        made.add(spec);
        try (IpcQueue q = IpcQueue.create(spec); Consumer c = q.consumer()) {
            // A producer published "xyz" and died before storing its tail; it left junk past it.
            var s = q.segment();
            s.copyFrom(utf8("xyz"), 0, QueueLayout.RING_OFFSET + 8, 3);
            s.putLongOrdered(QueueLayout.RING_OFFSET, RecordLayout.header(11, 4));
            s.putLong(QueueLayout.RING_OFFSET + 48, RecordLayout.header(12, 0)); // a half-written batch's header
            s.putInt(QueueLayout.RING_OFFSET + 56, 0x7777_7777);
            long deadProcess = 0x3FFF_FFFFL;
            s.putLong(QueueLayout.producerSlot(0), 12345L << 32 | deadProcess);
            assertEquals(List.of("4:xyz"), drain(c));
            assertEquals(0, s.getLong(QueueLayout.TAIL_OFFSET));
            assertEquals(16, s.getLong(QueueLayout.HEAD_OFFSET), "the head is ahead of the stored tail");
        }
        try (IpcQueue q = IpcQueue.open(spec); Consumer c = q.consumer(); Producer p = q.producer()) {
            assertTrue(p.offer(utf8("b")));
            assertTrue(p.offer(utf8("cd")));
            assertEquals(List.of("0:b", "0:cd"), drain(c), "no junk, nothing written behind the head");
            assertEquals(p.position(), c.position());
        }
    }
}
