package dev.ferrite.queue;

import dev.ferrite.CorruptFileException;

import static dev.ferrite.queue.QueueLayout.HEAD_CACHE_OFFSET;
import static dev.ferrite.queue.QueueLayout.RING_OFFSET;
import static dev.ferrite.queue.QueueLayout.TAIL_OFFSET;
import static dev.ferrite.queue.RecordLayout.ALIGNMENT;
import static dev.ferrite.queue.RecordLayout.HEADER_BYTES;
import static dev.ferrite.queue.RecordLayout.PADDING_TYPE;
import static dev.ferrite.queue.RecordLayout.aligned;
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
 *       follows headers), and one ordered store per record was up to a quarter of an offer.
 *       Whoever needs the true tail follows headers from {@code max(TAIL, HEAD)}, as a producer
 *       taking over does.</li>
 *   <li>Room is measured from FREED, not HEAD: the consumer may leave the records of the cache
 *       line it stopped in unzeroed until its next poll (up to {@link QueueLayout#CONSUMER_LAG}
 *       bytes before its head), and this producer never claims them. When a claim is refused,
 *       TAIL is stored exact, so a consumer that has caught up sees TAIL at its head and frees
 *       those bytes: a claim that fits an empty ring is never refused for long.</li>
 *   <li>The word past every visible claim reads 0 until a record is published there, so a
 *       claim needs 8 bytes more room than it takes. The consumer zeroes each record it
 *       consumes, but of a {@link QueueLayout#LONG_RECORD long} one only the first
 *       {@link QueueLayout#CONSUMER_ZEROES} bytes, and leaves the rest of its payload in the
 *       ring. This producer knows where it left such payload a lap before ({@link #oldStarts},
 *       {@link #oldEnds}); before a claim becomes visible, if the word past it (or, for a claim
 *       that wraps, the word at the ring's start) lies there, it loads the word and stores 0
 *       unless it reads 0. Elsewhere it touches nothing past its claim, so it never writes into
 *       the line a caught-up consumer is polling.</li>
 *   <li>A head past this producer's tail is damage, never motion: nobody else moves the tail.</li>
 * </ul>
 */
final class OneToOneProducer extends RingProducer {

    /** The most payload ranges a producer remembers (two longs each). */
    private static final int MAX_OLD_RANGES = 32768;

    /**
     * The last FREED this producer read; the true freed position is at least this. This producer's
     * room ends a capacity past it (less the word past a claim).
     */
    private long freedCache;
    /** The tail as last stored in TAIL. */
    private long storedTail;
    /** How far {@link #tail} may run ahead of {@link #storedTail}. */
    private final long tailLag;
    /**
     * Where this producer left payload the consumer does not zero, as position ranges
     * {@code [oldStarts[i], oldEnds[i])} in claim order, a ring of {@link #oldCount} ranges from
     * {@link #oldFirst}: claims and padding longer than {@link QueueLayout#LONG_RECORD}, past
     * their first {@link QueueLayout#CONSUMER_ZEROES} bytes (a batch of short records counts as
     * one long claim: more is remembered than the consumer leaves, never less). Ranges a lap
     * behind the tail are dropped as the tail passes them; when the ring of ranges is full, the
     * newest one is stretched instead.
     */
    private final long[] oldStarts;
    private final long[] oldEnds;
    private int oldFirst;
    private int oldCount;
    /** Below this position every word past a claim is cleared: what lies there is not known. */
    private long clearAllBefore;

    OneToOneProducer(IpcQueue queue, Ring ring, EndpointSlot slot, int slotIndex, QueueSpec spec) {
        super(queue, ring, slot, slotIndex, spec);
        this.tailLag = QueueLayout.tailLag(capacity);
        int ranges = (int) Math.min(MAX_OLD_RANGES, Long.highestOneBit(capacity / (QueueLayout.LONG_RECORD + 8)));
        this.oldStarts = new long[ranges];
        this.oldEnds = new long[ranges];
        this.freedCache = ring.freed();
        takeOverTail(slot.previousHolder() != 0);
        // A ring never written holds zeros; otherwise an earlier producer left payload unknown to
        // this one, up to a lap on.
        this.clearAllBefore = tail == 0 ? 0 : tail + capacity;
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
            // Free bytes may hold what the dead producer had begun (payload, batch headers): zero
            // them. After a clean close the word at the tail reads 0, and old payload elsewhere is
            // cleared where a claim ends for a lap (clearAllBefore).
            ring.zero(t, head + capacity);
        }
        tail = t;
        storeTail();
    }

    @Override
    public boolean offer(byte[] src, int offset, int length, int type) {
        checkOffer(src, offset, length, type);
        int recordLength = HEADER_BYTES + length;
        long position = claim(aligned(recordLength));
        if (position < 0) {
            return false;
        }
        long at = RING_OFFSET + (position & mask);
        copyPayload(src, offset, at + HEADER_BYTES, length);
        segment.putLongOrdered(at, header(recordLength, type)); // the payload is visible first
        publishTail();
        return true;
    }

    @Override
    long claim(int bytes) {
        long t = tail;
        int toEnd = (int) (capacity - (t & mask));
        int needed = bytes > toEnd ? toEnd + bytes : bytes;
        // + ALIGNMENT: the header word after the claim must be free as well, so that it reads 0.
        if (t + needed + ALIGNMENT - freedCache > capacity && !roomAfterReadingFreed(t, needed)) {
            return -1;
        }
        if (oldCount != 0 || t < clearAllBefore || needed > QueueLayout.LONG_RECORD) {
            leftPayload(t, toEnd, bytes, needed != bytes);
        }
        if (needed != bytes) {
            // Padding to the end of the ring; the consumer skips it and reads the word at index 0
            // next (cleared above if need be).
            segment.putLongOrdered(ring.offsetOf(t), header(toEnd, PADDING_TYPE));
            t += toEnd;
        }
        tail = t + bytes;
        return t;
    }

    /**
     * The cached freed position leaves no room for a claim of {@code needed} bytes at {@code t}:
     * reads FREED again. Out of line, with {@link #leftPayload} and {@link #storeTail}
     * ({@link JitHints#NOT_INLINED}): inlined, these rare paths made the compiled offer's shape
     * depend on when each was first taken, and one JVM in three ran it 15-40% slower for its life.
     *
     * @return whether the claim fits now; if not, the true tail is in TAIL
     */
    private boolean roomAfterReadingFreed(long t, int needed) {
        freedCache = ring.freed();
        if (freedCache > t) {
            throw Ring.corrupt(ring.name, "freed position " + freedCache + " is past the tail " + t);
        }
        if (t + needed + ALIGNMENT - freedCache > capacity) {
            if (storedTail != t) {
                // A full ring shows its true tail to other processes, and to the consumer,
                // which frees what it left before its head once TAIL reaches the head.
                storeTail();
            }
            return false;
        }
        segment.putLongOrdered(HEAD_CACHE_OFFSET, freedCache);
        return true;
    }

    /**
     * For a claim at {@code t}: clears the word past it (and the ring's first word if it wraps)
     * where payload may be left, and remembers what of the claim (and of its padding) the consumer
     * will leave. Out of line ({@link JitHints}): a stream of short records never needs it after a lap.
     *
     * @param toEnd bytes from {@code t} to the ring's end
     * @param bytes the claim's bytes
     * @param wraps whether the claim is padding of {@code toEnd} bytes, then {@code bytes} at index 0
     */
    private void leftPayload(long t, int toEnd, int bytes, boolean wraps) {
        long recordAt = wraps ? t + toEnd : t;
        if (wraps) {
            // The consumer goes to the ring's start as soon as it passes the padding.
            clearIfLeft(recordAt);
        }
        clearIfLeft(recordAt + bytes);
        if (wraps) {
            remember(t, toEnd);
        }
        remember(recordAt, bytes);
    }

    /**
     * Makes the word at a free position read 0 if this producer may have left payload there a lap
     * before (or does not know): a load, and a plain store of 0 unless it reads 0. The ordered
     * header store that makes the claim visible comes after it.
     */
    private void clearIfLeft(long position) {
        if (position < clearAllBefore || leftPayloadAt(position - capacity)) {
            long at = ring.offsetOf(position);
            if (segment.getLong(at) != 0L) {
                segment.putLong(at, 0L);
            }
        }
    }

    /** @return whether a remembered range holds a position; drops the ranges that end at or before it */
    private boolean leftPayloadAt(long position) {
        int mask = oldStarts.length - 1;
        while (oldCount > 0 && oldEnds[oldFirst] <= position) {
            oldFirst = (oldFirst + 1) & mask;
            oldCount--;
        }
        return oldCount > 0 && oldStarts[oldFirst] <= position;
    }

    /** Remembers the part of a claimed span the consumer may not zero: a long one's past its first bytes. */
    private void remember(long position, int bytes) {
        if (bytes <= QueueLayout.LONG_RECORD) {
            return;
        }
        long start = position + QueueLayout.CONSUMER_ZEROES;
        long end = position + bytes;
        int mask = oldStarts.length - 1;
        if (oldCount > 0) {
            int last = (oldFirst + oldCount - 1) & mask;
            if (start <= oldEnds[last] || oldCount == oldStarts.length) {
                oldEnds[last] = end; // adjoining, or no room: stretch the newest range over the gap
                return;
            }
        }
        int at = (oldFirst + oldCount) & mask;
        oldStarts[at] = start;
        oldEnds[at] = end;
        oldCount++;
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

    /**
     * At close TAIL goes as far as the headers show, which is the exact tail unless a close on
     * another thread meets an offer whose header is not written yet: TAIL never passes a header
     * that reads 0, or a consumer would wait there for good if that offer never ends.
     */
    @Override
    void closing() {
        long t = Math.max(storedTail, ring.head());
        try {
            while (t < tail) {
                long h = segment.getLongVolatile(ring.offsetOf(t));
                if (h == 0) {
                    break;
                }
                t += RecordLayout.length(h) > 0 ? ring.checkPublished(h, t) : ring.checkInProgress(h, t);
            }
        } catch (CorruptFileException e) {
            // damage past the stored tail: the next producer's take-over meets it and says so
        }
        if (t > storedTail) {
            segment.putLongOrdered(TAIL_OFFSET, Math.min(t, tail));
        }
    }

    /** Stores the tail in TAIL. Out of line ({@link JitHints}): once per {@link #tailLag} bytes. */
    private void storeTail() {
        segment.putLongOrdered(TAIL_OFFSET, tail);
        storedTail = tail;
    }
}
