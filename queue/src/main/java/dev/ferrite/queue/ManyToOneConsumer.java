package dev.ferrite.queue;

import static dev.ferrite.queue.QueueLayout.TAIL_CACHE_OFFSET;
import static dev.ferrite.queue.RecordLayout.HEADER_BYTES;
import static dev.ferrite.queue.RecordLayout.PADDING_TYPE;

/**
 * The consumer of a many-producer queue. Its invariants:
 * <ul>
 *   <li>A header of 0 at the head is "empty" only if TAIL is at the head: producers claim by CAS
 *       on TAIL before they write a header, so a claim may be visible in TAIL with no header yet
 *       (see {@link #skipUnmarked}).</li>
 *   <li>A poll zeroes every byte it consumed before it moves the head: producers write nothing
 *       past their claims, so every byte past the tail must read 0. FREED equals HEAD between
 *       polls.</li>
 * </ul>
 */
final class ManyToOneConsumer extends RingConsumer {

    ManyToOneConsumer(IpcQueue queue, Ring ring, EndpointSlot slot, QueueSpec spec) {
        super(queue, ring, slot, spec);
    }

    @Override
    public int poll(MessageHandler handler, int limit) {
        checkPoll(limit);
        long start = head;
        long position = start;
        int count = 0;
        try {
            while (count < limit && position - start < capacity) {
                long at = ring.offsetOf(position);
                // Acquire: pairs with the producer's ordered header store.
                long h = segment.getLongVolatile(at);
                int length = RecordLayout.length(h);
                if (length <= 0) {
                    if (position == start && skipBlocked(h, position, at)) {
                        continue;
                    }
                    break;
                }
                position += ring.checkPublished(h, position);
                int type = RecordLayout.type(h);
                if (type != PADDING_TYPE) {
                    count++;
                    handler.onMessage(segment, at + HEADER_BYTES, length - HEADER_BYTES, type);
                }
            }
        } finally {
            if (position != start) {
                beginRelease(position);
                ring.zero(freed, position);
                endRelease(position, position);
            }
        }
        return count;
    }

    /**
     * The record at the head is not published: nothing there yet, a claim with no header yet, or
     * one in progress. Decides whether its writer is dead and the record may be skipped.
     *
     * @return true if the record was turned into padding (the caller reads it again)
     */
    private boolean skipBlocked(long h, long position, long at) {
        if (h != 0) {
            return blockedLongEnough(position) && skipInProgress(h, position, at);
        }
        long tail = ring.tail();
        segment.putLong(TAIL_CACHE_OFFSET, tail);
        return tail > position && blockedLongEnough(position) && skipUnmarked(position, at, tail);
    }

    /**
     * The tail was claimed past the head but no header was written. The writer died between its
     * CAS on the tail and its first store, or is a live producer paused in those few instructions.
     * Every producer names the position it claims from in its slot's CLAIM word before its CAS and
     * keeps it there until its header is written (see {@link ManyToOneProducer}), so: if a producer
     * whose process runs names this position, wait. Otherwise the claim here is a dead writer's,
     * and only bytes proven to be its own are padded: up to the first of the next written word,
     * the next position any producer names, the tail, the ring's end and the largest claim. A live
     * writer's claim that follows is never covered. The reads go in that order (tail, CLAIM words,
     * ring words): a CLAIM word read after a tail that includes the claim names its start until the
     * header is written, and a header written after the CLAIM word moved on is seen by the scan.
     */
    private boolean skipUnmarked(long position, long at, long tail) {
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
        skipped(at, 0, (int) (p - position), position, 0);
        return true;
    }
}
