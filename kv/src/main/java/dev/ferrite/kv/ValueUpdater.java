package dev.ferrite.kv;

import dev.ferrite.Segment;

/**
 * Changes a stored value's bytes without taking it to the heap: the in-place update of
 * {@link FerriteMap#updateValue(byte[], ValueUpdater)} (a counter, a field of a flat record).
 *
 * <p>It runs under the lock of the key's section, in this process and all others, exactly once per
 * call. A value held in its bucket, or of at most {@value FerriteMap#IN_PLACE_MAX_VALUE} bytes, is handed over where it lies: the
 * map first saves its old bytes in the section's undo record, and until the updater returns and
 * the map has checksummed the entry, readers (in every process) are served the saved bytes. So a
 * reader sees the value before or after the update, never half of it; if the updater throws, the
 * old bytes are put back; if the process is killed inside it, readers keep getting the old value
 * and the next writer of the section puts it back. A longer value is handed over as a private copy
 * in the map's memory, published in its place afterwards, with the same guarantees. The length
 * cannot change.
 */
@FunctionalInterface
public interface ValueUpdater {

    /**
     * @param segment the segment holding the copy; only [offset, offset + length) may be read or written
     * @param offset  byte offset of the copy's first byte
     * @param length  the value's length in bytes
     */
    void update(Segment segment, long offset, int length);
}
