package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;

/**
 * Room for one message claimed by {@link Producer#tryClaim}: write the payload into
 * {@link #segment()} at {@code [offset(), offset() + length())}, then {@link #commit()} or
 * {@link #abort()}. Writing outside that range corrupts the queue. Reused by its producer; used by
 * the producer's thread only.
 */
public final class Claim {

    private final RingProducer producer;
    private final Segment segment;
    long headerOffset;
    int recordLength;
    int type;
    boolean open;

    Claim(RingProducer producer, Segment segment) {
        this.producer = producer;
        this.segment = segment;
    }

    /** @return the queue's segment, to write the payload into */
    public Segment segment() {
        return segment;
    }

    /** @return byte offset of the payload in {@link #segment()} */
    public long offset() {
        return headerOffset + RecordLayout.HEADER_BYTES;
    }

    /** @return payload length in bytes */
    public int length() {
        return recordLength - RecordLayout.HEADER_BYTES;
    }

    /**
     * Publishes the message.
     *
     * @throws FerriteException if the claim is not open
     */
    public void commit() {
        checkOpen();
        open = false;
        producer.publish(headerOffset, RecordLayout.header(recordLength, type));
    }

    /**
     * Gives the room back as padding; the consumer skips it.
     *
     * @throws FerriteException if the claim is not open
     */
    public void abort() {
        checkOpen();
        open = false;
        producer.publish(headerOffset, RecordLayout.header(recordLength, RecordLayout.PADDING_TYPE));
    }

    private void checkOpen() {
        if (!open) {
            throw new FerriteException("claim is not open: it was committed or aborted already");
        }
    }
}
