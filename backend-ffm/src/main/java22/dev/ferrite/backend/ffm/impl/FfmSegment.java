package dev.ferrite.backend.ffm.impl;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import dev.ferrite.Region;
import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.SegmentMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A segment handle over one mapped {@link MemorySegment} and a table of chunk offsets into it:
 * the chunk for an offset is {@code base[off >>> chunkShift]}, the position in it
 * {@code off & chunkMask}. The layouts are constants, so the JIT folds them. Every access is
 * checked against the segment (which also catches use after close) and by the JDK against the
 * mapping. Values that straddle two chunks take a byte-by-byte path behind one predictable branch.
 * When the chunks are consecutive in the mapping (a fresh pool hands out ascending chunks), typed
 * accesses skip the table: {@code start + off}, which the JIT can range-check once per loop.
 */
final class FfmSegment extends AbstractSegment {

    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LITTLE_ENDIAN);
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(LITTLE_ENDIAN);
    private static final VarHandle INT_ATOMIC = ValueLayout.JAVA_INT.withOrder(LITTLE_ENDIAN).varHandle();
    private static final VarHandle LONG_ATOMIC = ValueLayout.JAVA_LONG.withOrder(LITTLE_ENDIAN).varHandle();

    private final MemorySegment data;
    private final long[] base;
    /** Whether the chunks are consecutive in the mapping, so that byte {@code off} is at {@code start + off}. */
    private final boolean direct;
    private final long start;
    private final long lastShort;
    private final long lastInt;
    private final long lastLong;

    FfmSegment(SegmentMemory memory, MemorySegment data) {
        super(memory);
        this.data = data;
        this.base = (long[]) memory.chunkTable();
        this.direct = endToEnd(base, chunkSize);
        this.start = base.length == 0 ? 0 : base[0];
        this.lastShort = chunkSize - 2;
        this.lastInt = chunkSize - 4;
        this.lastLong = chunkSize - 8;
    }

    private long at(long off) {
        return base[(int) (off >>> chunkShift)] + (off & chunkMask);
    }

    @Override
    public byte getByte(long off) {
        check(off, 1);
        return data.get(BYTE, at(off));
    }

    @Override
    public void putByte(long off, byte v) {
        checkWrite(off, 1);
        data.set(BYTE, at(off), v);
    }

    @Override
    public short getShort(long off) {
        check(off, 2);
        if (direct) {
            return data.get(SHORT, start + off);
        }
        long p = off & chunkMask;
        if (p <= lastShort) {
            return data.get(SHORT, base[(int) (off >>> chunkShift)] + p);
        }
        return (short) getStraddling(off, 2);
    }

    @Override
    public void putShort(long off, short v) {
        checkWrite(off, 2);
        if (direct) {
            data.set(SHORT, start + off, v);
            return;
        }
        long p = off & chunkMask;
        if (p <= lastShort) {
            data.set(SHORT, base[(int) (off >>> chunkShift)] + p, v);
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
        if (direct) {
            return data.get(INT, start + off);
        }
        long p = off & chunkMask;
        if (p <= lastInt) {
            return data.get(INT, base[(int) (off >>> chunkShift)] + p);
        }
        return (int) getStraddling(off, 4);
    }

    @Override
    public void putInt(long off, int v) {
        checkWrite(off, 4);
        if (direct) {
            data.set(INT, start + off, v);
            return;
        }
        long p = off & chunkMask;
        if (p <= lastInt) {
            data.set(INT, base[(int) (off >>> chunkShift)] + p, v);
        } else {
            putStraddling(off, v, 4);
        }
    }

    @Override
    public long getLong(long off) {
        check(off, 8);
        if (direct) {
            return data.get(LONG, start + off);
        }
        long p = off & chunkMask;
        if (p <= lastLong) {
            return data.get(LONG, base[(int) (off >>> chunkShift)] + p);
        }
        return getStraddling(off, 8);
    }

    @Override
    public void putLong(long off, long v) {
        checkWrite(off, 8);
        if (direct) {
            data.set(LONG, start + off, v);
            return;
        }
        long p = off & chunkMask;
        if (p <= lastLong) {
            data.set(LONG, base[(int) (off >>> chunkShift)] + p, v);
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
        if (direct) {
            return data.get(DOUBLE, start + off);
        }
        long p = off & chunkMask;
        if (p <= lastLong) {
            return data.get(DOUBLE, base[(int) (off >>> chunkShift)] + p);
        }
        return Double.longBitsToDouble(getStraddling(off, 8));
    }

    @Override
    public void putDouble(long off, double v) {
        checkWrite(off, 8);
        if (direct) {
            data.set(DOUBLE, start + off, v);
            return;
        }
        long p = off & chunkMask;
        if (p <= lastLong) {
            data.set(DOUBLE, base[(int) (off >>> chunkShift)] + p, v);
        } else {
            putStraddling(off, Double.doubleToRawLongBits(v), 8);
        }
    }

    @Override
    public int getIntVolatile(long off) {
        checkAtomic(off, 4);
        return (int) INT_ATOMIC.getVolatile(data, at(off));
    }

    @Override
    public void putIntVolatile(long off, int v) {
        checkAtomicWrite(off, 4);
        INT_ATOMIC.setVolatile(data, at(off), v);
    }

    @Override
    public void putIntOrdered(long off, int v) {
        checkAtomicWrite(off, 4);
        INT_ATOMIC.setRelease(data, at(off), v);
    }

    @Override
    public boolean compareAndSetInt(long off, int expect, int update) {
        checkAtomicWrite(off, 4);
        return INT_ATOMIC.compareAndSet(data, at(off), expect, update);
    }

    @Override
    public int getAndAddInt(long off, int delta) {
        checkAtomicWrite(off, 4);
        return (int) INT_ATOMIC.getAndAdd(data, at(off), delta);
    }

    @Override
    public long getLongVolatile(long off) {
        checkAtomic(off, 8);
        return (long) LONG_ATOMIC.getVolatile(data, at(off));
    }

    @Override
    public void putLongVolatile(long off, long v) {
        checkAtomicWrite(off, 8);
        LONG_ATOMIC.setVolatile(data, at(off), v);
    }

    @Override
    public void putLongOrdered(long off, long v) {
        checkAtomicWrite(off, 8);
        LONG_ATOMIC.setRelease(data, at(off), v);
    }

    @Override
    public boolean compareAndSetLong(long off, long expect, long update) {
        checkAtomicWrite(off, 8);
        return LONG_ATOMIC.compareAndSet(data, at(off), expect, update);
    }

    @Override
    public long getAndAddLong(long off, long delta) {
        checkAtomicWrite(off, 8);
        return (long) LONG_ATOMIC.getAndAdd(data, at(off), delta);
    }

    @Override
    protected Region chunkRegion(int chunk, int offsetInChunk, int length, long segmentOffset) {
        return new FfmRegion(data.asSlice(base[chunk] + offsetInChunk, length), segmentOffset);
    }
}
