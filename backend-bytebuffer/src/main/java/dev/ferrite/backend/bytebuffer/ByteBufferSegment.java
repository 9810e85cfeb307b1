package dev.ferrite.backend.bytebuffer;

import dev.ferrite.Region;
import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.SegmentMemory;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A segment handle over one buffer slice per chunk. Every access is checked against the segment
 * (which also catches use after close) before the JDK checks it against the chunk. Values that
 * straddle two chunks take a byte-by-byte path behind one predictable branch. When the chunks lie
 * end to end in one extent (a fresh pool hands out ascending chunks), typed accesses go to one
 * slice over the whole segment, which the JIT can range-check once per loop.
 */
final class ByteBufferSegment extends AbstractSegment {

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final ByteBuffer[] chunks;
    /** One slice over the whole segment if its chunks are contiguous in one extent, else null. */
    private final ByteBuffer whole;
    private final int lastShort;
    private final int lastInt;
    private final int lastLong;

    ByteBufferSegment(SegmentMemory memory) {
        super(memory);
        ChunkBuffers table = (ChunkBuffers) memory.chunkTable();
        this.chunks = table.chunks();
        this.whole = table.whole();
        this.lastShort = (int) chunkSize - 2;
        this.lastInt = (int) chunkSize - 4;
        this.lastLong = (int) chunkSize - 8;
    }

    private ByteBuffer chunk(long off) {
        return chunks[(int) (off >>> chunkShift)];
    }

    @Override
    public byte getByte(long off) {
        check(off, 1);
        return chunk(off).get((int) (off & chunkMask));
    }

    @Override
    public void putByte(long off, byte v) {
        checkWrite(off, 1);
        chunk(off).put((int) (off & chunkMask), v);
    }

    @Override
    public short getShort(long off) {
        check(off, 2);
        if (whole != null) {
            return whole.getShort((int) off);
        }
        int p = (int) (off & chunkMask);
        if (p <= lastShort) {
            return chunk(off).getShort(p);
        }
        return (short) getStraddling(off, 2);
    }

    @Override
    public void putShort(long off, short v) {
        checkWrite(off, 2);
        if (whole != null) {
            whole.putShort((int) off, v);
            return;
        }
        int p = (int) (off & chunkMask);
        if (p <= lastShort) {
            chunk(off).putShort(p, v);
        } else {
            putStraddling(off, v, 2);
        }
    }

    @Override
    public char getChar(long off) {
        return (char) getShort(off);
    }

    @Override
    public void putChar(long off, char v) {
        putShort(off, (short) v);
    }

    @Override
    public int getInt(long off) {
        check(off, 4);
        if (whole != null) {
            return whole.getInt((int) off);
        }
        int p = (int) (off & chunkMask);
        if (p <= lastInt) {
            return chunk(off).getInt(p);
        }
        return (int) getStraddling(off, 4);
    }

    @Override
    public void putInt(long off, int v) {
        checkWrite(off, 4);
        if (whole != null) {
            whole.putInt((int) off, v);
            return;
        }
        int p = (int) (off & chunkMask);
        if (p <= lastInt) {
            chunk(off).putInt(p, v);
        } else {
            putStraddling(off, v, 4);
        }
    }

    @Override
    public long getLong(long off) {
        check(off, 8);
        if (whole != null) {
            return whole.getLong((int) off);
        }
        int p = (int) (off & chunkMask);
        if (p <= lastLong) {
            return chunk(off).getLong(p);
        }
        return getStraddling(off, 8);
    }

    @Override
    public void putLong(long off, long v) {
        checkWrite(off, 8);
        if (whole != null) {
            whole.putLong((int) off, v);
            return;
        }
        int p = (int) (off & chunkMask);
        if (p <= lastLong) {
            chunk(off).putLong(p, v);
        } else {
            putStraddling(off, v, 8);
        }
    }

    @Override
    public float getFloat(long off) {
        return Float.intBitsToFloat(getInt(off));
    }

    @Override
    public void putFloat(long off, float v) {
        putInt(off, Float.floatToRawIntBits(v));
    }

    @Override
    public double getDouble(long off) {
        check(off, 8);
        if (whole != null) {
            return whole.getDouble((int) off);
        }
        int p = (int) (off & chunkMask);
        if (p <= lastLong) {
            return chunk(off).getDouble(p);
        }
        return Double.longBitsToDouble(getStraddling(off, 8));
    }

    @Override
    public void putDouble(long off, double v) {
        checkWrite(off, 8);
        if (whole != null) {
            whole.putDouble((int) off, v);
            return;
        }
        int p = (int) (off & chunkMask);
        if (p <= lastLong) {
            chunk(off).putDouble(p, v);
        } else {
            putStraddling(off, Double.doubleToRawLongBits(v), 8);
        }
    }

    @Override
    public int getIntVolatile(long off) {
        checkAtomic(off, 4);
        return (int) INT.getVolatile(chunk(off), (int) (off & chunkMask));
    }

    @Override
    public void putIntVolatile(long off, int v) {
        checkAtomicWrite(off, 4);
        INT.setVolatile(chunk(off), (int) (off & chunkMask), v);
    }

    @Override
    public void putIntOrdered(long off, int v) {
        checkAtomicWrite(off, 4);
        INT.setRelease(chunk(off), (int) (off & chunkMask), v);
    }

    @Override
    public boolean compareAndSetInt(long off, int expect, int update) {
        checkAtomicWrite(off, 4);
        return INT.compareAndSet(chunk(off), (int) (off & chunkMask), expect, update);
    }

    @Override
    public int getAndAddInt(long off, int delta) {
        checkAtomicWrite(off, 4);
        return (int) INT.getAndAdd(chunk(off), (int) (off & chunkMask), delta);
    }

    @Override
    public long getLongVolatile(long off) {
        checkAtomic(off, 8);
        return (long) LONG.getVolatile(chunk(off), (int) (off & chunkMask));
    }

    @Override
    public void putLongVolatile(long off, long v) {
        checkAtomicWrite(off, 8);
        LONG.setVolatile(chunk(off), (int) (off & chunkMask), v);
    }

    @Override
    public void putLongOrdered(long off, long v) {
        checkAtomicWrite(off, 8);
        LONG.setRelease(chunk(off), (int) (off & chunkMask), v);
    }

    @Override
    public boolean compareAndSetLong(long off, long expect, long update) {
        checkAtomicWrite(off, 8);
        return LONG.compareAndSet(chunk(off), (int) (off & chunkMask), expect, update);
    }

    @Override
    public long getAndAddLong(long off, long delta) {
        checkAtomicWrite(off, 8);
        return (long) LONG.getAndAdd(chunk(off), (int) (off & chunkMask), delta);
    }

    @Override
    protected Region chunkRegion(int chunk, int offsetInChunk, int length, long segmentOffset) {
        return new ByteBufferRegion(chunks[chunk].slice(offsetInChunk, length).order(ByteOrder.LITTLE_ENDIAN),
                segmentOffset);
    }
}
