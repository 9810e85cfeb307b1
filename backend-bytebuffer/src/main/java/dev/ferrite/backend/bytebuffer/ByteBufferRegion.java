package dev.ferrite.backend.bytebuffer;

import dev.ferrite.OutOfBoundsException;
import dev.ferrite.Region;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A region as a little-endian buffer slice of exactly its bytes. The JDK checks every access;
 * its {@link IndexOutOfBoundsException} is turned into Ferrite's {@link OutOfBoundsException}
 * (a handler costs nothing until it runs).
 */
final class ByteBufferRegion implements Region {

    private final ByteBuffer buffer;
    private final long segmentOffset;

    ByteBufferRegion(ByteBuffer buffer, long segmentOffset) {
        this.buffer = buffer;
        this.segmentOffset = segmentOffset;
    }

    private OutOfBoundsException outside(long off, long len, RuntimeException cause) {
        return new OutOfBoundsException("region offset " + off + " length " + len + " is outside a region of "
                + buffer.capacity() + " bytes", cause);
    }

    @Override
    public long segmentOffset() {
        return segmentOffset;
    }

    @Override
    public int length() {
        return buffer.capacity();
    }

    @Override
    public byte getByte(int off) {
        try {
            return buffer.get(off);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 1, e);
        }
    }

    @Override
    public void putByte(int off, byte v) {
        try {
            buffer.put(off, v);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 1, e);
        }
    }

    @Override
    public int getInt(int off) {
        try {
            return buffer.getInt(off);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 4, e);
        }
    }

    @Override
    public void putInt(int off, int v) {
        try {
            buffer.putInt(off, v);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 4, e);
        }
    }

    @Override
    public long getLong(int off) {
        try {
            return buffer.getLong(off);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8, e);
        }
    }

    @Override
    public void putLong(int off, long v) {
        try {
            buffer.putLong(off, v);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8, e);
        }
    }

    @Override
    public double getDouble(int off) {
        try {
            return buffer.getDouble(off);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8, e);
        }
    }

    @Override
    public void putDouble(int off, double v) {
        try {
            buffer.putDouble(off, v);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8, e);
        }
    }

    @Override
    public void copyTo(int off, byte[] dst, int dstOff, int len) {
        try {
            buffer.get(off, dst, dstOff, len);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, len, e);
        }
    }

    @Override
    public void copyFrom(byte[] src, int srcOff, int off, int len) {
        try {
            buffer.put(off, src, srcOff, len);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, len, e);
        }
    }

    private ByteBuffer view(int off, long bytes) {
        if ((off | bytes | (buffer.capacity() - bytes - off)) < 0) {
            throw outside(off, bytes, null);
        }
        return buffer.slice(off, (int) bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void copyTo(int off, double[] dst, int dstOff, int count) {
        try {
            view(off, 8L * count).asDoubleBuffer().get(dst, dstOff, count);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8L * count, e);
        }
    }

    @Override
    public void copyFrom(double[] src, int srcOff, int off, int count) {
        try {
            view(off, 8L * count).asDoubleBuffer().put(src, srcOff, count);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8L * count, e);
        }
    }

    @Override
    public void copyTo(int off, long[] dst, int dstOff, int count) {
        try {
            view(off, 8L * count).asLongBuffer().get(dst, dstOff, count);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8L * count, e);
        }
    }

    @Override
    public void copyFrom(long[] src, int srcOff, int off, int count) {
        try {
            view(off, 8L * count).asLongBuffer().put(src, srcOff, count);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, 8L * count, e);
        }
    }

    @Override
    public void copyTo(int off, Region dst, int dstOff, int len) {
        try {
            // Direct buffers copy with memmove, so overlapping regions of one segment are fine.
            dst.asByteBuffer().put(dstOff, buffer, off, len);
        } catch (IndexOutOfBoundsException e) {
            throw outside(off, len, e);
        }
    }

    @Override
    public void fill(int off, int len, byte value) {
        if ((off | len | (buffer.capacity() - len - off)) < 0) {
            throw outside(off, len, null);
        }
        long pattern = (value & 0xFFL) * 0x0101010101010101L;
        int end = off + len;
        int i = off;
        for (; i + 8 <= end; i += 8) {
            buffer.putLong(i, pattern);
        }
        for (; i < end; i++) {
            buffer.put(i, value);
        }
    }

    @Override
    public ByteBuffer asByteBuffer() {
        return buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }
}
