package dev.ferrite.backend.unsafe;

import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.SegmentMemory;
import sun.misc.Unsafe;

/**
 * The {@code unsafe} backend's primitives: {@code sun.misc.Unsafe} on absolute addresses (the
 * chunk table's positions; bases are unused). The walk and its checks are
 * {@link AbstractSegment}'s.
 */
final class UnsafeSegment extends AbstractSegment {

    private static final Unsafe U = UnsafeAccess.UNSAFE;
    // Constants, not Unsafe.arrayBaseOffset(array.getClass()) per copy: that is a native call the
    // JIT does not fold when the class is not a constant, and costs more than a 64-byte copy.
    private static final long BYTES_BASE = U.arrayBaseOffset(byte[].class);
    private static final long LONGS_BASE = U.arrayBaseOffset(long[].class);
    private static final long DOUBLES_BASE = U.arrayBaseOffset(double[].class);

    UnsafeSegment(SegmentMemory memory) {
        super(memory);
    }

    @Override
    protected byte loadByte(Object base, long pos) {
        return U.getByte(pos);
    }

    @Override
    protected void storeByte(Object base, long pos, byte v) {
        U.putByte(pos, v);
    }

    @Override
    protected short loadShort(Object base, long pos) {
        return U.getShort(pos);
    }

    @Override
    protected void storeShort(Object base, long pos, short v) {
        U.putShort(pos, v);
    }

    @Override
    protected int loadInt(Object base, long pos) {
        return U.getInt(pos);
    }

    @Override
    protected void storeInt(Object base, long pos, int v) {
        U.putInt(pos, v);
    }

    @Override
    protected long loadLong(Object base, long pos) {
        return U.getLong(pos);
    }

    @Override
    protected void storeLong(Object base, long pos, long v) {
        U.putLong(pos, v);
    }

    @Override
    protected double loadDouble(Object base, long pos) {
        return U.getDouble(pos);
    }

    @Override
    protected void storeDouble(Object base, long pos, double v) {
        U.putDouble(pos, v);
    }

    @Override
    protected int loadIntVolatile(Object base, long pos) {
        return U.getIntVolatile(null, pos);
    }

    @Override
    protected void storeIntVolatile(Object base, long pos, int v) {
        U.putIntVolatile(null, pos, v);
    }

    @Override
    protected void storeIntRelease(Object base, long pos, int v) {
        U.putOrderedInt(null, pos, v);
    }

    @Override
    protected boolean casInt(Object base, long pos, int expect, int update) {
        return U.compareAndSwapInt(null, pos, expect, update);
    }

    @Override
    protected int fetchAddInt(Object base, long pos, int delta) {
        return U.getAndAddInt(null, pos, delta);
    }

    @Override
    protected long loadLongVolatile(Object base, long pos) {
        return U.getLongVolatile(null, pos);
    }

    @Override
    protected void storeLongVolatile(Object base, long pos, long v) {
        U.putLongVolatile(null, pos, v);
    }

    @Override
    protected void storeLongRelease(Object base, long pos, long v) {
        U.putOrderedLong(null, pos, v);
    }

    @Override
    protected boolean casLong(Object base, long pos, long expect, long update) {
        return U.compareAndSwapLong(null, pos, expect, update);
    }

    @Override
    protected long fetchAddLong(Object base, long pos, long delta) {
        return U.getAndAddLong(null, pos, delta);
    }

    @Override
    protected void copyToArray(Object base, long pos, Object array, int index, int count) {
        int shift = elementShift(array);
        U.copyMemory(null, pos, array, arrayBase(array) + ((long) index << shift), (long) count << shift);
    }

    @Override
    protected void copyFromArray(Object array, int index, int count, Object base, long pos) {
        int shift = elementShift(array);
        U.copyMemory(array, arrayBase(array) + ((long) index << shift), null, pos, (long) count << shift);
    }

    private static long arrayBase(Object array) {
        return array instanceof byte[] ? BYTES_BASE : array instanceof long[] ? LONGS_BASE : DOUBLES_BASE;
    }

    @Override
    protected void copyMemory(Object srcBase, long srcPos, Object dstBase, long dstPos, int len) {
        // copyMemory is memmove-safe: overlapping ranges of one segment are fine.
        U.copyMemory(srcPos, dstPos, len);
    }

    @Override
    protected void fillMemory(Object base, long pos, int len, byte value) {
        U.setMemory(pos, len, value);
    }
}
