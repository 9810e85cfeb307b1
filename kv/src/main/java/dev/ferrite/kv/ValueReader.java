package dev.ferrite.kv;

import dev.ferrite.Segment;

/**
 * Reads a stored value where it lies, without copying it: the zero-copy get of
 * {@link FerriteMap#readValue(byte[], ValueReader)}.
 *
 * <p>The reader runs without any lock while writers go on, so the bytes it is given may be changing
 * under it; the map checks afterwards that what it read was current and calls the reader again if
 * not (an exception the reader threw on bytes that were changing is dropped the same way; one
 * thrown on current bytes reaches the caller). So a reader must only read the range it is given and
 * have no effect that a second call would repeat wrongly (compute a result, do not append to a
 * list). It must not keep the segment or the offset: both mean nothing after it returns.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface ValueReader<R> {

    /**
     * @param segment the segment holding the value; only [offset, offset + length) may be read
     * @param offset  byte offset of the value's first byte in the segment
     * @param length  the value's length in bytes, 0 or more
     * @return the result handed back to the caller of the map
     */
    R read(Segment segment, long offset, int length);
}
