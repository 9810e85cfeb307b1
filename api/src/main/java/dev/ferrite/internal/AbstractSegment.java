package dev.ferrite.internal;

import dev.ferrite.ChunkPool;
import dev.ferrite.DoubleArray;
import dev.ferrite.FerriteException;
import dev.ferrite.IntArray;
import dev.ferrite.LongArray;
import dev.ferrite.MisalignedAccessException;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.Region;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * Every backend's segment handle: the one chunk walk (check, contiguous, in-chunk, straddling),
 * reference counting and closing, with every bulk operation's checks; the bulk operations
 * themselves are written once, a range's hash and compares in {@link RangeReads}, its copies and
 * fills in {@link RangeCopies}. A backend supplies only its primitive loads and stores on a
 * {@code (base, position)} pair of its {@link ChunkTable}: one line each, all final, so that once
 * the JIT knows the handle's class (from the user's call site) the walk and the primitive inline
 * into one access with no virtual call left.
 *
 * <p>Checks ({@link Checks#ENABLED}): one overflow-proof range check against {@link #limit}, which
 * is -1 once the handle is closed (closing a pool closes its handles), so a single compare also
 * catches use after close; writes check against {@link #writeLimit}, -1 as well on a read-only
 * pool. With checks off, writes to a read-only pool are still refused.
 *
 * <p>Backend implementors extend this class and implement the primitives of
 * {@link SegmentPrimitives}; both are internal and may change between releases.
 */
public abstract class AbstractSegment extends SegmentPrimitives implements Segment {

    private static final boolean CHECKS = Checks.ENABLED;

    /** The shared state of the segment. */
    protected final SegmentMemory memory;
    private final long size;
    private final int chunkShift;
    private final long chunkMask;
    private final long chunkSize;
    private final long[] positions;
    private final Object[] bases;
    private final boolean direct;
    private final Object directBase;
    private final long directStart;
    private final boolean readOnly;
    /** The size while this handle is open, -1 once closed: one check catches both. */
    long limit;
    /** The size while this handle is open on a writable pool, else -1. */
    long writeLimit;

    private boolean closed;
    private LeakTracker.Tracked leak;

    /**
     * @param memory the segment's shared state
     */
    protected AbstractSegment(SegmentMemory memory) {
        this.memory = memory;
        this.size = memory.size();
        PoolGeometry g = memory.pool().geometry();
        this.chunkShift = g.chunkShift;
        this.chunkMask = g.chunkMask;
        this.chunkSize = g.chunkSize;
        ChunkTable table = memory.chunkTable();
        this.positions = table.positions();
        this.bases = table.bases();
        this.direct = table.contiguous();
        this.directBase = direct ? bases[0] : null;
        this.directStart = direct ? positions[0] : 0;
        this.readOnly = memory.pool().store().isReadOnly();
        this.limit = size;
        this.writeLimit = readOnly ? -1 : size;
    }

    // ---- where an offset is -----------------------------------------------------------------

    private boolean fits(long off, int width) {
        return direct || (off & chunkMask) <= chunkSize - width;
    }

    /** @return whether {@code [off, off + len)}, {@code len > 0}, lies in one chunk's memory (always, if the chunks are end to end) */
    final boolean inOneChunk(long off, long len) {
        return direct || (off >>> chunkShift) == ((off + len - 1) >>> chunkShift);
    }

    /** @return whether the segment's chunks lie end to end in one memory: every range is in one chunk */
    final boolean contiguous() {
        return direct;
    }

    /** @return bytes from {@code off} to the end of its chunk */
    final long bytesLeftInChunk(long off) {
        return chunkSize - (off & chunkMask);
    }

    final Object baseAt(long off) {
        return direct ? directBase : bases[(int) (off >>> chunkShift)];
    }

    final long posAt(long off) {
        return direct ? directStart + off : positions[(int) (off >>> chunkShift)] + (off & chunkMask);
    }

    // ---- checks -----------------------------------------------------------------------------

    private void checkLoad(long off, int width) {
        if (CHECKS) {
            // Objects.checkIndex is a JIT intrinsic: in a counted loop it is checked once, not per access.
            try {
                Objects.checkIndex(off, limit - width + 1);
            } catch (IndexOutOfBoundsException e) {
                throw rangeError(off, width);
            }
        }
    }

    private void checkStore(long off, int width) {
        if (CHECKS) {
            try {
                Objects.checkIndex(off, writeLimit - width + 1);
            } catch (IndexOutOfBoundsException e) {
                throw writeError(off, width);
            }
        } else if (readOnly) {
            throw readOnlyError(off, width);
        }
    }

    /** Checked with checks on or off: a volatile, ordered or atomic access, 4 or 8 bytes. */
    private void checkAtomic(long off, int width, boolean write) {
        checkRange(off, width, write);
        if ((off & (width - 1)) != 0) {
            throw new MisalignedAccessException("offset " + off + " is not a multiple of " + width
                    + " as a volatile, ordered or atomic " + (width == 4 ? "int" : "long") + " access needs");
        }
    }

    /** Checked with checks on or off: {@code [off, off + len)} in the open segment, writable if asked. */
    private void checkRange(long off, long len, boolean write) {
        // Compared here, not with Objects.checkFromIndexSize: C2 inlines that call or not as the
        // profile has it, and a JVM that leaves it out of line keeps a slower caller for its life.
        // The bound is at least -1 (closed), so nothing overflows.
        long bound = write ? writeLimit : limit;
        if ((off | len) < 0 || len > bound - off) {
            throw write ? writeError(off, len) : rangeError(off, len);
        }
    }

    /** Checked with checks on or off: {@code [from, from + count)} inside an array of that length. */
    static void checkArray(int arrayLength, int from, int count) {
        if ((from | count) < 0 || count > arrayLength - from) { // as in checkRange: no call to inline
            throw new OutOfBoundsException("array range [" + from + ", " + from + " + " + count
                    + ") is outside an array of length " + arrayLength);
        }
    }

    /** @return whether writes through this handle are refused because its pool is read-only */
    final boolean readOnly() {
        return readOnly;
    }

    RuntimeException writeError(long off, long len) {
        return limit >= 0 && readOnly ? readOnlyError(off, len) : rangeError(off, len);
    }

    private FerriteException readOnlyError(long off, long len) {
        return new FerriteException("write of " + len + " bytes at offset " + off + " to " + memory.describe()
                + ": its pool is open read-only");
    }

    RuntimeException rangeError(long off, long len) {
        // A range inside the segment fails its check only on a closed handle. Deciding by the range,
        // not by a second read of limit, keeps the answer right when another thread closed the
        // handle meanwhile: plain reads of limit may disagree with each other.
        if (limit < 0 || (off >= 0 && len >= 0 && off <= size - len)) {
            return closedError();
        }
        return new OutOfBoundsException("offset " + off + " length " + len + " is outside " + memory.describe()
                + " (valid offsets: [0, " + size + "))");
    }

    SegmentClosedException closedError() {
        return new SegmentClosedException("access to a closed handle on " + memory.describe()
                + (memory.pool().isClosed() ? "; its pool is closed" : ""));
    }

    // ---- typed accesses: the walk -------------------------------------------------------------

    @Override
    public final byte getByte(long off) {
        checkLoad(off, 1);
        return loadByte(baseAt(off), posAt(off));
    }

    @Override
    public final void putByte(long off, byte v) {
        checkStore(off, 1);
        storeByte(baseAt(off), posAt(off), v);
    }

    @Override
    public final short getShort(long off) {
        checkLoad(off, 2);
        return fits(off, 2) ? loadShort(baseAt(off), posAt(off)) : (short) loadStraddling(off, 2);
    }

    @Override
    public final void putShort(long off, short v) {
        checkStore(off, 2);
        if (fits(off, 2)) {
            storeShort(baseAt(off), posAt(off), v);
        } else {
            storeStraddling(off, v, 2);
        }
    }

    @Override
    public final char getChar(long off) {
        return (char) getShort(off);
    }

    @Override
    public final void putChar(long off, char v) {
        putShort(off, (short) v);
    }

    @Override
    public final int getInt(long off) {
        checkLoad(off, 4);
        return loadIntAt(off);
    }

    /** The walk of {@link #getInt} without its check: for a caller that checked already. */
    final int loadIntAt(long off) {
        return fits(off, 4) ? loadIntInChunk(off) : (int) loadStraddling(off, 4);
    }

    @Override
    public final void putInt(long off, int v) {
        checkStore(off, 4);
        storeIntAt(off, v);
    }

    /** The walk of {@link #putInt} without its check: for a caller that checked already. */
    final void storeIntAt(long off, int v) {
        if (fits(off, 4)) {
            storeIntInChunk(off, v);
        } else {
            storeStraddling(off, v, 4);
        }
    }

    @Override
    public final long getLong(long off) {
        checkLoad(off, 8);
        return loadLongAt(off);
    }

    /** The walk of {@link #getLong} without its check: for a caller that checked already. */
    final long loadLongAt(long off) {
        return fits(off, 8) ? loadLongInChunk(off) : loadStraddling(off, 8);
    }

    @Override
    public final void putLong(long off, long v) {
        checkStore(off, 8);
        storeLongAt(off, v);
    }

    /** The walk of {@link #putLong} without its check: for a caller that checked already. */
    final void storeLongAt(long off, long v) {
        if (fits(off, 8)) {
            storeLongInChunk(off, v);
        } else {
            storeStraddling(off, v, 8);
        }
    }

    @Override
    public final float getFloat(long off) {
        return Float.intBitsToFloat(getInt(off));
    }

    @Override
    public final void putFloat(long off, float v) {
        putInt(off, Float.floatToRawIntBits(v));
    }

    @Override
    public final double getDouble(long off) {
        checkLoad(off, 8);
        return loadDoubleAt(off);
    }

    /** The walk of {@link #getDouble} without its check: for a caller that checked already. */
    final double loadDoubleAt(long off) {
        return fits(off, 8) ? loadDoubleInChunk(off) : Double.longBitsToDouble(loadStraddling(off, 8));
    }

    @Override
    public final void putDouble(long off, double v) {
        checkStore(off, 8);
        storeDoubleAt(off, v);
    }

    /** The walk of {@link #putDouble} without its check: for a caller that checked already. */
    final void storeDoubleAt(long off, double v) {
        if (fits(off, 8)) {
            storeDoubleInChunk(off, v);
        } else {
            storeStraddling(off, Double.doubleToRawLongBits(v), 8);
        }
    }

    // The walk of a value whose bytes lie in one chunk, checked by the caller: the typed views call
    // it directly, since a chunk (a power of two, at least 4 KiB) holds whole aligned elements.

    /** The walk of an 8-byte load inside one chunk, checked by the caller. */
    final double loadDoubleInChunk(long off) {
        return loadDouble(baseAt(off), posAt(off));
    }

    /** The walk of an 8-byte store inside one chunk, checked by the caller. */
    final void storeDoubleInChunk(long off, double v) {
        storeDouble(baseAt(off), posAt(off), v);
    }

    /** The walk of an aligned 8-byte volatile load, checked by the caller. */
    final long loadLongVolatileAt(long off) {
        return loadLongVolatile(baseAt(off), posAt(off));
    }

    /** @return whether this handle was closed (its pool's close closes it too); a plain read, for a check once per operation */
    final boolean closedNow() {
        return limit < 0;
    }

    /** The walk of an 8-byte load inside one chunk, checked by the caller. */
    final long loadLongInChunk(long off) {
        return loadLong(baseAt(off), posAt(off));
    }

    /** The walk of an 8-byte store inside one chunk, checked by the caller. */
    final void storeLongInChunk(long off, long v) {
        storeLong(baseAt(off), posAt(off), v);
    }

    /** The walk of a 4-byte load inside one chunk, checked by the caller. */
    final int loadIntInChunk(long off) {
        return loadInt(baseAt(off), posAt(off));
    }

    /** The walk of a 4-byte store inside one chunk, checked by the caller. */
    final void storeIntInChunk(long off, int v) {
        storeInt(baseAt(off), posAt(off), v);
    }

    // A value across a chunk boundary, byte by byte little-endian: the rare slow path, already checked.
    final long loadStraddling(long off, int width) {
        long v = 0;
        for (int i = width - 1; i >= 0; i--) {
            v = (v << 8) | (loadByte(baseAt(off + i), posAt(off + i)) & 0xFF);
        }
        return v;
    }

    final void storeStraddling(long off, long v, int width) {
        for (int i = 0; i < width; i++) {
            storeByte(baseAt(off + i), posAt(off + i), (byte) (v >>> (8 * i)));
        }
    }

    // ---- volatile, ordered, atomic: aligned, so never straddling --------------------------------

    @Override
    public final int getIntVolatile(long off) {
        checkAtomic(off, 4, false);
        return loadIntVolatile(baseAt(off), posAt(off));
    }

    @Override
    public final void putIntVolatile(long off, int v) {
        checkAtomic(off, 4, true);
        storeIntVolatile(baseAt(off), posAt(off), v);
    }

    @Override
    public final void putIntOrdered(long off, int v) {
        checkAtomic(off, 4, true);
        storeIntRelease(baseAt(off), posAt(off), v);
    }

    @Override
    public final boolean compareAndSetInt(long off, int expect, int update) {
        checkAtomic(off, 4, true);
        return casInt(baseAt(off), posAt(off), expect, update);
    }

    @Override
    public final int getAndAddInt(long off, int delta) {
        checkAtomic(off, 4, true);
        return fetchAddInt(baseAt(off), posAt(off), delta);
    }

    @Override
    public final long getLongVolatile(long off) {
        checkAtomic(off, 8, false);
        return loadLongVolatile(baseAt(off), posAt(off));
    }

    @Override
    public final void putLongVolatile(long off, long v) {
        checkAtomic(off, 8, true);
        storeLongVolatile(baseAt(off), posAt(off), v);
    }

    @Override
    public final void putLongOrdered(long off, long v) {
        checkAtomic(off, 8, true);
        storeLongRelease(baseAt(off), posAt(off), v);
    }

    @Override
    public final boolean compareAndSetLong(long off, long expect, long update) {
        checkAtomic(off, 8, true);
        return casLong(baseAt(off), posAt(off), expect, update);
    }

    @Override
    public final long getAndAddLong(long off, long delta) {
        checkAtomic(off, 8, true);
        return fetchAddLong(baseAt(off), posAt(off), delta);
    }

    // ---- regions and bulk operations, chunk by chunk -------------------------------------------

    /** @return the region from {@code off} (checked by the caller) to its chunk's end, or of {@code maxLen} bytes if shorter */
    final ChunkRegion regionAt(long off, long maxLen) {
        int chunk = (int) (off >>> chunkShift);
        int inChunk = (int) (off & chunkMask);
        int len = (int) Math.min(maxLen, chunkSize - inChunk);
        long position = positions[chunk] + inChunk;
        return new ChunkRegion(this, chunk, regionBase(bases[chunk], position, len), regionPosition(position), inChunk,
                len, off);
    }

    /**
     * A little-endian buffer over part of one chunk, through the pool's own mapping of its extent:
     * read-only when the pool is.
     */
    final ByteBuffer chunkBuffer(int chunk, int offsetInChunk, int len) {
        int id = memory.chunks()[chunk];
        MappedChunkPool pool = memory.pool();
        return pool.extentOf(id).slice(pool.offsetInExtent(id) + offsetInChunk, len).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public final long hash64(long off, long len) {
        checkRange(off, len, false);
        return RangeReads.hash64(this, off, len);
    }

    @Override
    public final long mismatch(long off, byte[] other, int otherOff, int len) {
        checkRange(off, len, false);
        checkArray(other.length, otherOff, len);
        return RangeReads.mismatch(this, off, other, otherOff, len);
    }

    @Override
    public final long mismatch(long off, Segment other, long otherOff, long len) {
        checkRange(off, len, false);
        if (!(other instanceof AbstractSegment o)) {
            throw new FerriteException("mismatch compares Ferrite segments only, not " + other.getClass().getName());
        }
        o.checkRange(otherOff, len, false);
        return RangeReads.mismatch(this, off, o, otherOff, len);
    }

    @Override
    public final void copyTo(long off, byte[] dst, int dstOff, int len) {
        checkRange(off, len, false);
        checkArray(dst.length, dstOff, len);
        RangeCopies.copyArray(this, off, dst, dstOff, len, true);
    }

    @Override
    public final void copyFrom(byte[] src, int srcOff, long off, int len) {
        checkRange(off, len, true);
        checkArray(src.length, srcOff, len);
        RangeCopies.copyArray(this, off, src, srcOff, len, false);
    }

    @Override
    public final void copyTo(long off, double[] dst, int dstOff, int count) {
        checkRange(off, 8L * count, false);
        checkArray(dst.length, dstOff, count);
        RangeCopies.copyArray(this, off, dst, dstOff, count, true);
    }

    @Override
    public final void copyFrom(double[] src, int srcOff, long off, int count) {
        checkRange(off, 8L * count, true);
        checkArray(src.length, srcOff, count);
        RangeCopies.copyArray(this, off, src, srcOff, count, false);
    }

    @Override
    public final void copyTo(long off, long[] dst, int dstOff, int count) {
        checkRange(off, 8L * count, false);
        checkArray(dst.length, dstOff, count);
        RangeCopies.copyArray(this, off, dst, dstOff, count, true);
    }

    @Override
    public final void copyFrom(long[] src, int srcOff, long off, int count) {
        checkRange(off, 8L * count, true);
        checkArray(src.length, srcOff, count);
        RangeCopies.copyArray(this, off, src, srcOff, count, false);
    }

    @Override
    public final void copyTo(long off, ByteBuffer dst) {
        long len = dst.remaining();
        checkRange(off, len, false);
        if (dst.isReadOnly()) {
            throw new FerriteException("cannot copy " + len + " bytes into a read-only ByteBuffer");
        }
        RangeCopies.copyTo(this, off, dst);
    }

    @Override
    public final void copyFrom(ByteBuffer src, long off) {
        checkRange(off, src.remaining(), true);
        RangeCopies.copyFrom(this, src, off);
    }

    @Override
    public final void copyTo(long off, Segment dst, long dstOff, long len) {
        checkRange(off, len, false);
        if (dst instanceof AbstractSegment) {
            ((AbstractSegment) dst).checkRange(dstOff, len, true);
        } else {
            try {
                Objects.checkFromIndexSize(dstOff, len, dst.size());
            } catch (IndexOutOfBoundsException e) {
                throw new OutOfBoundsException("destination offset " + dstOff + " length " + len
                        + " is outside a segment of " + dst.size() + " bytes");
            }
        }
        RangeCopies.copyTo(this, off, dst, dstOff, len);
    }

    @Override
    public final void fill(long off, long len, byte value) {
        checkRange(off, len, true);
        RangeCopies.fill(this, off, len, value);
    }

    @Override
    public final Iterable<Region> regions(long off, long len) {
        checkRange(off, len, false);
        return () -> new Iterator<>() {
            private long at = off;
            private long remaining = len;

            @Override
            public boolean hasNext() {
                return remaining > 0;
            }

            @Override
            public Region next() {
                if (remaining <= 0) {
                    throw new NoSuchElementException();
                }
                Region r = regionAt(at, remaining);
                at += r.length();
                remaining -= r.length();
                return r;
            }
        };
    }

    // ---- handles -----------------------------------------------------------------------------

    @Override
    public final long size() {
        return size;
    }

    @Override
    public final ChunkPool pool() {
        return memory.pool();
    }

    @Override
    public final String name() {
        return memory.name();
    }

    @Override
    public final Segment retain() {
        if (isClosed()) {
            throw closedError();
        }
        return memory.pool().newHandle(memory);
    }

    @Override
    public final int refCount() {
        return memory.openHandles();
    }

    @Override
    public final synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public final void close() {
        if (markClosed()) {
            memory.release(this);
        }
    }

    /** Closes this handle without counting a release; returns whether it was open. */
    final synchronized boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        limit = -1;
        writeLimit = -1;
        if (leak != null) {
            leak.closed();
        }
        return true;
    }

    final void trackLeaks(LeakTracker.Tracked tracked) {
        this.leak = tracked;
    }

    // ---- typed views -------------------------------------------------------------------------

    @Override
    public final DoubleArray asDoubles() {
        return new SegmentArrays.Doubles(this);
    }

    @Override
    public final LongArray asLongs() {
        return new SegmentArrays.Longs(this);
    }

    @Override
    public final IntArray asInts() {
        return new SegmentArrays.Ints(this);
    }

    @Override
    public String toString() {
        return "Segment[" + memory.describe() + ", " + memory.pool().backend().name()
                + (isClosed() ? ", closed" : "") + "]";
    }
}
