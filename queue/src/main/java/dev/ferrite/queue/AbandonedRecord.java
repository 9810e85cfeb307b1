package dev.ferrite.queue;

/**
 * A record the consumer skipped because the producer that claimed it died before committing it.
 *
 * @param position   queue position of the record (bytes since the queue was created)
 * @param length     bytes skipped, header included
 * @param writerPid  pid of the producer that claimed it, 0 if unknown (it died before naming itself)
 * @param waitedMillis how long the consumer waited on it before skipping
 */
public record AbandonedRecord(long position, int length, long writerPid, long waitedMillis) {
}
