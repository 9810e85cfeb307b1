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
     * @throws FerriteException if the claim is not open, or if its queue or producer was closed
     *         on another thread meanwhile (the messages are then not published)
     */
    public void commit() {
        checkOpen("committed");
        open = false;
        long header = RecordLayout.header(recordLength, type);
        // The later headers are plain stores: the consumer reaches them only through the first
        // record, whose header is set last, by a CAS that publishes them all.
        for (int i = count - 1; i > 0; i--) {
            segment.putLong(firstOffset + (long) i * stride, header);
        }
        if (!producer.endClaim(firstOffset, count * stride, header)) {
            throw new FerriteException("batch claim was not committed: " + producer
                    + " was closed meanwhile, which aborted it");
        }
    }

    /**
     * Gives the whole room back as one padding record.
     *
     * @throws FerriteException if the claim is not open
     */
    public void abort() {
        checkOpen("aborted");
        abandon();
    }

    /** Aborts the claim if it is open and nobody ended it meanwhile; never throws. For the producer's close. */
    void abandon() {
        if (open) {
            open = false;
            producer.endClaim(firstOffset, count * stride,
                    RecordLayout.header(count * stride, RecordLayout.PADDING_TYPE));
        }
    }

    private void checkOpen(String how) {
        if (!open) {
            throw new FerriteException(producer.isClosed()
                    ? "batch claim was not " + how + ": " + producer + " was closed, which aborted it"
                    : "batch claim is not open: it was committed or aborted already");
        }
    }
}
