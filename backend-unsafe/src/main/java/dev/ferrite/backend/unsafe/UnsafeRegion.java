package dev.ferrite.backend.unsafe;

import dev.ferrite.OutOfBoundsException;
import dev.ferrite.Region;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import sun.misc.Unsafe;

/**
 * A region as a raw address and a length. Accesses are unchecked unless
 * {@code -Dferrite.checks=true}; bulk copies always check their ranges.
 */
final class UnsafeRegion implements Region {

    private static final Unsafe U = UnsafeAccess.UNSAFE;
    private static final boolean CHECKS = UnsafeBackend.CHECKS;

    private final long address;
    private final int length;
    private final long segmentOffset;
    private final MappedByteBuffer extent;
    private final int offsetInExtent;

    UnsafeRegion(long address, int length, long segmentOffset, MappedByteBuffer extent, int offsetInExtent) {
        this.address = address;
        this.length = length;
        this.segmentOffset = segmentOffset;
        this.extent = extent;
        this.offsetInExtent = offsetInExtent;
    }

    private void check(int off, int width) {
        if ((off | (length - width - off)) < 0) {
            throw outside(off, width);
        }
    }

    private void checkBulk(int off, long bytes, int arrayLength, int from, int count) {
        if ((off | bytes | (length - bytes - off)) < 0) {
            throw outside(off, bytes);
        }
        if ((from | count | (arrayLength - count - from)) < 0) {
            throw new OutOfBoundsException("array range [" + from + ", " + from + " + " + count
                    + ") is outside an array of length " + arrayLength);
        }
    }

    private OutOfBoundsException outside(int off, long len) {
        return new OutOfBoundsException("region offset " + off + " length " + len + " is outside a region of "
                + length + " bytes");
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
        if (CHECKS) {
            check(off, 1);
        }
        return U.getByte(address + off);
    }

    @Override
    public void putByte(int off, byte v) {
        if (CHECKS) {
            check(off, 1);
        }
        U.putByte(address + off, v);
    }

    @Override
    public int getInt(int off) {
        if (CHECKS) {
            check(off, 4);
        }
        return U.getInt(address + off);
    }

    @Override
    public void putInt(int off, int v) {
        if (CHECKS) {
            check(off, 4);
        }
        U.putInt(address + off, v);
    }

    @Override
    public long getLong(int off) {
        if (CHECKS) {
            check(off, 8);
        }
        return U.getLong(address + off);
    }

    @Override
    public void putLong(int off, long v) {
        if (CHECKS) {
            check(off, 8);
        }
        U.putLong(address + off, v);
    }

    @Override
    public double getDouble(int off) {
        if (CHECKS) {
            check(off, 8);
        }
        return U.getDouble(address + off);
    }

    @Override
    public void putDouble(int off, double v) {
        if (CHECKS) {
            check(off, 8);
        }
        U.putDouble(address + off, v);
    }

    @Override
    public void copyTo(int off, byte[] dst, int dstOff, int len) {
        checkBulk(off, len, dst.length, dstOff, len);
        U.copyMemory(null, address + off, dst, Unsafe.ARRAY_BYTE_BASE_OFFSET + (long) dstOff, len);
    }

    @Override
    public void copyFrom(byte[] src, int srcOff, int off, int len) {
        checkBulk(off, len, src.length, srcOff, len);
        U.copyMemory(src, Unsafe.ARRAY_BYTE_BASE_OFFSET + (long) srcOff, null, address + off, len);
    }

    @Override
    public void copyTo(int off, double[] dst, int dstOff, int count) {
        checkBulk(off, 8L * count, dst.length, dstOff, count);
        U.copyMemory(null, address + off, dst, Unsafe.ARRAY_DOUBLE_BASE_OFFSET + 8L * dstOff, 8L * count);
    }

    @Override
    public void copyFrom(double[] src, int srcOff, int off, int count) {
        checkBulk(off, 8L * count, src.length, srcOff, count);
        U.copyMemory(src, Unsafe.ARRAY_DOUBLE_BASE_OFFSET + 8L * srcOff, null, address + off, 8L * count);
    }

    @Override
    public void copyTo(int off, long[] dst, int dstOff, int count) {
        checkBulk(off, 8L * count, dst.length, dstOff, count);
        U.copyMemory(null, address + off, dst, Unsafe.ARRAY_LONG_BASE_OFFSET + 8L * dstOff, 8L * count);
    }

    @Override
    public void copyFrom(long[] src, int srcOff, int off, int count) {
        checkBulk(off, 8L * count, src.length, srcOff, count);
        U.copyMemory(src, Unsafe.ARRAY_LONG_BASE_OFFSET + 8L * srcOff, null, address + off, 8L * count);
    }

    @Override
    public void copyTo(int off, Region dst, int dstOff, int len) {
        if ((off | len | (length - len - off)) < 0) {
            throw outside(off, len);
        }
        if ((dstOff | len | (dst.length() - len - dstOff)) < 0) {
            throw new OutOfBoundsException("destination offset " + dstOff + " length " + len
                    + " is outside a region of " + dst.length() + " bytes");
        }
        if (dst instanceof UnsafeRegion) {
            // copyMemory is memmove-safe, so overlapping regions of one segment are fine.
            U.copyMemory(null, address + off, null, ((UnsafeRegion) dst).address + dstOff, len);
        } else {
            dst.asByteBuffer().put(dstOff, asByteBuffer(), off, len);
        }
    }

    @Override
    public void fill(int off, int len, byte value) {
        if ((off | len | (length - len - off)) < 0) {
            throw outside(off, len);
        }
        U.setMemory(address + off, len, value);
    }

    @Override
    public ByteBuffer asByteBuffer() {
        return extent.slice(offsetInExtent, length).order(ByteOrder.LITTLE_ENDIAN);
    }
}
