package dev.ferrite.queue;

import static dev.ferrite.queue.QueueLayout.HEAD_CACHE_OFFSET;
import static dev.ferrite.queue.QueueLayout.RING_OFFSET;
import static dev.ferrite.queue.QueueLayout.SLOT_CLAIM;
import static dev.ferrite.queue.QueueLayout.TAIL_OFFSET;
import static dev.ferrite.queue.RecordLayout.HEADER_BYTES;
import static dev.ferrite.queue.RecordLayout.PADDING_TYPE;
import static dev.ferrite.queue.RecordLayout.aligned;
import static dev.ferrite.queue.RecordLayout.header;

/**
 * A producer of a many-producer queue. Its invariants, all in this class:
 * <ul>
 *   <li>Space is claimed by CAS on the shared TAIL, so TAIL runs ahead of published records. Free
 *       ring bytes are zero (the consumer zeroes what it consumed): a claim's header word reads 0
 *       until its writer stores to it.</li>
 *   <li>Before each CAS the producer stores the position it is about to claim from in its slot's
 *       CLAIM word (ordered; the CAS that follows makes it visible to whoever sees the new TAIL),
 *       and leaves it there until its next claim; it stores -1 when it gives up for want of room.
 *       So while a claim's header still reads 0, its writer's CLAIM word names the claim's start:
 *       the consumer skips a 0 header only when no live producer's CLAIM names that position.</li>
 *   <li>Right after the CAS the record is marked in progress (negative length and the writer's
 *       slot and generation), so the consumer can tell a slow writer from a dead one.</li>
 *   <li>A claim that would wrap is two claims: the ring's end as padding, then the record at the
 *       ring's start. Every claim therefore starts where its CLAIM word says.</li>
 * </ul>
 */
final class ManyToOneProducer extends RingProducer {

    private final int claimWord;

    ManyToOneProducer(IpcQueue queue, Ring ring, EndpointSlot slot, int slotIndex, QueueSpec spec) {
        super(queue, ring, slot, slotIndex, spec);
        this.claimWord = slot.offset + SLOT_CLAIM;
        // A dead predecessor's CLAIM is not this producer's: forget it before the first claim.
        segment.putLongVolatile(claimWord, -1L);
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
        markInProgress(at, recordLength); // a dead writer's record is skipped
        copyPayload(src, offset, at + HEADER_BYTES, length);
        segment.putLongOrdered(at, header(recordLength, type));
        return true;
    }

    @Override
    long claim(int bytes) {
        while (true) {
            long t = segment.getLongVolatile(TAIL_OFFSET);
            int toEnd = (int) (capacity - (t & mask));
            long needed = bytes > toEnd ? (long) toEnd + bytes : bytes;
            // Room ends a capacity past FREED. HEAD_CACHE is shared memory: a value past the tail
            // is no freed position (damage, or a cache written after this producer read the
            // tail); decide by FREED itself then.
            long freed = segment.getLongVolatile(HEAD_CACHE_OFFSET);
            if (freed > t || t + needed - freed > capacity) {
                freed = ring.freed();
                if (freed > t) {
                    if (segment.getLongVolatile(TAIL_OFFSET) == t) {
                        throw Ring.corrupt(ring.name, "freed position " + freed + " is past the tail " + t);
                    }
                    continue;
                }
                if (t + needed - freed > capacity) {
                    segment.putLongOrdered(claimWord, -1L);
                    return -1;
                }
                segment.putLongOrdered(HEAD_CACHE_OFFSET, freed);
            }
            segment.putLongOrdered(claimWord, t);
            if (bytes > toEnd) {
                // The ring's end first, as a claim of its own; then the record at index 0.
                if (segment.compareAndSetLong(TAIL_OFFSET, t, t + toEnd)) {
                    segment.putLongOrdered(ring.offsetOf(t), header(toEnd, PADDING_TYPE));
                }
                continue;
            }
            if (segment.compareAndSetLong(TAIL_OFFSET, t, t + bytes)) {
                tail = t + bytes;
                return t;
            }
        }
    }

    @Override
    void copyClaimed(long at, int reserved) {
        markInProgress(at, reserved);
    }

    /** Nothing to publish: the CAS that claimed the bytes moved TAIL. */
    @Override
    void publishTail() {
    }

    @Override
    void closing() {
        segment.putLongOrdered(claimWord, -1L);
    }
}
