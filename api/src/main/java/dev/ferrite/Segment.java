package dev.ferrite;

import java.nio.ByteBuffer;

/**
 * A handle on an allocation of any size made of a pool's chunks, addressed by {@code long} byte
 * offsets from 0 to {@link #size()}.
 *
 * <p><b>Layout.</b> Values are little-endian. A typed access whose bytes straddle two chunks
 * works (a slower path behind one predictable branch). Volatile, ordered and atomic accesses need
 * natural alignment (offset a multiple of 4 for {@code int}, 8 for {@code long}) and throw
 * {@link MisalignedAccessException} otherwise; aligned, they never straddle chunks.
 *
 * <p><b>Contents.</b> A new segment's bytes are unspecified, like {@code malloc}: fresh memory
 * reads as zero, recycled chunks keep what they held. Use {@link #fill} to clear.
 *
 * <p><b>Checks.</b> Every backend checks every access by default: an offset or length outside
 * the segment throws {@link OutOfBoundsException} (overflow-proof: {@code Long.MAX_VALUE} lengths
 * included), an access through a closed handle or a handle of a closed pool throws
 * {@link SegmentClosedException}, and a write to a read-only pool throws {@link FerriteException};
 * a refused call changes nothing. With {@code -Dferrite.checks=false} single typed accesses are
 * not checked (on {@code unsafe} a bad offset may then corrupt memory or crash the JVM); writes
 * to a read-only pool, bulk operations and volatile, ordered and atomic accesses stay checked.
 *
 * <p><b>Handles and reference counting.</b> {@link #retain()} returns another handle on the same
 * memory. Each handle's {@link #close()} gives back its one reference; when the last reference is
 * gone (and, for a named segment, its name was deleted) the chunks return to the pool.
 *
 * <p><b>Threads.</b> Accesses from several threads are as safe as accesses to an array: plain
 * accesses are not ordered, the volatile/ordered/atomic ones are. {@link #retain()} and
 * {@link #close()} are thread-safe. Closing a handle (or its pool) while another thread still uses
 * that same handle: with checks on, every access that starts after {@code close()} returned throws
 * {@link SegmentClosedException}; an access that had already passed its check runs to its end and
 * never crashes the JVM (a pool closed while handles were open unmaps their memory only once they
 * are garbage-collected), but if that was the last handle, the chunks may already belong to
 * another segment, here or in another process, and such a late write lands there. With checks off,
 * accesses after close are not refused at all. So a handle must not be closed while another thread
 * uses it: give each thread its own handle ({@link #retain()}) and let each close its own.
 */
public interface Segment extends AutoCloseable {

    /** @return the size in bytes, as allocated (not rounded up to chunks) */
    long size();

    /** @return the pool this segment's chunks belong to */
    ChunkPool pool();

    /** @return the segment's name if it was allocated with one, else null */
    String name();

    /**
     * @param off byte offset in [0, size - 1]
     * @return the byte at {@code off}
     */
    byte getByte(long off);

    /**
     * @param off byte offset in [0, size - 1]
     * @param v   the value
     */
    void putByte(long off, byte v);

    /**
     * @param off byte offset in [0, size - 2]
     * @return the little-endian short at {@code off}
     */
    short getShort(long off);

    /**
     * @param off byte offset in [0, size - 2]
     * @param v   the value
     */
    void putShort(long off, short v);

    /**
     * @param off byte offset in [0, size - 2]
     * @return the little-endian char at {@code off}
     */
    char getChar(long off);

    /**
     * @param off byte offset in [0, size - 2]
     * @param v   the value
     */
    void putChar(long off, char v);

    /**
     * @param off byte offset in [0, size - 4]
     * @return the little-endian int at {@code off}
     */
    int getInt(long off);

    /**
     * @param off byte offset in [0, size - 4]
     * @param v   the value
     */
    void putInt(long off, int v);

    /**
     * @param off byte offset in [0, size - 8]
     * @return the little-endian long at {@code off}
     */
    long getLong(long off);

    /**
     * @param off byte offset in [0, size - 8]
     * @param v   the value
     */
    void putLong(long off, long v);

    /**
     * @param off byte offset in [0, size - 4]
     * @return the float at {@code off}
     */
    float getFloat(long off);

    /**
     * @param off byte offset in [0, size - 4]
     * @param v   the value
     */
    void putFloat(long off, float v);

    /**
     * @param off byte offset in [0, size - 8]
     * @return the double at {@code off}
     */
    double getDouble(long off);

    /**
     * @param off byte offset in [0, size - 8]
     * @param v   the value
     */
    void putDouble(long off, double v);

    /**
     * Volatile read.
     *
     * @param off byte offset, a multiple of 4 in [0, size - 4]
     * @return the int at {@code off}
     */
    int getIntVolatile(long off);

    /**
     * Volatile write.
     *
     * @param off byte offset, a multiple of 4 in [0, size - 4]
     * @param v   the value
     */
    void putIntVolatile(long off, int v);

    /**
     * Ordered (release) write: earlier writes become visible before this one; cheaper than volatile.
     *
     * @param off byte offset, a multiple of 4 in [0, size - 4]
     * @param v   the value
     */
    void putIntOrdered(long off, int v);

    /**
     * Atomic compare-and-set with volatile semantics.
     *
     * @param off    byte offset, a multiple of 4 in [0, size - 4]
     * @param expect the value expected
     * @param update the new value
     * @return whether the value was {@code expect} and is now {@code update}
     */
    boolean compareAndSetInt(long off, int expect, int update);

    /**
     * Atomic add with volatile semantics.
     *
     * @param off   byte offset, a multiple of 4 in [0, size - 4]
     * @param delta the amount to add
     * @return the value before the add
     */
    int getAndAddInt(long off, int delta);

    /**
     * Volatile read.
     *
     * @param off byte offset, a multiple of 8 in [0, size - 8]
     * @return the long at {@code off}
     */
    long getLongVolatile(long off);

    /**
     * Volatile write.
     *
     * @param off byte offset, a multiple of 8 in [0, size - 8]
     * @param v   the value
     */
    void putLongVolatile(long off, long v);

    /**
     * Ordered (release) write.
     *
     * @param off byte offset, a multiple of 8 in [0, size - 8]
     * @param v   the value
     */
    void putLongOrdered(long off, long v);

    /**
     * Atomic compare-and-set with volatile semantics.
     *
     * @param off    byte offset, a multiple of 8 in [0, size - 8]
     * @param expect the value expected
     * @param update the new value
     * @return whether the value was {@code expect} and is now {@code update}
     */
    boolean compareAndSetLong(long off, long expect, long update);

    /**
     * Atomic add with volatile semantics.
     *
     * @param off   byte offset, a multiple of 8 in [0, size - 8]
     * @param delta the amount to add
     * @return the value before the add
     */
    long getAndAddLong(long off, long delta);

    /**
     * Copies bytes out of the segment, chunk by chunk.
     *
     * @param off    first byte to copy, {@code [off, off + len)} within the segment
     * @param dst    destination array
     * @param dstOff first index written in {@code dst}
     * @param len    bytes to copy, at least 0
     * @throws OutOfBoundsException if a range is outside the segment or the array
     */
    void copyTo(long off, byte[] dst, int dstOff, int len);

    /**
     * Copies bytes into the segment, chunk by chunk.
     *
     * @param src    source array
     * @param srcOff first index read in {@code src}
     * @param off    first byte written, {@code [off, off + len)} within the segment
     * @param len    bytes to copy, at least 0
     * @throws OutOfBoundsException if a range is outside the segment or the array
     */
    void copyFrom(byte[] src, int srcOff, long off, int len);

    /**
     * Copies doubles out of the segment.
     *
     * @param off    byte offset of the first double
     * @param dst    destination array
     * @param dstOff first index written in {@code dst}
     * @param count  doubles to copy (not bytes), at least 0
     * @throws OutOfBoundsException if a range is outside the segment or the array
     */
    void copyTo(long off, double[] dst, int dstOff, int count);

    /**
     * Copies doubles into the segment.
     *
     * @param src    source array
     * @param srcOff first index read in {@code src}
     * @param off    byte offset of the first double written
     * @param count  doubles to copy (not bytes), at least 0
     * @throws OutOfBoundsException if a range is outside the segment or the array
     */
    void copyFrom(double[] src, int srcOff, long off, int count);

    /**
     * Copies longs out of the segment.
     *
     * @param off    byte offset of the first long
     * @param dst    destination array
     * @param dstOff first index written in {@code dst}
     * @param count  longs to copy (not bytes), at least 0
     * @throws OutOfBoundsException if a range is outside the segment or the array
     */
    void copyTo(long off, long[] dst, int dstOff, int count);

    /**
     * Copies longs into the segment.
     *
     * @param src    source array
     * @param srcOff first index read in {@code src}
     * @param off    byte offset of the first long written
     * @param count  longs to copy (not bytes), at least 0
     * @throws OutOfBoundsException if a range is outside the segment or the array
     */
    void copyFrom(long[] src, int srcOff, long off, int count);

    /**
     * Copies {@code dst.remaining()} bytes from {@code off} into {@code dst}, advancing its position.
     *
     * @param off first byte copied
     * @param dst destination buffer, heap or direct
     * @throws OutOfBoundsException if {@code [off, off + dst.remaining())} is outside the segment
     */
    void copyTo(long off, ByteBuffer dst);

    /**
     * Copies {@code src.remaining()} bytes from {@code src} to {@code off}, advancing its position.
     *
     * @param src source buffer, heap or direct
     * @param off first byte written
     * @throws OutOfBoundsException if {@code [off, off + src.remaining())} is outside the segment
     */
    void copyFrom(ByteBuffer src, long off);

    /**
     * Copies bytes to another segment (or this one: overlapping ranges behave like
     * {@link System#arraycopy}), chunk by chunk, across backends too.
     *
     * @param off    first byte copied from this segment
     * @param dst    destination segment
     * @param dstOff first byte written in {@code dst}
     * @param len    bytes to copy, at least 0
     * @throws OutOfBoundsException if a range is outside its segment
     */
    void copyTo(long off, Segment dst, long dstOff, long len);

    /**
     * Sets every byte of {@code [off, off + len)} to {@code value}.
     *
     * @param off   first byte
     * @param len   bytes, at least 0
     * @param value the byte stored
     * @throws OutOfBoundsException if the range is outside the segment
     */
    void fill(long off, long len, byte value);

    /**
     * Hashes bytes in place, without copying them to the heap: XXH64 with seed 0, the same value
     * on every backend, JDK and process, and the same as over the same bytes in a {@code byte[]}.
     * Checked with checks on or off.
     *
     * @param off first byte
     * @param len bytes, at least 0
     * @return the 64-bit hash
     * @throws OutOfBoundsException   if the range is outside the segment
     * @throws SegmentClosedException if this handle or its pool is closed
     */
    long hash64(long off, long len);

    /**
     * Compares bytes in place with an array's, without copying them.
     *
     * @param off      first byte in this segment
     * @param other    the array
     * @param otherOff first byte in the array
     * @param len      bytes compared, at least 0
     * @return the index (from 0) of the first byte that differs, or -1 if all {@code len} are equal
     * @throws OutOfBoundsException   if a range is outside the segment or the array
     * @throws SegmentClosedException if this handle or its pool is closed
     */
    long mismatch(long off, byte[] other, int otherOff, int len);

    /**
     * Compares bytes in place with another segment's (or this one's), without copying them.
     *
     * @param off      first byte in this segment
     * @param other    the other segment
     * @param otherOff first byte in it
     * @param len      bytes compared, at least 0
     * @return the index (from 0) of the first byte that differs, or -1 if all {@code len} are equal
     * @throws OutOfBoundsException   if a range is outside its segment
     * @throws SegmentClosedException if either handle or its pool is closed
     */
    long mismatch(long off, Segment other, long otherOff, long len);

    /** @return a view of the whole segment as {@code size / 8} doubles, indexed by {@code long} */
    DoubleArray asDoubles();

    /** @return a view of the whole segment as {@code size / 8} longs, indexed by {@code long} */
    LongArray asLongs();

    /** @return a view of the whole segment as {@code size / 4} ints, indexed by {@code long} */
    IntArray asInts();

    /**
     * Contiguous per-chunk views covering {@code [off, off + len)} in order, for kernels that run
     * a plain inner loop per chunk. Every region but the first starts on a chunk boundary.
     *
     * @param off first byte covered
     * @param len bytes covered, at least 0
     * @return the regions, lazily made; each iteration walks them anew
     * @throws OutOfBoundsException if the range is outside the segment
     */
    Iterable<Region> regions(long off, long len);

    /**
     * Another handle on the same memory; the reference count grows by one.
     *
     * @return a new open handle, to be closed on its own
     * @throws SegmentClosedException if this handle is closed
     */
    Segment retain();

    /** @return how many handles on this memory are open */
    int refCount();

    /** @return whether this handle is closed */
    boolean isClosed();

    /**
     * Gives back this handle's reference; a second call is a no-op. When no handle remains (and
     * the segment has no name in its pool's directory) the chunks go back to the pool.
     */
    @Override
    void close();
}
