package dev.ferrite.queue;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.ferrite.queue.QueueLayout.FREED_OFFSET;
import static dev.ferrite.queue.QueueLayout.HEAD_OFFSET;
import static dev.ferrite.queue.QueueLayout.HEAD_PENDING_OFFSET;
import static dev.ferrite.queue.RecordLayout.PADDING_TYPE;
import static dev.ferrite.queue.RecordLayout.header;

/**
 * What both consumer kinds share: taking over from an earlier consumer, freeing consumed bytes,
 * waiting on and skipping a dead writer's claim, and the consumer's state. How a poll walks the
 * ring and what it zeroes differ per protocol and live in one subclass each:
 * {@link OneToOneConsumer} and {@link ManyToOneConsumer}. Used by one thread at a time.
 *
 * <p>Invariants: between polls FREED ≤ HEAD ≤ HEAD_PENDING, all 8-byte aligned, and none of them
 * moves backwards; the bytes from FREED to HEAD are consumed but not yet zeroed (one-producer queues
 * only: see {@link OneToOneConsumer}).
 */
abstract sealed class RingConsumer extends LinePadding implements Consumer permits OneToOneConsumer, ManyToOneConsumer {

    private static final Logger LOG = LoggerFactory.getLogger(Consumer.class);
    private static final int REPORTS_KEPT = 64;
    /** How often a blocked consumer re-checks, after the timeout, whether the writer lives. */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final IpcQueue queue;
    final Ring ring;
    final Segment segment;
    private final EndpointSlot slot;
    final long capacity;
    private final long abandonNanos;
    private final long livenessMillis;
    private final IdleStrategy idle;
    private final ArrayDeque<AbandonedRecord> reports = new ArrayDeque<>();
    /** The head position: every record before it was delivered. */
    long head;
    /**
     * The freed position as this consumer last stored it: consumed bytes from here to the head
     * are not zeroed yet.
     */
    long freed;
    private long stallPosition = -1;
    private long stallSince;
    private long nextCheck;
    private long abandonedCount;
    private boolean closed;

    RingConsumer(IpcQueue queue, Ring ring, EndpointSlot slot, QueueSpec spec) {
        this.queue = queue;
        this.ring = ring;
        this.segment = ring.segment;
        this.slot = slot;
        this.capacity = ring.capacity;
        this.abandonNanos = spec.abandonTimeout().toNanos();
        this.livenessMillis = spec.livenessTimeout().toMillis();
        this.idle = spec.newIdleStrategy();
        this.head = finishPredecessor();
        this.freed = head;
    }

    /** @return a consumer of the ring's kind, holding {@code slot} */
    static RingConsumer of(IpcQueue queue, Ring ring, EndpointSlot slot, QueueSpec spec) {
        return ring.manyProducers ? new ManyToOneConsumer(queue, ring, slot, spec)
                : new OneToOneConsumer(queue, ring, slot, spec);
    }

    /**
     * Zeroes what an earlier consumer left: the bytes from the freed position to the head, which it
     * had consumed but not zeroed yet, and, if it died after it began zeroing consumed records but
     * before it published the head, the bytes up to the pending head (those records were
     * delivered, their bytes partly zeroed). Then the head and the freed position both move to
     * the end of that.
     *
     * @throws CorruptFileException if the pending head or the freed position cannot be one a
     *         consumer left: nothing is zeroed then
     */
    private long finishPredecessor() {
        long h = ring.head();
        long pending = segment.getLongVolatile(HEAD_PENDING_OFFSET);
        long f = segment.getLongVolatile(FREED_OFFSET);
        long end = h;
        if (pending > h) {
            if (pending - h > capacity || ((pending - h) & (RecordLayout.ALIGNMENT - 1)) != 0) {
                throw Ring.corrupt(ring.name, "pending head " + pending + " must be aligned and at most the capacity "
                        + capacity + " past the head " + h);
            }
            end = pending;
        }
        // A consumer stores FREED before HEAD, so FREED may pass HEAD, up to the pending head,
        // only if it died in between; and it never lags HEAD by more than its lag.
        long lag = ring.manyProducers ? 0 : QueueLayout.CONSUMER_LAG;
        if (f < 0 || f < h - lag || f > end || (f & (RecordLayout.ALIGNMENT - 1)) != 0) {
            throw Ring.corrupt(ring.name, "freed position " + f + " must be aligned and from the head " + h
                    + (lag == 0 ? "" : " less " + lag) + " to the pending head " + end);
        }
        long from = Math.min(f, h);
        if (from != end) {
            ring.zero(from, end);
            segment.putLongOrdered(FREED_OFFSET, end);
            if (end != h) {
                segment.putLongOrdered(HEAD_OFFSET, end);
            }
        }
        return end;
    }

    /** The checks every poll makes first. */
    final void checkPoll(int limit) {
        if (closed) {
            throw new FerriteException("consumer of " + ring + " is closed");
        }
        if (limit < 1) {
            throw new FerriteException("poll limit " + limit + " must be at least 1");
        }
    }

    /**
     * Stores the pending head before a poll's zeroing begins, so that a successor can finish the
     * release if this process dies in between.
     */
    final void beginRelease(long end) {
        segment.putLongOrdered(HEAD_PENDING_OFFSET, end);
        VarHandle.storeStoreFence(); // the pending head lands before any zero
    }

    /**
     * Ends a release: FREED, then HEAD (ordered stores; a successor that finds FREED more than the
     * lag behind HEAD takes it for damage).
     */
    final void endRelease(long end, long freeTo) {
        segment.putLongOrdered(FREED_OFFSET, freeTo);
        segment.putLongOrdered(HEAD_OFFSET, end);
        head = end;
        freed = freeTo;
        if (stallPosition != -1) {
            stallPosition = -1;
        }
    }

    /**
     * Zeroes the consumed bytes left before the head and moves the freed position to the head. A
     * successor finds FREED behind HEAD if this process dies in between, and zeroes them itself.
     */
    final void freeRest() {
        ring.zero(freed, head);
        segment.putLongOrdered(FREED_OFFSET, head);
        freed = head;
    }

    /**
     * The record at {@code position} blocks the head: starts or continues waiting on it.
     *
     * @return whether it has blocked for the abandon timeout and its writer is due a check (every
     *         {@link #RECHECK_NANOS} after that)
     */
    final boolean blockedLongEnough(long position) {
        long now = System.nanoTime();
        if (stallPosition != position) {
            stallPosition = position;
            stallSince = now;
            nextCheck = now + abandonNanos;
            return false;
        }
        if (now - nextCheck < 0) {
            return false;
        }
        nextCheck = now + RECHECK_NANOS;
        return true;
    }

    /**
     * An in-progress record blocks the head: turns it into padding if its writer can no longer
     * finish it.
     *
     * @return true if the record was turned into padding (the caller reads it again)
     */
    final boolean skipInProgress(long h, long position, long at) {
        int reserved = ring.checkInProgress(h, position);
        int owner = RecordLayout.type(h);
        int writerSlot = owner & ((1 << RecordLayout.OWNER_SLOT_BITS) - 1);
        if (EndpointSlot.writerMayFinish(ring, writerSlot, owner >> RecordLayout.OWNER_SLOT_BITS)) {
            return false;
        }
        long pid = EndpointSlot.holderPid(ring, writerSlot);
        skipped(at, h, reserved, position, pid);
        return true;
    }

    /**
     * Turns the {@code bytes} at {@code at} into padding if the word there still reads
     * {@code expected}, and reports the skip.
     */
    final void skipped(long at, long expected, int bytes, long position, long writerPid) {
        if (segment.compareAndSetLong(at, expected, header(bytes, PADDING_TYPE))) {
            AbandonedRecord record = new AbandonedRecord(position, bytes, writerPid,
                    (System.nanoTime() - stallSince) / 1_000_000);
            LOG.warn("{}: skipped an abandoned record at position {} ({} bytes) after {} ms; its writer (pid {}) is gone",
                    ring, record.position(), record.length(), record.waitedMillis(), record.writerPid());
            synchronized (reports) {
                abandonedCount++;
                if (reports.size() == REPORTS_KEPT) {
                    reports.removeFirst();
                }
                reports.addLast(record);
            }
        }
    }

    @Override
    public final int take(MessageHandler handler, int limit, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        idle.reset();
        while (true) {
            int n = poll(handler, limit);
            if (n > 0) {
                return n;
            }
            if (System.nanoTime() - deadline >= 0 || Thread.currentThread().isInterrupted()) {
                return 0;
            }
            idle.idle();
        }
    }

    @Override
    public final boolean isPeerAlive() {
        for (int i = 0; i < QueueLayout.PRODUCER_SLOTS; i++) {
            if (EndpointSlot.isAlive(ring, QueueLayout.producerSlot(i), livenessMillis)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public final long position() {
        return head;
    }

    @Override
    public final long abandonedCount() {
        synchronized (reports) {
            return abandonedCount;
        }
    }

    @Override
    public final List<AbandonedRecord> abandonedRecords() {
        synchronized (reports) {
            return List.copyOf(reports);
        }
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (freed != head) {
            freeRest();
        }
        slot.release();
        queue.endpointClosed(this);
    }

    @Override
    public String toString() {
        return "consumer of " + ring + " at position " + head;
    }
}
