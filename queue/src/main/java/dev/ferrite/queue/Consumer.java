package dev.ferrite.queue;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;

import java.time.Duration;
import java.util.List;

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
public interface Consumer extends AutoCloseable {

    /**
     * Hands up to {@code limit} published messages to the handler, in place, then frees their
     * ring bytes with one update of the head (with one producer, all but the records of the cache
     * line the poll stopped in, the producer's next line: those go at the next poll that delivers
     * something, or at one that finds the ring empty and the producer waiting for room, or at
     * {@link #close()}). A message whose handler throws counts as consumed; the exception
     * propagates after the messages before it are freed. Delivery is at least once: if this
     * process dies during a poll, before the head update, the next consumer receives those
     * messages again.
     *
     * @param handler receives each message
     * @param limit   most messages to deliver, at least 1
     * @return messages delivered, 0 if none were published
     * @throws CorruptFileException if a record header is impossible
     * @throws FerriteException     if the limit is below 1 or the consumer is closed
     */
    int poll(MessageHandler handler, int limit);

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
    int take(MessageHandler handler, int limit, Duration timeout);

    /**
     * @return whether some producer holds the queue, its process runs and its heartbeat is at most
     *         the spec's liveness timeout old
     */
    boolean isPeerAlive();

    /** @return bytes consumed so far in the queue's life (the head position) */
    long position();

    /** @return records skipped as abandoned by this consumer; thread-safe */
    long abandonedCount();

    /** @return the most recent (up to 64) records skipped as abandoned, oldest first; thread-safe */
    List<AbandonedRecord> abandonedRecords();

    /**
     * Frees what the last poll left before the head, and gives the consumer's place back; later
     * polls throw. Idempotent.
     */
    @Override
    void close();
}
