package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;

/**
 * Room for {@link #count()} messages of one length and type, claimed by
 * {@link Producer#tryClaimBatch}: write message {@code i}'s payload at {@link #offset(int)
 * offset(i)}, then {@link #commit()} publishes all of them with one ordered store, or
 * {@link #abort()} gives the room back. Reused by its producer; used by the producer's thread only.
 */
public final class BatchClaim {

    private final RingProducer producer;
    private final Segment segment;
    long firstOffset;
    int count;
    int recordLength;
    int stride;
    int type;
    boolean open;

    BatchClaim(RingProducer producer, Segment segment) {
        this.producer = producer;
        this.segment = segment;
    }

    /** @return the queue's segment, to write the payloads into */
    public Segment segment() {
        return segment;
    }

    /** @return number of messages in the batch */
    public int count() {
        return count;
    }

    /** @return payload length of each message in bytes */
    public int length() {
        return recordLength - RecordLayout.HEADER_BYTES;
    }

    /**
     * @param index message index, 0 to {@code count() - 1}
     * @return byte offset of that message's payload in {@link #segment()}
     * @throws FerriteException if the index is out of range
     */
    public long offset(int index) {
        if (index < 0 || index >= count) {
            throw new FerriteException("batch message index " + index + " is outside 0 to " + (count - 1));
        }
        return firstOffset + (long) index * stride + RecordLayout.HEADER_BYTES;
    }

    /**
     * Publishes every message of the batch at once.
     *
     * @throws FerriteException if the claim is not open
     */
    public void commit() {
        checkOpen();
        open = false;
        long header = RecordLayout.header(recordLength, type);
        // The later headers are plain stores: the consumer reaches them only through the first
        // record, whose header is written last with an ordered store that publishes them all.
        for (int i = count - 1; i > 0; i--) {
            segment.putLong(firstOffset + (long) i * stride, header);
        }
        producer.publish(firstOffset, header);
    }

    /**
     * Gives the whole room back as one padding record.
     *
     * @throws FerriteException if the claim is not open
     */
    public void abort() {
        checkOpen();
        open = false;
        producer.publish(firstOffset, RecordLayout.header(count * stride, RecordLayout.PADDING_TYPE));
    }

    private void checkOpen() {
        if (!open) {
            throw new FerriteException("batch claim is not open: it was committed or aborted already");
        }
    }
}
