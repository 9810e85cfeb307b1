package dev.ferrite.queue;

import static dev.ferrite.queue.RecordLayout.HEADER_BYTES;
import static dev.ferrite.queue.RecordLayout.PADDING_TYPE;

/**
 * The consumer of a one-producer queue. Its invariants:
 * <ul>
 *   <li>A header of 0 at the head means "empty": the producer stores TAIL only past headers it
 *       published, so there is no unmarked claim to wait for.</li>
 *   <li>A poll frees every consumed byte but those of the cache line it stopped in (the
 *       producer's next line: zeroing it would take the line from the producer's cache), up to
 *       {@link QueueLayout#CONSUMER_LAG} bytes before the head. They go at the next poll that
 *       delivers something, at one that finds the ring empty with TAIL at the head (the producer
 *       waits for room), or at close.</li>
 *   <li>Of a {@link QueueLayout#LONG_RECORD long} record only the first
 *       {@link QueueLayout#CONSUMER_ZEROES} bytes are zeroed; the producer clears what it needs
 *       of the rest (see {@link OneToOneProducer}).</li>
 * </ul>
 */
final class OneToOneConsumer extends RingConsumer {

    /** Most zero spans one poll collects; a poll that fills them stops before the next long record. */
    private static final int MAX_SPANS = 64;
    /** Bytes per cache line, the unit of the freed position's lag. */
    private static final long LINE = 64;

    /**
     * During a poll: the consumed spans to zero at release, as pairs {@code [from, to)},
     * {@link #spanCount} of them: the bytes before each long record and its first bytes. The last
     * span, from {@link #spanStart}, runs to the new freed position.
     */
    private final long[] spans = new long[2 * MAX_SPANS];
    private int spanCount;
    private long spanStart;

    OneToOneConsumer(IpcQueue queue, Ring ring, EndpointSlot slot, QueueSpec spec) {
        super(queue, ring, slot, spec);
    }

    @Override
    public int poll(MessageHandler handler, int limit) {
        checkPoll(limit);
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
                    if (h != 0 && position == start && blockedLongEnough(position) && skipInProgress(h, position, at)) {
                        continue;
                    }
                    break;
                }
                int bytes = ring.checkPublished(h, position);
                if (bytes > QueueLayout.LONG_RECORD) {
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
                release(position, position - settled <= QueueLayout.CONSUMER_LAG ? settled : position);
            } else if (freed != head && ring.tail() == head) {
                freeRest(); // caught up, and the producer stored its tail: it may wait for room
            }
        }
        return count;
    }

    /**
     * Frees consumed ring bytes: zeroes the collected spans (every byte but the rest of each long
     * record, and those from {@code freeTo} to the head, left for the next poll), then stores the
     * freed position and the head.
     *
     * @param end    the new head
     * @param freeTo the new freed position, a record boundary at most {@code end}
     */
    private void release(long end, long freeTo) {
        beginRelease(end);
        for (int i = 0; i < spanCount; i++) {
            ring.zero(spans[2 * i], spans[2 * i + 1]);
        }
        ring.zero(spanStart, freeTo);
        endRelease(end, freeTo);
    }
}
