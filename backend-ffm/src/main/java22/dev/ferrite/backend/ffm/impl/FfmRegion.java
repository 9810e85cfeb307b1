package dev.ferrite.backend.ffm.impl;

import static dev.ferrite.backend.ffm.impl.FfmSegment.BYTE;
import static dev.ferrite.backend.ffm.impl.FfmSegment.DOUBLE;
import static dev.ferrite.backend.ffm.impl.FfmSegment.INT;
import static dev.ferrite.backend.ffm.impl.FfmSegment.LONG;

import dev.ferrite.OutOfBoundsException;
import dev.ferrite.Region;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A region as a slice of the pool's mapped segment. The JDK checks every access; its
 * {@link IndexOutOfBoundsException} becomes Ferrite's {@link OutOfBoundsException} (a handler
 * costs nothing until it runs).
 */
final class FfmRegion implements Region {

    private final MemorySegment slice;
    private final long segmentOffset;
    private final int length;

    FfmRegion(MemorySegment slice, long segmentOffset) {
        this.slice = slice;
        this.segmentOffset = segmentOffset;
        this.length = (int) slice.byteSize();
    }

    private OutOfBoundsException outside(long off, long len, RuntimeException cause) {
        return new OutOfBoundsException("region offset " + off + " length " + len + " is outside a region of "
                + length + " bytes", cause);
    }

    @Override
    public long segmentOffset() {
        return segmentOffset;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public byte getByte(int off) {
        try {
            return slice.get(BYTE, off);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 1, e);
        }
    }

    @Override
    public void putByte(int off, byte v) {
        try {
            slice.set(BYTE, off, v);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 1, e);
        }
    }

    @Override
    public int getInt(int off) {
        try {
            return slice.get(INT, off);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 4, e);
        }
    }

    @Override
    public void putInt(int off, int v) {
        try {
            slice.set(INT, off, v);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 4, e);
        }
    }

    @Override
    public long getLong(int off) {
        try {
            return slice.get(LONG, off);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8, e);
        }
    }

    @Override
    public void putLong(int off, long v) {
        try {
            slice.set(LONG, off, v);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8, e);
        }
    }

    @Override
    public double getDouble(int off) {
        try {
            return slice.get(DOUBLE, off);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8, e);
        }
    }

    @Override
    public void putDouble(int off, double v) {
        try {
            slice.set(DOUBLE, off, v);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8, e);
        }
    }

    @Override
    public void copyTo(int off, byte[] dst, int dstOff, int len) {
        try {
            MemorySegment.copy(slice, BYTE, off, dst, dstOff, len);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, len, e);
        }
    }

    @Override
    public void copyFrom(byte[] src, int srcOff, int off, int len) {
        try {
            MemorySegment.copy(src, srcOff, slice, BYTE, off, len);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, len, e);
        }
    }

    @Override
    public void copyTo(int off, double[] dst, int dstOff, int count) {
        try {
            MemorySegment.copy(slice, DOUBLE, off, dst, dstOff, count);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8L * count, e);
        }
    }

    @Override
    public void copyFrom(double[] src, int srcOff, int off, int count) {
        try {
            MemorySegment.copy(src, srcOff, slice, DOUBLE, off, count);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8L * count, e);
        }
    }

    @Override
    public void copyTo(int off, long[] dst, int dstOff, int count) {
        try {
            MemorySegment.copy(slice, LONG, off, dst, dstOff, count);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8L * count, e);
        }
    }

    @Override
    public void copyFrom(long[] src, int srcOff, int off, int count) {
        try {
            MemorySegment.copy(src, srcOff, slice, LONG, off, count);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8L * count, e);
        }
    }

    @Override
    public void copyTo(int off, Region dst, int dstOff, int len) {
        try {
            if (dst instanceof FfmRegion other) {
                // Overlapping slices of one mapping copy as if through a temporary buffer.
                MemorySegment.copy(slice, off, other.slice, dstOff, len);
            } else {
                dst.asByteBuffer().put(dstOff, slice.asByteBuffer(), off, len);
            }
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, len, e);
        }
    }

    @Override
    public void fill(int off, int len, byte value) {
        try {
            slice.asSlice(off, len).fill(value);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, len, e);
        }
    }

    @Override
    public ByteBuffer asByteBuffer() {
        return slice.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }
}
