package dev.ferrite.internal;

/**
 * What a backend supplies to the one chunk walk of {@link AbstractSegment}: unchecked loads,
 * stores, atomics and copies on a {@code (base, position)} pair of the segment's
 * {@link ChunkTable} (the base an object or null, the position an address, an index or an
 * offset, as the backend defines them), and how a {@code Region} addresses its bytes. Every
 * method is called only after the walk has checked the access; none checks anything itself. A
 * backend implements them as final one-liners, so that with the handle's class known the walk and
 * the primitive inline into one memory access.
 *
 * <p>Internal: may change between releases.
 */
public abstract class SegmentPrimitives {

    /** For subclasses. */
    protected SegmentPrimitives() {
    }

    /**
     * @param base chunk base
     * @param pos position
     * @return the byte there
     */
    protected abstract byte loadByte(Object base, long pos);

    /**
     * @param base chunk base
     * @param pos position
     * @param v the value
     */
    protected abstract void storeByte(Object base, long pos, byte v);

    /**
     * @param base chunk base
     * @param pos position
     * @return the little-endian short there
     */
    protected abstract short loadShort(Object base, long pos);

    /**
     * @param base chunk base
     * @param pos position
     * @param v the value, stored little-endian
     */
    protected abstract void storeShort(Object base, long pos, short v);

    /**
     * @param base chunk base
     * @param pos position
     * @return the little-endian int there
     */
    protected abstract int loadInt(Object base, long pos);

    /**
     * @param base chunk base
     * @param pos position
     * @param v the value, stored little-endian
     */
    protected abstract void storeInt(Object base, long pos, int v);

    /**
     * @param base chunk base
     * @param pos position
     * @return the little-endian long there
     */
    protected abstract long loadLong(Object base, long pos);

    /**
     * @param base chunk base
     * @param pos position
     * @param v the value, stored little-endian
     */
    protected abstract void storeLong(Object base, long pos, long v);

    /**
     * @param base chunk base
     * @param pos position
     * @return the little-endian double there
     */
    protected abstract double loadDouble(Object base, long pos);

    /**
     * @param base chunk base
     * @param pos position
     * @param v the value, stored little-endian
     */
    protected abstract void storeDouble(Object base, long pos, double v);

    /**
     * @param base chunk base
     * @param pos 4-aligned position
     * @return the int, volatile read
     */
    protected abstract int loadIntVolatile(Object base, long pos);

    /**
     * @param base chunk base
     * @param pos 4-aligned position
     * @param v the value, volatile write
     */
    protected abstract void storeIntVolatile(Object base, long pos, int v);

    /**
     * @param base chunk base
     * @param pos 4-aligned position
     * @param v the value, release write
     */
    protected abstract void storeIntRelease(Object base, long pos, int v);

    /**
     * @param base chunk base
     * @param pos 4-aligned position
     * @param expect expected
     * @param update new
     * @return whether the value was {@code expect} and is now {@code update}
     */
    protected abstract boolean casInt(Object base, long pos, int expect, int update);

    /**
     * @param base chunk base
     * @param pos 4-aligned position
     * @param delta added
     * @return the old value
     */
    protected abstract int fetchAddInt(Object base, long pos, int delta);

    /**
     * @param base chunk base
     * @param pos 8-aligned position
     * @return the long, volatile read
     */
    protected abstract long loadLongVolatile(Object base, long pos);

    /**
     * @param base chunk base
     * @param pos 8-aligned position
     * @param v the value, volatile write
     */
    protected abstract void storeLongVolatile(Object base, long pos, long v);

    /**
     * @param base chunk base
     * @param pos 8-aligned position
     * @param v the value, release write
     */
    protected abstract void storeLongRelease(Object base, long pos, long v);

    /**
     * @param base chunk base
     * @param pos 8-aligned position
     * @param expect expected
     * @param update new
     * @return whether the value was {@code expect} and is now {@code update}
     */
    protected abstract boolean casLong(Object base, long pos, long expect, long update);

    /**
     * @param base chunk base
     * @param pos 8-aligned position
     * @param delta added
     * @return the old value
     */
    protected abstract long fetchAddLong(Object base, long pos, long delta);

    /**
     * Copies whole elements from memory to a {@code byte[]}, {@code long[]} or {@code double[]}.
     *
     * @param base chunk base
     * @param pos position of the first byte
     * @param array destination
     * @param index first element written
     * @param count elements
     */
    protected abstract void copyToArray(Object base, long pos, Object array, int index, int count);

    /**
     * Copies whole elements from a {@code byte[]}, {@code long[]} or {@code double[]} to memory.
     *
     * @param array source
     * @param index first element read
     * @param count elements
     * @param base chunk base
     * @param pos position of the first byte written
     */
    protected abstract void copyFromArray(Object array, int index, int count, Object base, long pos);

    /**
     * Copies bytes within this backend's memory; overlapping ranges behave like
     * {@link System#arraycopy}.
     *
     * @param srcBase source base
     * @param srcPos source position
     * @param dstBase destination base
     * @param dstPos destination position
     * @param len bytes
     */
    protected abstract void copyMemory(Object srcBase, long srcPos, Object dstBase, long dstPos, int len);

    /**
     * @param base chunk base
     * @param pos first position
     * @param len bytes
     * @param value the byte stored
     */
    protected abstract void fillMemory(Object base, long pos, int len, byte value);

    // ---- how a region addresses its bytes: (base, position + off) unless a backend says else ----

    /**
     * The base a {@link dev.ferrite.Region} of this segment uses. By default the chunk's base, with the
     * region's bytes at {@code position + off}; a backend whose primitives take {@code int}
     * indices (bytebuffer) returns a view starting at the region and overrides the
     * {@code region*} accesses to index it from 0, so the JIT shares one loop index between
     * several regions instead of adding each region's position to it.
     *
     * @param base the chunk's base
     * @param position the region's first byte
     * @param length bytes
     * @return the region's base
     */
    protected Object regionBase(Object base, long position, int length) {
        return base;
    }

    /**
     * @param position the region's first byte in the chunk's base
     * @return the position of that byte in the region's {@link #regionBase}: 0 where that is a view
     */
    protected long regionPosition(long position) {
        return position;
    }

    /**
     * @param base region base
     * @param position region position
     * @param off offset in the region
     * @return the byte
     */
    protected byte regionLoadByte(Object base, long position, int off) {
        return loadByte(base, position + off);
    }

    /**
     * @param base region base
     * @param position region position
     * @param off offset in the region
     * @param v the value
     */
    protected void regionStoreByte(Object base, long position, int off, byte v) {
        storeByte(base, position + off, v);
    }

    /**
     * @param base region base
     * @param position region position
     * @param off offset in the region
     * @return the int
     */
    protected int regionLoadInt(Object base, long position, int off) {
        return loadInt(base, position + off);
    }

    /**
     * @param base region base
     * @param position region position
     * @param off offset in the region
     * @param v the value
     */
    protected void regionStoreInt(Object base, long position, int off, int v) {
        storeInt(base, position + off, v);
    }

    /**
     * @param base region base
     * @param position region position
     * @param off offset in the region
     * @return the long
     */
    protected long regionLoadLong(Object base, long position, int off) {
        return loadLong(base, position + off);
    }

    /**
     * @param base region base
     * @param position region position
     * @param off offset in the region
     * @param v the value
     */
    protected void regionStoreLong(Object base, long position, int off, long v) {
        storeLong(base, position + off, v);
    }

    /**
     * @param base region base
     * @param position region position
     * @param off offset in the region
     * @return the double
     */
    protected double regionLoadDouble(Object base, long position, int off) {
        return loadDouble(base, position + off);
    }

    /**
     * @param base region base
     * @param position region position
     * @param off offset in the region
     * @param v the value
     */
    protected void regionStoreDouble(Object base, long position, int off, double v) {
        storeDouble(base, position + off, v);
    }

    /**
     * @param array a {@code byte[]}, {@code long[]} or {@code double[]}
     * @return log2 of its element size
     */
    protected static int elementShift(Object array) {
        return array instanceof byte[] ? 0 : 3;
    }
}
