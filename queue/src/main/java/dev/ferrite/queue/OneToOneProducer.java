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
 *   <li>Free ring bytes read 0: the consumer zeroes what it consumed before it frees it. So the
 *       header word just past a claim reads 0 until a record is published there, and this
 *       producer writes nothing but its records. That word must be free too: a claim needs 8
 *       bytes more room than it takes.</li>
 *   <li>Why the consumer zeroes and not the producer: a producer that zeroed the word past each
 *       record wrote into the line a caught-up consumer was polling, once per record. Measured on
 *       JDK 25 with 8-byte messages and a consumer thread, each JVM settled at its own speed,
 *       from 11 to 49 ns per offer (the same for fresh queues within one JVM, so decided once per
 *       JVM, most likely by its compiled code); with the consumer zeroing, eight JVMs ran at
 *       12.0-13.9 ns.</li>
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
        if (previousDied) {
            // Free bytes may hold what the dead producer had begun (payload, batch headers). After
            // a clean close they are zero already: the consumer zeroed them as it consumed.
            ring.zero(t, head + capacity);
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
        if (needed != bytes) {
            // Padding to the end of the ring; the consumer skips it and reads the word at index 0
            // next, free and so 0 until the record there is published.
            segment.putLongOrdered(ring.offsetOf(t), header(toEnd, PADDING_TYPE));
            t += toEnd;
        }
        tail = t + bytes;
        return t;
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
