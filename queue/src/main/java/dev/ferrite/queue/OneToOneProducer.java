package dev.ferrite.queue;

import static dev.ferrite.queue.QueueLayout.HEAD_CACHE_OFFSET;
import static dev.ferrite.queue.QueueLayout.TAIL_OFFSET;
import static dev.ferrite.queue.RecordLayout.ALIGNMENT;
import static dev.ferrite.queue.RecordLayout.PADDING_TYPE;
import static dev.ferrite.queue.RecordLayout.header;

/**
 * The producer of a one-producer queue. Its invariants, all in this class:
 * <ul>
 *   <li>The tail is this producer's own: a claim is a local addition, and TAIL is stored with an
 *       ordered store after the header that makes the claim visible (the record's final header
 *       for an offer, its in-progress header for a {@code tryClaim}). So TAIL never passes a
 *       header that reads 0, and for the consumer a 0 header at HEAD means "empty".</li>
 *   <li>TAIL is stored only once the tail is {@link QueueLayout#tailLag} bytes past the stored
 *       value, when the ring is full and at close: nobody needs it on the hot path (the consumer
 *       follows headers), and with the {@code ffm} backend that one ordered store per record
 *       was up to a quarter of the offer (JDK 25, 64-byte messages, consumer thread, six JVMs
 *       each: 19.7-21.3 ns per offer with it; 14.0-16.2 without it in four JVMs, 19.2-19.3 in
 *       two). Whoever needs the true tail follows headers from {@code max(TAIL, HEAD)}, as a
 *       producer taking over does.</li>
 *   <li>Free ring bytes from the tail up to {@link #zeroedTo} read 0: before a claim is made
 *       visible, this producer zeroes the free bytes past it, a {@link QueueLayout#ZERO_AHEAD}
 *       block at a time (never the bytes the claim itself covers: its records overwrite them).
 *       So the header word just past a claim reads 0 until a record is published there, and
 *       the consumer of a one-producer queue zeroes nothing. A claim needs 8 bytes more room
 *       than it takes, for that word. Bytes further on may hold what was consumed a lap ago;
 *       nobody reads them as headers: the consumer follows headers from HEAD, and every header
 *       it reaches lies at the tail of its time.</li>
 *   <li>Why blocks ahead: a producer that zeroed just the word past each record (version 2)
 *       wrote into the line a caught-up consumer was polling, once per record: on JDK 25 with
 *       8-byte messages and a consumer thread, each JVM settled at its own speed, from 11 to
 *       49 ns per offer. A consumer that zeroed what it consumed (version 3) wrote every
 *       consumed line, which the producer then had to take back from the consumer's cache a lap
 *       later: with 1 KiB messages that was half the time of an offer (111 ns against 52 ns when
 *       the consumer wrote only the headers, in one harness and JVM). Zeroing ahead in blocks
 *       writes lines the consumer is not reading, once per block.</li>
 *   <li>A head past this producer's tail is damage, never motion: nobody else moves the tail.</li>
 * </ul>
 */
final class OneToOneProducer extends RingProducer {

    /** The last HEAD this producer read; the true head is at least this. */
    private long headCache;
    /** The tail as last stored in TAIL. */
    private long storedTail;
    /** How far {@link #tail} may run ahead of {@link #storedTail}. */
    private final long tailLag;
    /** Free ring bytes from {@link #tail} up to this position read 0; never less than the tail. */
    private long zeroedTo;

    OneToOneProducer(IpcQueue queue, Ring ring, EndpointSlot slot, int slotIndex, QueueSpec spec) {
        super(queue, ring, slot, slotIndex, spec);
        this.tailLag = QueueLayout.tailLag(capacity);
        this.headCache = ring.head();
        takeOverTail(slot.previousHolder() != 0);
    }

    /**
     * A new producer continues where the last one stopped. If that one died, the ring past the
     * published tail may hold what it left: a record it published but whose tail store it did not
     * reach (delivered: the tail moves past it), a claim it never committed (made padding), and
     * bytes of records it had begun (zeroed: the word after the last published record must read
     * 0, and a half-written batch may have left headers further on).
     */
    private void takeOverTail(boolean previousDied) {
        long head = ring.head();
        // The consumer may have consumed records published past the stored tail: start at the head.
        long t = Math.max(ring.tail(), head);
        while (t - head < capacity) {
            long at = ring.offsetOf(t);
            long h = segment.getLongVolatile(at);
            if (h == 0) {
                break;
            }
            if (RecordLayout.length(h) > 0) {
                t += ring.checkPublished(h, t);
            } else {
                int bytes = ring.checkInProgress(h, t);
                // The consumer may skip the same dead claim at the same moment: CAS, one wins.
                if (segment.compareAndSetLong(at, h, header(bytes, PADDING_TYPE))) {
                    t += bytes;
                }
            }
        }
        // The word at the tail reads 0: the last producer zeroed past every claim it made visible.
        zeroedTo = t;
        if (previousDied) {
            // Free bytes may hold what the dead producer had begun (payload, batch headers) where
            // it had not zeroed them yet: zero every free byte.
            ring.zero(t, head + capacity);
            zeroedTo = head + capacity;
        }
        tail = t;
        storeTail();
    }

    @Override
    long claim(int bytes) {
        long t = tail;
        int toEnd = (int) (capacity - (t & mask));
        int needed = bytes > toEnd ? toEnd + bytes : bytes;
        // + ALIGNMENT: the header word after the claim must be free as well, so that it reads 0.
        if (t + needed + ALIGNMENT - headCache > capacity) {
            headCache = ring.head();
            if (headCache > t) {
                throw Ring.corrupt(ring.name, "head " + headCache + " is past the tail " + t);
            }
            if (t + needed + ALIGNMENT - headCache > capacity) {
                if (storedTail != t) {
                    storeTail(); // a full ring shows its true tail to other processes
                }
                return -1;
            }
            segment.putLongOrdered(HEAD_CACHE_OFFSET, headCache);
        }
        if (needed != bytes && t + toEnd + ALIGNMENT > zeroedTo) {
            // The consumer reads the word at the ring's start as soon as it passes the padding
            // below: it must read 0 until the record there is published.
            segment.putLong(ring.offsetOf(t + toEnd), 0L);
        }
        if (t + needed + ALIGNMENT > zeroedTo) {
            zeroAhead(t + needed);
        }
        if (needed != bytes) {
            // Padding to the end of the ring; the consumer skips it and reads the word at index 0
            // next, zeroed above.
            segment.putLongOrdered(ring.offsetOf(t), header(toEnd, PADDING_TYPE));
            t += toEnd;
        }
        tail = t + bytes;
        return t;
    }

    /**
     * Zeroes free bytes from the end of a claim (or from {@link #zeroedTo}, if further) to a
     * cache-line boundary at least {@link QueueLayout#ZERO_AHEAD} bytes on, but never past the
     * head's lap ({@code headCache + capacity}): at least the word at {@code claimEnd}, which the
     * claim's room check left free. Plain stores: the ordered header store that makes the claim
     * visible comes after them.
     */
    private void zeroAhead(long claimEnd) {
        long from = Math.max(zeroedTo, claimEnd);
        long to = Math.min((claimEnd + ALIGNMENT + QueueLayout.ZERO_AHEAD) & -QueueLayout.ZERO_ALIGNMENT,
                headCache + capacity);
        to = Math.max(to, claimEnd + ALIGNMENT);
        ring.zero(from, to);
        zeroedTo = to;
    }

    /** Nothing to mark: the tail is published only after the record's header. */
    @Override
    void copyClaimed(long at, int reserved) {
    }

    @Override
    void publishTail() {
        if (tail - storedTail >= tailLag) {
            storeTail();
        }
    }

    /** The exact tail goes to TAIL at close, so a clean close leaves nothing to follow. */
    @Override
    void closing() {
        storeTail();
    }

    private void storeTail() {
        segment.putLongOrdered(TAIL_OFFSET, tail);
        storedTail = tail;
    }
}
