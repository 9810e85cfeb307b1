package dev.ferrite.backend.unsafe;

import dev.ferrite.Region;
import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.SegmentMemory;
import sun.misc.Unsafe;

/**
 * A segment handle that reaches its chunks through a table of base addresses: the chunk for an
 * offset is {@code base[off >>> chunkShift]}, the position in it {@code off & chunkMask}. Values
 * that straddle two chunks take a byte-by-byte path behind one predictable branch. When the
 * chunks happen to lie end to end in memory (a fresh pool hands out ascending chunks of one
 * extent), typed accesses skip the table: {@code direct + off}, a branch on a final field that the
 * JIT hoists out of loops. Range and closed checks only with {@code -Dferrite.checks=true}; atomic
 * accesses are always checked, since a misaligned one could silently straddle chunks.
 */
final class UnsafeSegment extends AbstractSegment {

    private static final Unsafe U = UnsafeAccess.UNSAFE;
    private static final boolean CHECKS = UnsafeBackend.CHECKS;

    private final long[] base;
    /** Address of byte 0 if the chunks are contiguous in memory, else 0. */
    private final long direct;
    private final long lastShort;
    private final long lastInt;
    private final long lastLong;

    UnsafeSegment(SegmentMemory memory) {
        super(memory);
        this.base = (long[]) memory.chunkTable();
        this.direct = endToEnd(base, chunkSize) ? base[0] : 0;
        this.lastShort = chunkSize - 2;
        this.lastInt = chunkSize - 4;
        this.lastLong = chunkSize - 8;
    }

    private long address(long off) {
        return base[(int) (off >>> chunkShift)] + (off & chunkMask);
    }

    // Aligned atomics never straddle chunks; a contiguous segment skips the table as plain accesses do.
    private long atomicAddress(long off) {
        return direct != 0 ? direct + off : address(off);
    }

    @Override
    public byte getByte(long off) {
        if (CHECKS) {
            check(off, 1);
        }
        return U.getByte(address(off));
    }

    @Override
    public void putByte(long off, byte v) {
        if (CHECKS) {
            checkWrite(off, 1);
        }
        U.putByte(address(off), v);
    }

    @Override
    public short getShort(long off) {
        if (CHECKS) {
            check(off, 2);
        }
        if (direct != 0) {
            return U.getShort(direct + off);
        }
        long p = off & chunkMask;
        if (p <= lastShort) {
            return U.getShort(base[(int) (off >>> chunkShift)] + p);
        }
        return (short) getStraddling(off, 2);
    }

    @Override
    public void putShort(long off, short v) {
        if (CHECKS) {
            checkWrite(off, 2);
        }
        if (direct != 0) {
            U.putShort(direct + off, v);
            return;
        }
        long p = off & chunkMask;
        if (p <= lastShort) {
            U.putShort(base[(int) (off >>> chunkShift)] + p, v);
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
        if (CHECKS) {
            check(off, 4);
        }
        if (direct != 0) {
            return U.getInt(direct + off);
        }
        long p = off & chunkMask;
        if (p <= lastInt) {
            return U.getInt(base[(int) (off >>> chunkShift)] + p);
        }
        return (int) getStraddling(off, 4);
    }

    @Override
    public void putInt(long off, int v) {
        if (CHECKS) {
            checkWrite(off, 4);
        }
        if (direct != 0) {
            U.putInt(direct + off, v);
            return;
        }
        long p = off & chunkMask;
        if (p <= lastInt) {
            U.putInt(base[(int) (off >>> chunkShift)] + p, v);
        } else {
            putStraddling(off, v, 4);
        }
    }

    @Override
    public long getLong(long off) {
        if (CHECKS) {
            check(off, 8);
        }
        if (direct != 0) {
            return U.getLong(direct + off);
        }
        long p = off & chunkMask;
        if (p <= lastLong) {
            return U.getLong(base[(int) (off >>> chunkShift)] + p);
        }
        return getStraddling(off, 8);
    }

    @Override
    public void putLong(long off, long v) {
        if (CHECKS) {
            checkWrite(off, 8);
        }
        if (direct != 0) {
            U.putLong(direct + off, v);
            return;
        }
        long p = off & chunkMask;
        if (p <= lastLong) {
            U.putLong(base[(int) (off >>> chunkShift)] + p, v);
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
        if (CHECKS) {
            check(off, 8);
        }
        if (direct != 0) {
            return U.getDouble(direct + off);
        }
        long p = off & chunkMask;
        if (p <= lastLong) {
            return U.getDouble(base[(int) (off >>> chunkShift)] + p);
        }
        return Double.longBitsToDouble(getStraddling(off, 8));
    }

    @Override
    public void putDouble(long off, double v) {
        if (CHECKS) {
            checkWrite(off, 8);
        }
        if (direct != 0) {
            U.putDouble(direct + off, v);
            return;
        }
        long p = off & chunkMask;
        if (p <= lastLong) {
            U.putDouble(base[(int) (off >>> chunkShift)] + p, v);
        } else {
            putStraddling(off, Double.doubleToRawLongBits(v), 8);
        }
    }

    @Override
    public int getIntVolatile(long off) {
        checkAtomic(off, 4);
        return U.getIntVolatile(null, atomicAddress(off));
    }

    @Override
    public void putIntVolatile(long off, int v) {
        checkAtomicWrite(off, 4);
        U.putIntVolatile(null, atomicAddress(off), v);
    }

    @Override
    public void putIntOrdered(long off, int v) {
        checkAtomicWrite(off, 4);
        U.putOrderedInt(null, atomicAddress(off), v);
    }

    @Override
    public boolean compareAndSetInt(long off, int expect, int update) {
        checkAtomicWrite(off, 4);
        return U.compareAndSwapInt(null, atomicAddress(off), expect, update);
    }

    @Override
    public int getAndAddInt(long off, int delta) {
        checkAtomicWrite(off, 4);
        return U.getAndAddInt(null, atomicAddress(off), delta);
    }

    @Override
    public long getLongVolatile(long off) {
        checkAtomic(off, 8);
        return U.getLongVolatile(null, atomicAddress(off));
    }

    @Override
    public void putLongVolatile(long off, long v) {
        checkAtomicWrite(off, 8);
        U.putLongVolatile(null, atomicAddress(off), v);
    }

    @Override
    public void putLongOrdered(long off, long v) {
        checkAtomicWrite(off, 8);
        U.putOrderedLong(null, atomicAddress(off), v);
    }

    @Override
    public boolean compareAndSetLong(long off, long expect, long update) {
        checkAtomicWrite(off, 8);
        return U.compareAndSwapLong(null, atomicAddress(off), expect, update);
    }

    @Override
    public long getAndAddLong(long off, long delta) {
        checkAtomicWrite(off, 8);
        return U.getAndAddLong(null, atomicAddress(off), delta);
    }

    @Override
    protected Region chunkRegion(int chunk, int offsetInChunk, int length, long segmentOffset) {
        int id = memory.chunks()[chunk];
        return new UnsafeRegion(base[chunk] + offsetInChunk, length, segmentOffset,
                memory.pool().extentOf(id), memory.pool().offsetInExtent(id) + offsetInChunk);
    }
}
