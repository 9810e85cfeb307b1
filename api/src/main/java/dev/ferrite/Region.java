package dev.ferrite;

import java.nio.ByteBuffer;

/**
 * A contiguous view of part of a segment inside one chunk, with {@code int} offsets from 0 to
 * {@link #length()}: the unit of a per-chunk kernel, whose inner loop the JIT can unroll and whose
 * checks it can hoist. Values are little-endian.
 *
 * <p>Valid while the segment handle it came from is open. Checked as the segment is: an offset
 * outside the region throws {@link OutOfBoundsException}, an access after its handle or pool
 * closed throws {@link SegmentClosedException}, a write to a read-only pool throws
 * {@link FerriteException} (checks on or off); with {@code -Dferrite.checks=false} single typed
 * accesses are not checked. {@link #asByteBuffer()} is read-only on a read-only pool. Not
 * thread-safe beyond what the memory itself guarantees.
 */
public interface Region {

    /** @return the byte offset in the segment where this region starts */
    long segmentOffset();

    /** @return bytes in this region, at least 1 */
    int length();

    /**
     * @param off offset in [0, length - 1]
     * @return the byte there
     */
    byte getByte(int off);

    /**
     * @param off offset in [0, length - 1]
     * @param v   the value
     */
    void putByte(int off, byte v);

    /**
     * @param off offset in [0, length - 4]
     * @return the int there
     */
    int getInt(int off);

    /**
     * @param off offset in [0, length - 4]
     * @param v   the value
     */
    void putInt(int off, int v);

    /**
     * @param off offset in [0, length - 8]
     * @return the long there
     */
    long getLong(int off);

    /**
     * @param off offset in [0, length - 8]
     * @param v   the value
     */
    void putLong(int off, long v);

    /**
     * @param off offset in [0, length - 8]
     * @return the double there
     */
    double getDouble(int off);

    /**
     * @param off offset in [0, length - 8]
     * @param v   the value
     */
    void putDouble(int off, double v);

    /**
     * Copies bytes out of the region.
     *
     * @param off    first byte in the region
     * @param dst    destination
     * @param dstOff first index written
     * @param len    bytes
     */
    void copyTo(int off, byte[] dst, int dstOff, int len);

    /**
     * Copies bytes into the region.
     *
     * @param src    source
     * @param srcOff first index read
     * @param off    first byte written in the region
     * @param len    bytes
     */
    void copyFrom(byte[] src, int srcOff, int off, int len);

    /**
     * Copies whole doubles out of the region.
     *
     * @param off    byte offset of the first double in the region
     * @param dst    destination
     * @param dstOff first index written
     * @param count  doubles
     */
    void copyTo(int off, double[] dst, int dstOff, int count);

    /**
     * Copies whole doubles into the region.
     *
     * @param src    source
     * @param srcOff first index read
     * @param off    byte offset of the first double written in the region
     * @param count  doubles
     */
    void copyFrom(double[] src, int srcOff, int off, int count);

    /**
     * Copies whole longs out of the region.
     *
     * @param off    byte offset of the first long in the region
     * @param dst    destination
     * @param dstOff first index written
     * @param count  longs
     */
    void copyTo(int off, long[] dst, int dstOff, int count);

    /**
     * Copies whole longs into the region.
     *
     * @param src    source
     * @param srcOff first index read
     * @param off    byte offset of the first long written in the region
     * @param count  longs
     */
    void copyFrom(long[] src, int srcOff, int off, int count);

    /**
     * Copies bytes to another region, of any backend; overlapping ranges behave like
     * {@link System#arraycopy}.
     *
     * @param off    first byte in this region
     * @param dst    destination region
     * @param dstOff first byte written in {@code dst}
     * @param len    bytes
     */
    void copyTo(int off, Region dst, int dstOff, int len);

    /**
     * Sets bytes to one value.
     *
     * @param off   first byte
     * @param len   bytes
     * @param value the byte stored
     */
    void fill(int off, int len, byte value);

    /**
     * @return a little-endian {@link ByteBuffer} over exactly this region's memory, position 0,
     *         limit {@link #length()}; writes through it change the segment
     */
    ByteBuffer asByteBuffer();
}
