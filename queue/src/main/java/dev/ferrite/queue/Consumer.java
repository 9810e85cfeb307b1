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
import static dev.ferrite.queue.QueueLayout.TAIL_CACHE_OFFSET;
import static dev.ferrite.queue.RecordLayout.HEADER_BYTES;
import static dev.ferrite.queue.RecordLayout.PADDING_TYPE;
import static dev.ferrite.queue.RecordLayout.header;

/**
 * The reading side of an {@link IpcQueue}: one per queue at a time, used by one thread. Messages
 * arrive in the order their records lie in the ring (for one producer: the order it offered them).
 *
 * <p>Every record header is checked before anything is read through it: a length or type that a
 * producer could not have written is a {@link CorruptFileException} naming the position and the
 * value, and the consumer stays at that record.
 *
 * <p>A record whose writer died between claim and commit is skipped once it has blocked the
 * consumer for the spec's abandon timeout and its writer's process is gone; each skip is logged
 * (WARN, logger {@code dev.ferrite.queue.Consumer}) and reported by {@link #abandonedRecords()}.
 * A record whose writer still runs is waited for: it may yet be committed.
 */
public final class Consumer extends LinePadding implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Consumer.class);
    private static final int REPORTS_KEPT = 64;
    /** How often a blocked consumer re-checks, after the timeout, whether the writer lives. */
    private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Most zero spans one poll collects; a poll that fills them stops before the next long record. */
    private static final int MAX_SPANS = 64;
    /** Bytes per cache line, the unit of the freed position's lag (see {@link QueueLayout#CONSUMER_LAG}). */
    private static final long LINE = 64;

    private final IpcQueue queue;
    private final Ring ring;
    private final Segment segment;
    private final EndpointSlot slot;
    private final long capacity;
    private final long abandonNanos;
    private final long livenessMillis;
    private final IdleStrategy idle;
    private final ArrayDeque<AbandonedRecord> reports = new ArrayDeque<>();
    private long head;
    /**
     * The freed position as this consumer last stored it: consumed bytes from here to the head
     * are not zeroed yet (with one producer, the records of the cache line the last poll stopped
     * in, which the producer may still be writing into).
     */
    private long freed;
    /**
     * One-producer queues, during a poll: the consumed spans to zero at release, as pairs
     * {@code [from, to)}, {@link #spanCount} of them: the bytes before each
     * {@link QueueLayout#LONG_RECORD long} record and its first {@link QueueLayout#CONSUMER_ZEROES}
     * bytes. The last span, from {@link #spanStart}, runs to the new head.
     */
    private final long[] spans = new long[2 * MAX_SPANS];
    private int spanCount;
    private long spanStart;
    private long stallPosition = -1;
    private long stallSince;
    private long nextCheck;
    private long abandonedCount;
    private boolean closed;

    Consumer(IpcQueue queue, Ring ring, EndpointSlot slot, QueueSpec spec) {
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

    /**
     * Hands up to {@code limit} published messages to the handler, in place, then frees their
     * ring bytes with one update of the head (with one producer, all but the records of the cache
     * line the poll stopped in, the producer's next line: those go at the next poll that delivers
     * something, or at one that finds the ring empty and the producer waiting for room, or at
     * {@link #close()}). A message whose handler throws counts as consumed; the exception
     * propagates after the messages before it are freed. Delivery is at least once:
     * if this process dies during a poll, before the head update, the next consumer receives
     * those messages again.
     *
     * @param handler receives each message
     * @param limit   most messages to deliver, at least 1
     * @return messages delivered, 0 if none were published
     * @throws CorruptFileException if a record header is impossible
     */
    public int poll(MessageHandler handler, int limit) {
        if (closed) {
            throw new FerriteException("consumer of " + ring + " is closed");
        }
        if (limit < 1) {
            throw new FerriteException("poll limit " + limit + " must be at least 1");
        }
        long start = head;
        long position = start;
        int count = 0;
        spanCount = 0;
        spanStart = freed;
        // The last record boundary at or before the start of position's cache line: up to it the
        // producer is done with every line.
        long settled = freed;
        try {
            while (count < limit && position - start < capacity) {
                long at = ring.offsetOf(position);
                // Acquire: pairs with the producer's ordered header store, so the payload written
                // before that store is visible once the header is.
                long h = segment.getLongVolatile(at);
                int length = RecordLayout.length(h);
                if (length <= 0) {
                    if (position == start && skipBlocked(h, position, at)) {
                        continue;
                    }
                    break;
                }
                int bytes = ring.checkPublished(h, position);
                if (bytes > QueueLayout.LONG_RECORD && !ring.manyProducers) {
                    if (spanCount == MAX_SPANS) {
                        break;
                    }
                    // Zero up to this record's first bytes; its rest stays (see release).
                    spans[2 * spanCount] = spanStart;
                    spans[2 * spanCount + 1] = position + QueueLayout.CONSUMER_ZEROES;
                    spanCount++;
                    spanStart = position + bytes;
                }
                long next = position + bytes;
                if ((next & (LINE - 1)) == 0) {
                    settled = next;
                } else if ((next & -LINE) > position) {
                    settled = position;
                }
                position = next;
                int type = RecordLayout.type(h);
                if (type != PADDING_TYPE) {
                    count++;
                    handler.onMessage(segment, at + HEADER_BYTES, length - HEADER_BYTES, type);
                }
            }
        } finally {
            if (position != start) {
                // Records longer than the lag cannot lie past settled: their spans end before it.
                boolean lag = !ring.manyProducers && position - settled <= QueueLayout.CONSUMER_LAG;
                release(position, lag ? settled : position);
            } else if (freed != head && ring.tail() == head) {
                freeRest(); // caught up, and the producer stored its tail: it may wait for room
            }
        }
        return count;
    }

    /**
     * Frees consumed ring bytes, after zeroing them, with ordered stores of the head and the freed
     * position: with many producers every byte (a header of 0 means "not yet published", and
     * producers claim by CAS and write nothing past their claims); with one producer every byte
     * but the rest of each {@link QueueLayout#LONG_RECORD long} record past its first
     * {@link QueueLayout#CONSUMER_ZEROES}, leaving those lines clean so that the producer need not
     * take them back from this consumer's cache (the producer clears a word past its claim itself
     * where a payload was left: see {@link OneToOneProducer}), nor the bytes from {@code freeTo}
     * to the head, left for the next poll. The pending head, stored first, lets a successor
     * finish if this process dies in between.
     *
     * @param end    the new head
     * @param freeTo the new freed position, a record boundary at most {@code end}
     */
    private void release(long end, long freeTo) {
        segment.putLongOrdered(HEAD_PENDING_OFFSET, end);
        VarHandle.storeStoreFence(); // the pending head lands before any zero
        if (ring.manyProducers) {
            ring.zero(freed, freeTo);
        } else {
            for (int i = 0; i < spanCount; i++) {
                ring.zero(spans[2 * i], spans[2 * i + 1]);
            }
            ring.zero(spanStart, freeTo);
        }
        // FREED first: a successor that finds it more than the lag behind HEAD takes it for damage.
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
    private void freeRest() {
        ring.zero(freed, head);
        segment.putLongOrdered(FREED_OFFSET, head);
        freed = head;
    }

    /**
     * The record at the head is not published: nothing there yet, or in progress. Decides whether
     * its writer is dead and the record may be skipped.
     *
     * @return true if the record was turned into padding (the caller reads it again)
     */
    private boolean skipBlocked(long h, long position, long at) {
        long tail = 0;
        if (h == 0) {
            if (!ring.manyProducers) {
                return false; // one producer publishes its tail only past published headers: empty
            }
            tail = ring.tail();
            segment.putLong(TAIL_CACHE_OFFSET, tail);
            if (tail <= position) {
                return false;
            }
        }
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
        return h != 0 ? skipInProgress(h, position, at, now) : skipUnmarked(position, at, tail, now);
    }

    private boolean skipInProgress(long h, long position, long at, long now) {
        int reserved = ring.checkInProgress(h, position);
        int owner = RecordLayout.type(h);
        int writerSlot = owner & ((1 << RecordLayout.OWNER_SLOT_BITS) - 1);
        if (EndpointSlot.writerMayFinish(ring, writerSlot, owner >> RecordLayout.OWNER_SLOT_BITS)) {
            return false;
        }
        long pid = EndpointSlot.holderPid(ring, writerSlot);
        if (segment.compareAndSetLong(at, h, header(reserved, PADDING_TYPE))) {
            report(new AbandonedRecord(position, reserved, pid, (now - stallSince) / 1_000_000));
        }
        return true;
    }

    /**
     * Many producers: the tail was claimed past the head but no header was written. The writer
     * died between its CAS on the tail and its first store, or is a live producer paused in those
     * few instructions. Every producer names the position it claims from in its slot's CLAIM word
     * before its CAS and keeps it there until its header is written (see
     * {@link ManyToOneProducer}), so: if a producer whose process runs names this position, wait.
     * Otherwise the claim here is a dead writer's, and only bytes proven to be its own are padded:
     * up to the first of the next written word, the next position any producer names, the tail,
     * the ring's end and the largest claim. A live writer's claim that follows is never covered.
     * The reads go in that order (tail, CLAIM words, ring words): a CLAIM word read after a tail
     * that includes the claim names its start until the header is written, and a header written
     * after the CLAIM word moved on is seen by the scan.
     */
    private boolean skipUnmarked(long position, long at, long tail, long now) {
        long end = Math.min(tail, position + ring.maxClaim);
        end = Math.min(end, position + (capacity - (position & ring.mask)));
        for (int i = 0; i < QueueLayout.PRODUCER_SLOTS; i++) {
            int slotOffset = QueueLayout.producerSlot(i);
            long claimed = segment.getLongVolatile(slotOffset + QueueLayout.SLOT_CLAIM);
            if (claimed == position && EndpointSlot.holderMayRun(ring, slotOffset)) {
                return false;
            }
            if (claimed > position) {
                end = Math.min(end, claimed);
            }
        }
        long p = position + RecordLayout.ALIGNMENT;
        while (p < end && segment.getLongVolatile(ring.offsetOf(p)) == 0) {
            p += RecordLayout.ALIGNMENT;
        }
        int gap = (int) (p - position);
        if (segment.compareAndSetLong(at, 0, header(gap, PADDING_TYPE))) {
            report(new AbandonedRecord(position, gap, 0, (now - stallSince) / 1_000_000));
        }
        return true;
    }

    private void report(AbandonedRecord record) {
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

    /**
     * Polls until at least one message arrives or the time runs out, waiting with the spec's
     * {@link IdleStrategy}.
     *
     * @param handler receives each message
     * @param limit   most messages to deliver, at least 1
     * @param timeout how long to wait at most
     * @return messages delivered; 0 if the time ran out or the thread was interrupted (its
     *         interrupt status is kept)
     */
    public int take(MessageHandler handler, int limit, Duration timeout) {
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

    /**
     * @return whether some producer holds the queue, its process runs and its heartbeat is at most
     *         the spec's liveness timeout old
     */
    public boolean isPeerAlive() {
        for (int i = 0; i < QueueLayout.PRODUCER_SLOTS; i++) {
            if (EndpointSlot.isAlive(ring, QueueLayout.producerSlot(i), livenessMillis)) {
                return true;
            }
        }
        return false;
    }

    /** @return bytes consumed so far in the queue's life (the head position) */
    public long position() {
        return head;
    }

    /** @return records skipped as abandoned by this consumer; thread-safe */
    public long abandonedCount() {
        synchronized (reports) {
            return abandonedCount;
        }
    }

    /** @return the most recent (up to 64) records skipped as abandoned, oldest first; thread-safe */
    public List<AbandonedRecord> abandonedRecords() {
        synchronized (reports) {
            return List.copyOf(reports);
        }
    }

    /**
     * Frees what the last poll left before the head, and gives the consumer's place back; later
     * polls throw. Idempotent.
     */
    @Override
    public void close() {
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
