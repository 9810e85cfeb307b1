package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

import static dev.ferrite.queue.RecordLayout.HEADER_BYTES;
import static dev.ferrite.queue.RecordLayout.aligned;
import static dev.ferrite.queue.RecordLayout.header;

/**
 * What both producer kinds share: the record format, the checks, the claims and the less frequent
 * offers. How ring space is claimed and when the tail becomes visible differ per protocol and live
 * in one subclass each: {@link OneToOneProducer} (the tail is the producer's own) and
 * {@link ManyToOneProducer} (the tail is claimed by CAS). Each subclass also writes the most used
 * offer, {@code offer(byte[], int, int, int)}, as one linear method: checks, claim, copy, header,
 * with no call back into this class but the copy. Used by one thread at a time.
 */
abstract sealed class RingProducer extends LinePadding implements Producer permits OneToOneProducer, ManyToOneProducer {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    /**
     * Payloads up to this many bytes are copied with 8-byte stores, longer ones with one bulk copy:
     * measured fastest that way (JDK 25, consumer thread: 64-byte messages 23 ns per offer in bulk
     * against 25 ns in words; 8-byte ones 20 ns in a word against 26 ns in bulk).
     */
    private static final int SMALL_COPY = 16;

    private final IpcQueue queue;
    final Ring ring;
    final Segment segment;
    final EndpointSlot slot;
    final long capacity;
    final long mask;
    private final int maxMessage;
    private final int owner;
    private final IdleStrategy idle;
    private final long livenessMillis;
    private final Claim claim;
    private final BatchClaim batchClaim;
    /** Position just past this producer's last claim. */
    long tail;
    private boolean closed;

    RingProducer(IpcQueue queue, Ring ring, EndpointSlot slot, int slotIndex, QueueSpec spec) {
        this.queue = queue;
        this.ring = ring;
        this.segment = ring.segment;
        this.slot = slot;
        this.capacity = ring.capacity;
        this.mask = ring.mask;
        this.maxMessage = ring.maxMessage;
        this.owner = RecordLayout.inProgressOwner(slotIndex, slot.generation);
        this.idle = spec.newIdleStrategy();
        this.livenessMillis = spec.livenessTimeout().toMillis();
        this.claim = new Claim(this, segment);
        this.batchClaim = new BatchClaim(this, segment);
        this.tail = ring.tail();
    }

    /** @return a producer of the ring's kind, holding {@code slot} */
    static RingProducer of(IpcQueue queue, Ring ring, EndpointSlot slot, int slotIndex, QueueSpec spec) {
        return ring.manyProducers ? new ManyToOneProducer(queue, ring, slot, slotIndex, spec)
                : new OneToOneProducer(queue, ring, slot, slotIndex, spec);
    }

    // ---- the protocol -------------------------------------------------------------------------

    /**
     * Claims {@code bytes} contiguous ring bytes, first turning the ring's end into a padding
     * record if they would wrap, and sets {@link #tail} past them.
     *
     * @param bytes a multiple of 8, at most half the ring
     * @return queue position of the claimed bytes, or -1 if the ring has no room
     */
    abstract long claim(int bytes);

    /**
     * Called after a claim whose bytes are copied in at once ({@code offer}, {@code offerBatch}),
     * before the copy: the protocol marks it in progress if the consumer can see it before its
     * header is written.
     */
    abstract void copyClaimed(long at, int reserved);

    /**
     * Called after a record or claim became visible: stores the tail in TAIL if this protocol
     * publishes it separately and its stored tail is due (see {@link OneToOneProducer}).
     */
    abstract void publishTail();

    /**
     * Marks a claimed record in progress, with this producer's slot, then lets the protocol
     * publish the tail.
     */
    final void markInProgress(long at, int reserved) {
        segment.putLongOrdered(at, inProgressHeader(reserved));
        publishTail();
    }

    /** @return the header that marks {@code reserved} claimed bytes in progress by this producer */
    final long inProgressHeader(int reserved) {
        return header(-reserved, owner);
    }

    /**
     * Ends an open claim: turns its in-progress header into {@code header} by CAS, so that of this
     * producer's thread, a close on another thread and a consumer skipping the claim as abandoned,
     * exactly one decides what the record becomes.
     *
     * @return false if the header no longer marks the claim in progress (someone else ended it)
     */
    final boolean endClaim(long at, int reserved, long header) {
        return segment.compareAndSetLong(at, inProgressHeader(reserved), header);
    }

    /**
     * Claims room for one copied record.
     *
     * @return the record's segment offset, or -1 if the ring has no room
     */
    private long beginRecord(int recordLength) {
        long position = claim(aligned(recordLength));
        if (position < 0) {
            return -1;
        }
        long at = ring.offsetOf(position);
        copyClaimed(at, recordLength);
        return at;
    }

    /**
     * Publishes a copied record: its header (ordered, after the payload), then lets the protocol
     * publish the tail. Named with {@link #copyPayload} in the compiler directive of
     * {@link JitHints} (JitHintsTest keeps the names in step).
     */
    private void endRecord(long at, int recordLength, int type) {
        segment.putLongOrdered(at, header(recordLength, type));
        publishTail();
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

    /** Every check of {@code offer(byte[], int, int, int)}, before anything is claimed. */
    final void checkOffer(byte[] src, int offset, int length, int type) {
        checkMessage(length, type);
        checkArrayRange(src.length, offset, length);
        checkNoOpenClaim();
    }

    // ---- offers -------------------------------------------------------------------------------

    @Override
    public boolean offer(byte[] message) {
        return offer(message, 0, message.length, 0);
    }

    /**
     * Copies a payload into claimed ring bytes: 8-byte words up to {@link #SMALL_COPY}, one bulk
     * copy beyond. Named with {@link #endRecord} in the opt-in compiler directive of
     * {@link JitHints}.
     */
    final void copyPayload(byte[] src, int offset, long to, int length) {
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
        copyClaimed(first, (int) total);
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

    /** @return whether {@link #close()} has begun (a close on another thread: once this thread sees it) */
    final boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Another thread may be committing these at this instant: each claim ends once, by CAS.
        claim.abandon();
        batchClaim.abandon();
        closing();
        slot.release();
        queue.endpointClosed(this);
    }

    /** Called once by {@link #close()} before the slot is given back. */
    void closing() {
    }

    @Override
    public String toString() {
        return "producer of " + ring + " at position " + tail;
    }
}
