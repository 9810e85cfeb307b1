package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

import static dev.ferrite.queue.QueueLayout.HEAD_CACHE_OFFSET;
import static dev.ferrite.queue.QueueLayout.TAIL_OFFSET;
import static dev.ferrite.queue.RecordLayout.HEADER_BYTES;
import static dev.ferrite.queue.RecordLayout.PADDING_TYPE;
import static dev.ferrite.queue.RecordLayout.aligned;
import static dev.ferrite.queue.RecordLayout.header;

/**
 * The producer of both queue kinds; they share the record format and differ only in how space
 * is claimed.
 *
 * <p>One producer ({@code many == false}): the tail is this object's own; a claim is a local
 * addition and the tail is published with an ordered store after the record's header. Invariant
 * the consumer relies on: the published tail never passes a record whose header is still 0. The
 * consumer does not zero what it consumed; instead this producer zeroes the header word just past
 * each claim before it publishes the claim, so the word the consumer reads next is 0 until a
 * record is published there. That word must be free too: a claim needs 8 bytes more room.
 *
 * <p>Many producers: space is claimed by CAS on the shared tail, so the tail runs ahead of
 * published records; each record is marked in progress (negative length and the writer's slot)
 * right after its claim, so the consumer can tell a slow writer from a dead one.
 */
final class RingProducer implements Producer {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    /** Payloads up to this many bytes are copied with 8-byte stores, not a bulk copy call. */
    private static final int SMALL_COPY = 64;

    private final IpcQueue queue;
    private final Ring ring;
    private final Segment segment;
    private final EndpointSlot slot;
    private final boolean many;
    private final long capacity;
    private final long mask;
    private final int maxMessage;
    private final int owner;
    private final IdleStrategy idle;
    private final long livenessMillis;
    private final Claim claim;
    private final BatchClaim batchClaim;
    private long tail;
    private long headCache;
    private boolean closed;

    RingProducer(IpcQueue queue, Ring ring, EndpointSlot slot, int slotIndex, QueueSpec spec) {
        this.queue = queue;
        this.ring = ring;
        this.segment = ring.segment;
        this.slot = slot;
        this.many = ring.manyProducers;
        this.capacity = ring.capacity;
        this.mask = ring.mask;
        this.maxMessage = ring.maxMessage;
        this.owner = RecordLayout.inProgressOwner(slotIndex, slot.generation);
        this.idle = spec.newIdleStrategy();
        this.livenessMillis = spec.livenessTimeout().toMillis();
        this.claim = new Claim(this, segment);
        this.batchClaim = new BatchClaim(this, segment);
        this.headCache = ring.head();
        this.tail = ring.tail();
        if (!many) {
            takeOverTail(slot.previousHolder() != 0);
        }
    }

    /**
     * A new single producer continues where the last one stopped. If that one died, the ring past
     * the published tail may hold what it left: a record it published but whose tail store it did
     * not reach (delivered: the tail moves past it), a claim it never committed (made padding),
     * and bytes of records it had begun (zeroed: the word after the last published record must
     * read 0, and a half-written batch may have left headers further on).
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
            // a clean close the word at t is already 0: every claim zeroed the word after it.
            ring.zero(t, head + capacity);
        }
        tail = t;
        segment.putLongOrdered(TAIL_OFFSET, t);
    }

    // ---- space --------------------------------------------------------------------------------

    /**
     * Claims {@code bytes} contiguous ring bytes, first turning the ring's end into a padding
     * record if they would wrap.
     *
     * @return queue position of the claimed bytes, or -1 if the ring has no room
     */
    private long claim(int bytes) {
        return many ? claimShared(bytes) : claimOwn(bytes);
    }

    private long claimOwn(int bytes) {
        long t = tail;
        int toEnd = (int) (capacity - (t & mask));
        int needed = bytes > toEnd ? toEnd + bytes : bytes;
        // + ALIGNMENT: the header word after the claim is zeroed now, so it must be free as well.
        if (t + needed + RecordLayout.ALIGNMENT - headCache > capacity) {
            headCache = ring.head();
            if (headCache > t) {
                // This producer's own tail is the true tail: a head past it is damage, not motion.
                throw Ring.corrupt(ring.name, "head " + headCache + " is past the tail " + t);
            }
            if (t + needed + RecordLayout.ALIGNMENT - headCache > capacity) {
                return -1;
            }
            segment.putLongOrdered(HEAD_CACHE_OFFSET, headCache);
        }
        if (needed != bytes) {
            // Padding to the end of the ring; the consumer skips it and reads the word at index 0
            // next, which must read 0 until the record there is published: zero it first.
            segment.putLong(ring.offsetOf(t + toEnd), 0L);
            segment.putLongOrdered(ring.offsetOf(t), header(toEnd, PADDING_TYPE));
            t += toEnd;
        }
        tail = t + bytes;
        // The next header word may hold a record of the previous lap; zero it before the ordered
        // store that publishes this claim makes the consumer read it.
        segment.putLong(ring.offsetOf(tail), 0L);
        return t;
    }

    private long claimShared(int bytes) {
        long t;
        int toEnd;
        int needed;
        while (true) {
            t = segment.getLongVolatile(TAIL_OFFSET);
            toEnd = (int) (capacity - (t & mask));
            needed = bytes > toEnd ? toEnd + bytes : bytes;
            // HEAD_CACHE is shared memory: a value past the tail is no head (damage, or a cache
            // written after this producer read the tail); decide by HEAD itself then.
            long head = segment.getLongVolatile(HEAD_CACHE_OFFSET);
            if (head > t || t + needed - head > capacity) {
                head = ring.head();
                if (head > t) {
                    if (segment.getLongVolatile(TAIL_OFFSET) == t) {
                        throw Ring.corrupt(ring.name, "head " + head + " is past the tail " + t);
                    }
                    continue;
                }
                if (t + needed - head > capacity) {
                    return -1;
                }
                segment.putLongOrdered(HEAD_CACHE_OFFSET, head);
            }
            if (segment.compareAndSetLong(TAIL_OFFSET, t, t + needed)) {
                break;
            }
        }
        if (needed != bytes) {
            segment.putLongOrdered(ring.offsetOf(t), header(toEnd, PADDING_TYPE));
            t += toEnd;
        }
        tail = t + bytes;
        return t;
    }

    /** Marks a claimed record in progress, with this producer's slot, and publishes the tail. */
    private void markInProgress(long at, int reserved) {
        segment.putLongOrdered(at, header(-reserved, owner));
        publishTail();
    }

    /** One producer: make the tail visible. It never passes a record whose header is 0. */
    private void publishTail() {
        if (!many) {
            segment.putLongOrdered(TAIL_OFFSET, tail);
        }
    }

    /**
     * Claims room for one copied record; with many producers also marks it in progress.
     *
     * @return the record's segment offset, or -1 if the ring has no room
     */
    private long beginRecord(int recordLength) {
        long position = claim(aligned(recordLength));
        if (position < 0) {
            return -1;
        }
        long at = ring.offsetOf(position);
        if (many) {
            markInProgress(at, recordLength);
        }
        return at;
    }

    /** Publishes a copied record: its header (ordered, after the payload), then the tail. */
    private void endRecord(long at, int recordLength, int type) {
        segment.putLongOrdered(at, header(recordLength, type));
        publishTail();
    }

    /** Writes a record's final header (an ordered store: the payload before it is visible first). */
    void publish(long at, long header) {
        segment.putLongOrdered(at, header);
    }

    // ---- checks -------------------------------------------------------------------------------

    private void checkMessage(int length, int type) {
        if (closed) {
            throw new FerriteException("producer of " + ring + " is closed");
        }
        if (length < 1 || length > maxMessage) {
            throw new FerriteException("message length " + length + " must be from 1 to the queue's maximum "
                    + maxMessage + " bytes");
        }
        if (type < 0) {
            throw new FerriteException("message type " + type + " must be >= 0");
        }
    }

    private void checkNoOpenClaim() {
        if (claim.open || batchClaim.open) {
            throw new FerriteException("a claim of this producer is still open: commit or abort it first");
        }
    }

    private static void checkArrayRange(int arrayLength, int offset, int length) {
        if (offset < 0 || length < 0 || offset > arrayLength - length) {
            throw new FerriteException("array range [" + offset + ", " + offset + " + " + length
                    + ") is outside an array of length " + arrayLength);
        }
    }

    // ---- offers -------------------------------------------------------------------------------

    @Override
    public boolean offer(byte[] message) {
        return offer(message, 0, message.length, 0);
    }

    @Override
    public boolean offer(byte[] src, int offset, int length, int type) {
        checkMessage(length, type);
        checkArrayRange(src.length, offset, length);
        checkNoOpenClaim();
        long at = beginRecord(HEADER_BYTES + length);
        if (at < 0) {
            return false;
        }
        copyPayload(src, offset, at + HEADER_BYTES, length);
        endRecord(at, HEADER_BYTES + length, type);
        return true;
    }

    private void copyPayload(byte[] src, int offset, long to, int length) {
        if (length > SMALL_COPY) {
            segment.copyFrom(src, offset, to, length);
            return;
        }
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            segment.putLong(to + i, (long) LONGS.get(src, offset + i));
        }
        for (; i < length; i++) {
            segment.putByte(to + i, src[offset + i]);
        }
    }

    @Override
    public boolean offer(ByteBuffer message, int type) {
        int length = message.remaining();
        checkMessage(length, type);
        checkNoOpenClaim();
        long at = beginRecord(HEADER_BYTES + length);
        if (at < 0) {
            return false;
        }
        int position = message.position();
        segment.copyFrom(message, at + HEADER_BYTES); // advances the position: put it back
        message.position(position);
        endRecord(at, HEADER_BYTES + length, type);
        return true;
    }

    @Override
    public boolean offer(Segment src, long offset, int length, int type) {
        checkMessage(length, type);
        if (offset < 0 || offset > src.size() - length) {
            throw new FerriteException("segment range [" + offset + ", " + offset + " + " + length
                    + ") is outside a segment of " + src.size() + " bytes");
        }
        checkNoOpenClaim();
        long at = beginRecord(HEADER_BYTES + length);
        if (at < 0) {
            return false;
        }
        src.copyTo(offset, segment, at + HEADER_BYTES, length);
        endRecord(at, HEADER_BYTES + length, type);
        return true;
    }

    @Override
    public boolean offer(byte[] src, int offset, int length, int type, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        idle.reset();
        while (!offer(src, offset, length, type)) {
            if (System.nanoTime() - deadline >= 0 || Thread.currentThread().isInterrupted()) {
                return false;
            }
            idle.idle();
        }
        return true;
    }

    @Override
    public boolean offerBatch(byte[][] messages, int from, int count, int type) {
        if (count < 1 || from < 0 || from > messages.length - count) {
            throw new FerriteException("batch [" + from + ", " + from + " + " + count
                    + ") must hold at least one message and lie inside an array of " + messages.length);
        }
        long total = 0;
        for (int i = from; i < from + count; i++) {
            checkMessage(messages[i].length, type);
            total += aligned(HEADER_BYTES + messages[i].length);
        }
        checkBatchSize(total, count);
        checkNoOpenClaim();
        long position = claim((int) total);
        if (position < 0) {
            return false;
        }
        long first = ring.offsetOf(position);
        if (many) {
            markInProgress(first, (int) total);
        }
        long at = first + aligned(HEADER_BYTES + messages[from].length);
        for (int i = from + 1; i < from + count; i++) {
            byte[] m = messages[i];
            copyPayload(m, 0, at + HEADER_BYTES, m.length);
            segment.putLong(at, header(HEADER_BYTES + m.length, type));
            at += aligned(HEADER_BYTES + m.length);
        }
        copyPayload(messages[from], 0, first + HEADER_BYTES, messages[from].length);
        // One ordered store publishes the batch: the consumer reads the later headers only after
        // this one, and the plain stores before it are visible first.
        segment.putLongOrdered(first, header(HEADER_BYTES + messages[from].length, type));
        publishTail();
        return true;
    }

    private void checkBatchSize(long total, int count) {
        if (total > ring.maxClaim) {
            throw new FerriteException("batch of " + count + " messages needs " + total
                    + " ring bytes; a batch may take at most half the ring, " + ring.maxClaim + " bytes");
        }
    }

    // ---- claims -------------------------------------------------------------------------------

    @Override
    public Claim tryClaim(int length, int type) {
        checkMessage(length, type);
        checkNoOpenClaim();
        int recordLength = HEADER_BYTES + length;
        long position = claim(aligned(recordLength));
        if (position < 0) {
            return null;
        }
        long at = ring.offsetOf(position);
        // Marked even with one producer: user code runs before the commit, and if this process
        // dies meanwhile the consumer must be able to skip the record.
        markInProgress(at, recordLength);
        claim.headerOffset = at;
        claim.recordLength = recordLength;
        claim.type = type;
        claim.open = true;
        return claim;
    }

    @Override
    public BatchClaim tryClaimBatch(int count, int length, int type) {
        checkMessage(length, type);
        if (count < 1) {
            throw new FerriteException("batch count " + count + " must be at least 1");
        }
        int stride = aligned(HEADER_BYTES + length);
        long total = (long) count * stride;
        checkBatchSize(total, count);
        checkNoOpenClaim();
        long position = claim((int) total);
        if (position < 0) {
            return null;
        }
        long at = ring.offsetOf(position);
        markInProgress(at, (int) total);
        batchClaim.firstOffset = at;
        batchClaim.count = count;
        batchClaim.recordLength = HEADER_BYTES + length;
        batchClaim.stride = stride;
        batchClaim.type = type;
        batchClaim.open = true;
        return batchClaim;
    }

    // ---- state --------------------------------------------------------------------------------

    @Override
    public boolean isPeerAlive() {
        return EndpointSlot.isAlive(ring, QueueLayout.CONSUMER_SLOT_OFFSET, livenessMillis);
    }

    @Override
    public long position() {
        return tail;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (claim.open) {
            claim.abort();
        }
        if (batchClaim.open) {
            batchClaim.abort();
        }
        closed = true;
        Heartbeats.unregister(slot);
        slot.release();
        queue.endpointClosed(this);
    }

    @Override
    public String toString() {
        return "producer of " + ring + " at position " + tail;
    }
}
