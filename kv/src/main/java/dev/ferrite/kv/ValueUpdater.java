package dev.ferrite.kv;

import dev.ferrite.Segment;

/**
 * Changes a stored value's bytes without taking it to the heap: the in-place update of
 * {@link FerriteMap#updateValue(byte[], ValueUpdater)} (a counter, a field of a flat record).
 *
 * <p>It runs under the lock of the key's section, in this process and all others, exactly once per
 * call. It gets a private copy of the value in the map's memory that no reader sees until it
 * returns; the map then checksums the copy and publishes it with one store, so a reader sees the
 * value before or after the update, never half of it, and a process killed during the update
 * leaves the old value. The length cannot change.
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
