package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;

import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The writing side of an {@link IpcQueue}. One producer object belongs to one thread; a queue made
 * with {@link QueueSpec.Builder#manyProducers(boolean) manyProducers(true)} takes several producer
 * objects at once (threads or processes), otherwise one at a time.
 *
 * <p>Every message has a payload of 1 to {@link IpcQueue#maxMessageLength()} bytes and a type
 * {@code >= 0}; anything else is a {@link FerriteException} naming the value and the limit, and
 * nothing is written. The {@code offer} methods never block: they return false when the ring has
 * no room; the ones with a timeout wait with the spec's {@link IdleStrategy}.
 */
public interface Producer extends AutoCloseable {

    /**
     * Offers a message of type 0.
     *
     * @param message payload, 1 to max message length bytes
     * @return true if published, false if the ring is full
     */
    boolean offer(byte[] message);

    /**
     * @param src    array holding the payload
     * @param offset payload start in {@code src}
     * @param length payload length, 1 to max message length
     * @param type   message type, {@code >= 0}
     * @return true if published, false if the ring is full
     */
    boolean offer(byte[] src, int offset, int length, int type);

    /**
     * Offers the remaining bytes of a buffer; the buffer's position is not changed.
     *
     * @param message payload between position and limit
     * @param type    message type, {@code >= 0}
     * @return true if published, false if the ring is full
     */
    boolean offer(ByteBuffer message, int type);

    /**
     * Offers bytes copied from a segment (of any pool).
     *
     * @param src    the segment holding the payload
     * @param offset payload start in {@code src}
     * @param length payload length, 1 to max message length
     * @param type   message type, {@code >= 0}
     * @return true if published, false if the ring is full
     */
    boolean offer(Segment src, long offset, int length, int type);

    /**
     * Offers a message, waiting up to a timeout for room.
     *
     * @param src     array holding the payload
     * @param offset  payload start in {@code src}
     * @param length  payload length, 1 to max message length
     * @param type    message type, {@code >= 0}
     * @param timeout how long to wait at most
     * @return true if published, false if the time ran out or the thread was interrupted (its
     *         interrupt status is kept)
     */
    boolean offer(byte[] src, int offset, int length, int type, Duration timeout);

    /**
     * Offers several messages that become visible to the consumer together, with one update of
     * the tail: all of them or none.
     *
     * @param messages payloads; each 1 to max message length bytes
     * @param from     index of the first message to offer
     * @param count    number of messages, at least 1; together at most half the ring (8-byte
     *                 header and padding to 8 counted per message)
     * @param type     type of every message, {@code >= 0}
     * @return true if all were published, false if the ring has no room for all of them now
     */
    boolean offerBatch(byte[][] messages, int from, int count, int type);

    /**
     * Claims room for one message of type 0 to be written in place; see {@link #tryClaim(int, int)}.
     *
     * @param length payload length, 1 to max message length
     * @return the claim, or null if the ring is full
     */
    default Claim tryClaim(int length) {
        return tryClaim(length, 0);
    }

    /**
     * Claims room for one message to be written in place.
     *
     * @param length payload length, 1 to max message length
     * @param type   message type, {@code >= 0}
     * @return the claim (reused by this producer: one claim is open at a time), or null if the
     *         ring is full. The consumer waits at this record until it is committed or aborted.
     * @throws FerriteException if the previous claim is still open
     */
    Claim tryClaim(int length, int type);

    /**
     * Claims room for {@code count} messages of the same length and type, written in place and
     * published together by {@link BatchClaim#commit()}.
     *
     * @param count  messages, at least 1; together at most half the ring
     * @param length payload length of each, 1 to max message length
     * @param type   type of each, {@code >= 0}
     * @return the claim (reused by this producer), or null if the ring is full
     * @throws FerriteException if the previous claim is still open
     */
    BatchClaim tryClaimBatch(int count, int length, int type);

    /**
     * @return whether a consumer holds the queue, its process runs and its heartbeat is at most
     *         the spec's liveness timeout old
     */
    boolean isPeerAlive();

    /** @return bytes this producer knows have been claimed so far in the queue's life */
    long position();

    /**
     * Aborts an open claim and gives the producer's place back; later calls throw. Idempotent. May
     * run on another thread than the producer's (as {@link IpcQueue#close()} does): a commit racing
     * it either publishes or throws, and what was sent before stays.
     */
    @Override
    void close();
}
