package dev.ferrite.queue;

import dev.ferrite.Segment;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads a queue's bytes at the offsets written in docs/FORMAT.md ("Queue"), as literals, not
 * through the descriptor classes: the document and the code must agree.
 */
class QueueFormatTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void bytesAreWhereTheFormatSays(String backend) {
        QueueSpec spec = QueueTargets.spec(backend, dir).capacity(8192).maxMessageLength(400).build();
        try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer(); Consumer c = q.consumer()) {
            Segment s = q.segment();
            byte[] magic = new byte[8];
            s.copyTo(0, magic, 0, 8);
            assertEquals("FERRITEQ", new String(magic, StandardCharsets.US_ASCII));
            assertEquals(5, s.getInt(8));
            assertEquals(0, s.getInt(12));
            assertEquals(8192, s.getLong(16));
            assertEquals(400, s.getInt(24));
            assertEquals(8, s.getInt(28));
            assertEquals(8192, s.getInt(32));
            assertEquals(64, s.getInt(36));
            assertTrue(Math.abs(System.currentTimeMillis() - s.getLong(40)) < 60_000);
            byte[] geometry = new byte[60];
            s.copyTo(0, geometry, 0, 60);
            CRC32C crc = new CRC32C();
            crc.update(geometry);
            assertEquals((int) crc.getValue(), s.getInt(60));

            long self = ProcessHandle.current().pid();
            assertEquals(self, s.getLong(640) & 0xFFFFFFFFL, "consumer slot identity");
            assertEquals(self, s.getLong(768) & 0xFFFFFFFFL, "producer slot 0 identity");
            assertTrue(System.currentTimeMillis() - s.getLong(768 + 8) < 10_000, "heartbeat");
            assertEquals(1, s.getLong(768 + 16), "generation");

            p.offer("hello".getBytes(StandardCharsets.US_ASCII), 0, 5, 5);
            assertEquals(5L << 32 | 13, s.getLong(8192), "header: type << 32 | length");
            byte[] payload = new byte[5];
            s.copyTo(8200, payload, 0, 5);
            assertEquals("hello", new String(payload, StandardCharsets.US_ASCII));
            assertEquals(0, s.getLong(384), "tail: stored once 1024 bytes (capacity / 8) past the stored one");
            assertEquals(16, q.bytesInUse(), "the true tail, from the headers past the stored one");
            assertEquals(0, s.getLong(128), "head");

            Claim claim = p.tryClaim(20, 9);
            assertEquals(RecordLayout.header(-28, (int) (1L << 6)), s.getLong(8192 + 16),
                    "in progress: -length, generation << 6 | slot");
            claim.abort();
            assertEquals(-1L << 32 | 28, s.getLong(8192 + 16), "aborted: padding");

            assertEquals(0, s.getLong(8192 + 48), "the word after the last claim is free, so 0");
            byte[] longer = new byte[300];
            java.util.Arrays.fill(longer, (byte) 0x55);
            p.offer(longer, 0, 300, 6); // a long record: 308 bytes, 312 with its padding: [48, 360)
            assertEquals(2, c.poll((seg, off, len, type) -> { }, 10));
            assertEquals(360, s.getLong(128), "head past the messages and the padding");
            assertEquals(360, s.getLong(136), "pending head: where the consumer zeroed to");
            assertEquals(360, s.getLong(144), "freed: the poll ended in a long record, nothing is left unzeroed");
            for (int at = 0; at < 112; at += 8) {
                assertEquals(0, s.getLong(8192 + at), "short records zeroed whole, a long one's first 64 bytes, at " + at);
            }
            for (int at = 112; at < 352; at += 8) { // the payload ends at 356
                assertEquals(0x5555555555555555L, s.getLong(8192 + at), "the rest of a long record is left, at " + at);
            }
            p.close();
            assertEquals(360, s.getLong(384), "a closing producer stores its exact tail");
        } finally {
            IpcQueue.delete(spec);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void manyProducersMarkClaimsAndTheConsumerZeroes(String backend) {
        QueueSpec spec = QueueTargets.spec(backend, dir).capacity(8192).manyProducers(true).build();
        try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer(); Consumer c = q.consumer()) {
            Segment s = q.segment();
            assertEquals(1, s.getInt(12), "flags: many producers");
            assertEquals(-1, s.getLong(768 + 56), "no claim attempt yet");
            Claim claim = p.tryClaim(8, 2);
            assertEquals(0, s.getLong(768 + 56), "CLAIM: the position the producer claimed from");
            assertEquals(16, s.getLong(384), "tail claimed by CAS before anything is written");
            assertEquals(RecordLayout.header(-16, 1 << 6), s.getLong(8192), "in progress");
            claim.segment().putLong(claim.offset(), 42);
            claim.commit();
            p.offer(new byte[20], 0, 20, 0);
            assertEquals(16, s.getLong(768 + 56), "CLAIM kept until the next claim");
            assertEquals(1, c.poll((seg, off, len, type) -> assertEquals(42, seg.getLong(off)), 1));
            assertEquals(16, s.getLong(128), "head");
            assertEquals(16, s.getLong(136), "pending head: zeroed up to here");
            assertEquals(16, s.getLong(144), "freed: many producers, nothing left unzeroed");
            assertEquals(0, s.getLong(8192), "consumed bytes are zero");
            assertEquals(0, s.getLong(8200));
            assertEquals(28, s.getLong(8192 + 16) & 0xFFFFFFFFL, "the next record is untouched");
        } finally {
            IpcQueue.delete(spec);
        }
    }

    /**
     * One producer: the consumer leaves the records of the cache line its poll stopped in (the
     * line the producer writes next) unzeroed, FREED at their start, HEAD past them; its next poll
     * zeroes them, and so does its close. Producers' room ends a capacity past FREED.
     */
    @ParameterizedTest
    @MethodSource("dev.ferrite.queue.QueueTargets#backends")
    void theConsumerLeavesTheLineItStoppedInForItsNextPoll(String backend) {
        QueueSpec spec = QueueTargets.spec(backend, dir).capacity(8192).build();
        try (IpcQueue q = IpcQueue.create(spec); Producer p = q.producer()) {
            Segment s = q.segment();
            Consumer c = q.consumer();
            for (int i = 0; i < 5; i++) {
                assertTrue(p.offer(new byte[] {(byte) (i + 1)}, 0, 1, i)); // 9 bytes, 16 in the ring
            }
            assertEquals(5, c.poll((seg, off, len, type) -> { }, 10));
            assertEquals(80, s.getLong(128), "head past the five records");
            assertEquals(64, s.getLong(144), "freed: the start of the line the poll stopped in");
            for (int at = 0; at < 64; at += 8) {
                assertEquals(0, s.getLong(8192 + at), "zeroed at " + at);
            }
            assertEquals(4L << 32 | 9, s.getLong(8192 + 64), "the fifth record is left as it was");
            assertEquals(0, c.poll((seg, off, len, type) -> { }, 10), "empty");
            assertEquals(64, s.getLong(144), "an empty poll while TAIL lags the head frees nothing");

            assertTrue(p.offer(new byte[60], 0, 60, 7)); // 68 bytes, 72 in the ring: [80, 152)
            assertEquals(1, c.poll((seg, off, len, type) -> { }, 10));
            assertEquals(152, s.getLong(128));
            assertEquals(80, s.getLong(144), "freed: the last record boundary before the line of 152");
            assertEquals(0, s.getLong(8192 + 64), "the record left by the first poll is zeroed now");
            assertEquals(0, s.getLong(8192 + 72));
            assertEquals(7L << 32 | 68, s.getLong(8192 + 80), "the record that crosses into the last line is left");

            c.close();
            assertEquals(152, s.getLong(144), "a closing consumer frees what it left");
            for (int at = 0; at < 152; at += 8) {
                assertEquals(0, s.getLong(8192 + at), "zeroed at " + at);
            }
        } finally {
            IpcQueue.delete(spec);
        }
    }
}
