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
     * @throws FerriteException if the claim is not open, or if its queue or producer was closed
     *         on another thread meanwhile (the message is then not published)
     */
    public void commit() {
        checkOpen("committed");
        open = false;
        if (!producer.endClaim(headerOffset, recordLength, RecordLayout.header(recordLength, type))) {
            throw new FerriteException("claim was not committed: " + producer + " was closed meanwhile, which aborted it");
        }
    }

    /**
     * Gives the room back as padding; the consumer skips it.
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
            producer.endClaim(headerOffset, recordLength, RecordLayout.header(recordLength, RecordLayout.PADDING_TYPE));
        }
    }

    private void checkOpen(String how) {
        if (!open) {
            throw new FerriteException(producer.isClosed()
                    ? "claim was not " + how + ": " + producer + " was closed, which aborted it"
                    : "claim is not open: it was committed or aborted already");
        }
    }
}
