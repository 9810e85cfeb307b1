package dev.ferrite.backend.ffm.impl;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.SegmentMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The {@code ffm} backend's primitives: {@link MemorySegment} accesses to the pool's mapping (the
 * base) at an offset (the position), each bounds- and liveness-checked by the JDK as well. The
 * layouts are constants, so the JIT folds them. The walk and its checks are
 * {@link AbstractSegment}'s.
 */
final class FfmSegment extends AbstractSegment {

    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(LITTLE_ENDIAN);
    private static final VarHandle INT_ATOMIC = ValueLayout.JAVA_INT.withOrder(LITTLE_ENDIAN).varHandle();
    private static final VarHandle LONG_ATOMIC = ValueLayout.JAVA_LONG.withOrder(LITTLE_ENDIAN).varHandle();

    /**
     * Zeroing up to this many bytes copies from {@link #ZEROS}: no slice object per call (the
     * slice's {@code dup} ran as a call of its own in a queue consumer's profile), and per call
     * on JDK 25 6.0 to 6.3 against 6.5 ns for 64 bytes.
     */
    private static final int ZEROS_LENGTH = 4096;
    private static final MemorySegment ZEROS = MemorySegment.ofArray(new byte[ZEROS_LENGTH]);

    FfmSegment(SegmentMemory memory) {
        super(memory);
    }

    private static MemorySegment segment(Object base) {
        return (MemorySegment) base;
    }

    private static ValueLayout layoutOf(Object array) {
        return array instanceof byte[] ? BYTE : array instanceof long[] ? LONG : DOUBLE;
    }

    @Override
    protected byte loadByte(Object base, long pos) {
        return segment(base).get(BYTE, pos);
    }

    @Override
    protected void storeByte(Object base, long pos, byte v) {
        segment(base).set(BYTE, pos, v);
    }

    @Override
    protected short loadShort(Object base, long pos) {
        return segment(base).get(SHORT, pos);
    }

    @Override
    protected void storeShort(Object base, long pos, short v) {
        segment(base).set(SHORT, pos, v);
    }

    @Override
    protected int loadInt(Object base, long pos) {
        return segment(base).get(INT, pos);
    }

    @Override
    protected void storeInt(Object base, long pos, int v) {
        segment(base).set(INT, pos, v);
    }

    @Override
    protected long loadLong(Object base, long pos) {
        return segment(base).get(LONG, pos);
    }

    @Override
    protected void storeLong(Object base, long pos, long v) {
        segment(base).set(LONG, pos, v);
    }

    @Override
    protected double loadDouble(Object base, long pos) {
        return segment(base).get(DOUBLE, pos);
    }

    @Override
    protected void storeDouble(Object base, long pos, double v) {
        segment(base).set(DOUBLE, pos, v);
    }

    @Override
    protected int loadIntVolatile(Object base, long pos) {
        return (int) INT_ATOMIC.getVolatile(segment(base), pos);
    }

    @Override
    protected void storeIntVolatile(Object base, long pos, int v) {
        INT_ATOMIC.setVolatile(segment(base), pos, v);
    }

    @Override
    protected void storeIntRelease(Object base, long pos, int v) {
        INT_ATOMIC.setRelease(segment(base), pos, v);
    }

    @Override
    protected boolean casInt(Object base, long pos, int expect, int update) {
        return INT_ATOMIC.compareAndSet(segment(base), pos, expect, update);
    }

    @Override
    protected int fetchAddInt(Object base, long pos, int delta) {
        return (int) INT_ATOMIC.getAndAdd(segment(base), pos, delta);
    }

    @Override
    protected long loadLongVolatile(Object base, long pos) {
        return (long) LONG_ATOMIC.getVolatile(segment(base), pos);
    }

    @Override
    protected void storeLongVolatile(Object base, long pos, long v) {
        LONG_ATOMIC.setVolatile(segment(base), pos, v);
    }

    @Override
    protected void storeLongRelease(Object base, long pos, long v) {
        LONG_ATOMIC.setRelease(segment(base), pos, v);
    }

    @Override
    protected boolean casLong(Object base, long pos, long expect, long update) {
        return LONG_ATOMIC.compareAndSet(segment(base), pos, expect, update);
    }

    @Override
    protected long fetchAddLong(Object base, long pos, long delta) {
        return (long) LONG_ATOMIC.getAndAdd(segment(base), pos, delta);
    }

    @Override
    protected void copyToArray(Object base, long pos, Object array, int index, int count) {
        MemorySegment.copy(segment(base), layoutOf(array), pos, array, index, count);
    }

    @Override
    protected void copyFromArray(Object array, int index, int count, Object base, long pos) {
        MemorySegment.copy(array, index, segment(base), layoutOf(array), pos, count);
    }

    @Override
    protected void copyMemory(Object srcBase, long srcPos, Object dstBase, long dstPos, int len) {
        // Overlapping ranges of one mapping copy as if through a temporary buffer.
        MemorySegment.copy(segment(srcBase), srcPos, segment(dstBase), dstPos, len);
    }

    @Override
    protected void fillMemory(Object base, long pos, int len, byte value) {
        if (value == 0 && len <= ZEROS_LENGTH) {
            MemorySegment.copy(ZEROS, 0, segment(base), pos, len);
            return;
        }
        segment(base).asSlice(pos, len).fill(value);
    }
}
