package dev.ferrite.internal;

import dev.ferrite.ChunkPool;
import dev.ferrite.DoubleArray;
import dev.ferrite.IntArray;
import dev.ferrite.LongArray;
import dev.ferrite.MisalignedAccessException;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.Region;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * What every backend's segment handle shares: reference counting, closing, range checks, the slow
 * path for values that straddle two chunks, and every bulk operation, written once as a walk over
 * per-chunk {@link Region}s. A backend implements the typed accesses (the hot path, at most two
 * calls from the user) and {@link #chunkRegion}.
 */
public abstract class AbstractSegment implements Segment {

    /** The shared state of the segment. */
    protected final SegmentMemory memory;
    /** Size in bytes. */
    protected final long size;
    /** log2 of the chunk size. */
    protected final int chunkShift;
    /** Chunk size minus one. */
    protected final long chunkMask;
    /** Bytes per chunk. */
    protected final long chunkSize;
    /**
     * The size while this handle is open, -1 once it is closed: so the one range check of a
     * checked access also catches use after close, and only its failure path asks which it was.
     */
    protected long limit;
    /**
     * The size while this handle is open on a writable pool, -1 when closed or read-only: writes
     * check against it instead of {@link #limit}, so refusing writes to a read-only pool costs
     * nothing extra.
     */
    protected long writeLimit;

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
        this.limit = size;
        this.writeLimit = memory.pool().store().isReadOnly() ? -1 : size;
    }

    /**
     * Whether a segment's chunks lie end to end, so that byte {@code off} is at {@code starts[0] + off}
     * and typed accesses can skip the chunk table.
     *
     * @param starts where each chunk starts (an address or an offset), in segment order
     * @param chunkSize bytes per chunk
     * @return whether every chunk starts where the one before ends; false for no chunk
     */
    protected static boolean endToEnd(long[] starts, long chunkSize) {
        for (int i = 1; i < starts.length; i++) {
            if (starts[i] != starts[0] + i * chunkSize) {
                return false;
            }
        }
        return starts.length > 0;
    }

    /**
     * A view of part of one chunk.
     *
     * @param chunk         index of the chunk in this segment (not its id in the pool)
     * @param offsetInChunk first byte of the view inside the chunk
     * @param length        bytes, within the chunk
     * @param segmentOffset the segment offset of the first byte
     * @return the region
     */
    protected abstract Region chunkRegion(int chunk, int offsetInChunk, int length, long segmentOffset);

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
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            limit = -1;
            writeLimit = -1;
            if (leak != null) {
                leak.closed();
            }
        }
        memory.release(this);
    }

    /** Closes this handle without counting a release: its pool is closing. */
    final synchronized void markClosed() {
        closed = true;
        limit = -1;
        writeLimit = -1;
        if (leak != null) {
            leak.closed();
        }
    }

    final void trackLeaks(LeakTracker.Tracked tracked) {
        this.leak = tracked;
    }

    // ---- checks -------------------------------------------------------------------------------

    /**
     * Throws unless {@code [off, off + len)} lies in the open segment.
     *
     * @param off first byte
     * @param len bytes, at least 0
     */
    protected final void checkRange(long off, long len) {
        if ((off | len | (limit - len - off)) < 0) {
            throw rangeError(off, len);
        }
    }

    /**
     * The check of one typed access: throws unless {@code [off, off + width)} lies in the open
     * segment. One check against {@link #limit}; the failure path sorts out closed from out of range.
     *
     * @param off   byte offset
     * @param width bytes accessed, 1 to 8
     */
    protected final void check(long off, int width) {
        // Objects.checkIndex is a JIT intrinsic: in a counted loop it is checked once, not per access.
        try {
            Objects.checkIndex(off, limit - width + 1);
        } catch (IndexOutOfBoundsException e) {
            throw rangeError(off, width);
        }
    }

    /**
     * The check of one typed write: like {@link #check}, and refuses writes to a read-only pool.
     *
     * @param off   byte offset
     * @param width bytes written, 1 to 8
     */
    protected final void checkWrite(long off, int width) {
        try {
            Objects.checkIndex(off, writeLimit - width + 1);
        } catch (IndexOutOfBoundsException e) {
            throw writeError(off, width);
        }
    }

    /**
     * Throws unless {@code [off, off + len)} lies in the open segment and the pool is writable.
     *
     * @param off first byte
     * @param len bytes, at least 0
     */
    protected final void checkWriteRange(long off, long len) {
        if ((off | len | (writeLimit - len - off)) < 0) {
            throw writeError(off, len);
        }
    }

    private RuntimeException writeError(long off, long len) {
        if (limit >= 0 && writeLimit < 0) {
            return new dev.ferrite.FerriteException("write of " + len + " bytes at offset " + off + " to "
                    + memory.describe() + ": its pool is open read-only");
        }
        return rangeError(off, len);
    }

    /**
     * The error for a failed range check: closed if this handle is closed, else out of bounds.
     *
     * @param off first byte asked for
     * @param len bytes asked for
     * @return the exception to throw
     */
    protected final RuntimeException rangeError(long off, long len) {
        if (limit < 0) {
            return closedError();
        }
        return new OutOfBoundsException("offset " + off + " length " + len + " is outside " + memory.describe()
                + " (valid offsets: [0, " + size + "))");
    }

    /** @return the error for an access through a closed handle */
    protected final SegmentClosedException closedError() {
        return new SegmentClosedException("access to a closed handle on " + memory.describe()
                + (memory.pool().isClosed() ? "; its pool is closed" : ""));
    }

    /**
     * Throws unless the access is in range and naturally aligned.
     *
     * @param off   byte offset
     * @param width 4 or 8
     */
    protected final void checkAtomic(long off, int width) {
        checkRange(off, width);
        checkAligned(off, width);
    }

    /**
     * Throws unless the access is in range, naturally aligned, and the pool writable.
     *
     * @param off   byte offset
     * @param width 4 or 8
     */
    protected final void checkAtomicWrite(long off, int width) {
        checkWriteRange(off, width);
        checkAligned(off, width);
    }

    private static void checkAligned(long off, int width) {
        if ((off & (width - 1)) != 0) {
            throw new MisalignedAccessException("offset " + off + " is not a multiple of " + width
                    + " as a volatile, ordered or atomic " + (width == 4 ? "int" : "long") + " access needs");
        }
    }

    private static void checkArray(int arrayLength, int from, int count) {
        if ((from | count | (arrayLength - count - from)) < 0) {
            throw new OutOfBoundsException("array range [" + from + ", " + from + " + " + count
                    + ") is outside an array of length " + arrayLength);
        }
    }

    // ---- straddling values: the rare slow path ---------------------------------------------

    /**
     * Reads a little-endian value byte by byte; for values that straddle two chunks.
     *
     * @param off   byte offset
     * @param width bytes, 2 to 8
     * @return the value, in the low bytes
     */
    protected final long getStraddling(long off, int width) {
        long v = 0;
        for (int i = width - 1; i >= 0; i--) {
            v = (v << 8) | (getByte(off + i) & 0xFF);
        }
        return v;
    }

    /**
     * Writes a little-endian value byte by byte; for values that straddle two chunks.
     *
     * @param off   byte offset
     * @param v     the value, in the low bytes
     * @param width bytes, 2 to 8
     */
    protected final void putStraddling(long off, long v, int width) {
        checkWriteRange(off, width);
        for (int i = 0; i < width; i++) {
            putByte(off + i, (byte) (v >>> (8 * i)));
        }
    }

    // ---- bulk operations, chunk by chunk ------------------------------------------------------

    private Region pieceAt(long off, long maxLen) {
        int inChunk = (int) (off & chunkMask);
        int len = (int) Math.min(maxLen, chunkSize - inChunk);
        return chunkRegion((int) (off >>> chunkShift), inChunk, len, off);
    }

    @Override
    public void copyTo(long off, byte[] dst, int dstOff, int len) {
        checkRange(off, len);
        checkArray(dst.length, dstOff, len);
        while (len > 0) {
            Region r = pieceAt(off, len);
            int n = r.length();
            r.copyTo(0, dst, dstOff, n);
            off += n;
            dstOff += n;
            len -= n;
        }
    }

    @Override
    public void copyFrom(byte[] src, int srcOff, long off, int len) {
        checkWriteRange(off, len);
        checkArray(src.length, srcOff, len);
        while (len > 0) {
            Region r = pieceAt(off, len);
            int n = r.length();
            r.copyFrom(src, srcOff, 0, n);
            off += n;
            srcOff += n;
            len -= n;
        }
    }

    /** Copies whole 8-byte elements within one chunk: region, first array index, element count. */
    private interface ChunkCopy {
        void copy(Region region, int index, int count);
    }

    /** Copies one 8-byte element that straddles two chunks: segment offset, array index. */
    private interface StraddleCopy {
        void copy(long off, int index);
    }

    // The walk shared by the bulk double[] and long[] copies: whole elements chunk by chunk, and
    // the one element at a chunk boundary (when off is not 8-aligned) through the typed access.
    private void walkElements(long off, int index, int count, ChunkCopy bulk, StraddleCopy straddle) {
        while (count > 0) {
            int inChunk = (int) (off & chunkMask);
            int whole = (int) Math.min(count, (chunkSize - inChunk) >>> 3);
            if (whole == 0) {
                straddle.copy(off, index);
                off += 8;
                index++;
                count--;
                continue;
            }
            bulk.copy(chunkRegion((int) (off >>> chunkShift), inChunk, whole << 3, off), index, whole);
            off += (long) whole << 3;
            index += whole;
            count -= whole;
        }
    }

    @Override
    public void copyTo(long off, double[] dst, int dstOff, int count) {
        checkRange(off, 8L * count);
        checkArray(dst.length, dstOff, count);
        walkElements(off, dstOff, count, (r, i, n) -> r.copyTo(0, dst, i, n), (o, i) -> dst[i] = getDouble(o));
    }

    @Override
    public void copyFrom(double[] src, int srcOff, long off, int count) {
        checkWriteRange(off, 8L * count);
        checkArray(src.length, srcOff, count);
        walkElements(off, srcOff, count, (r, i, n) -> r.copyFrom(src, i, 0, n), (o, i) -> putDouble(o, src[i]));
    }

    @Override
    public void copyTo(long off, long[] dst, int dstOff, int count) {
        checkRange(off, 8L * count);
        checkArray(dst.length, dstOff, count);
        walkElements(off, dstOff, count, (r, i, n) -> r.copyTo(0, dst, i, n), (o, i) -> dst[i] = getLong(o));
    }

    @Override
    public void copyFrom(long[] src, int srcOff, long off, int count) {
        checkWriteRange(off, 8L * count);
        checkArray(src.length, srcOff, count);
        walkElements(off, srcOff, count, (r, i, n) -> r.copyFrom(src, i, 0, n), (o, i) -> putLong(o, src[i]));
    }

    @Override
    public void copyTo(long off, ByteBuffer dst) {
        long len = dst.remaining();
        checkRange(off, len);
        while (len > 0) {
            Region r = pieceAt(off, len);
            dst.put(r.asByteBuffer());
            off += r.length();
            len -= r.length();
        }
    }

    @Override
    public void copyFrom(ByteBuffer src, long off) {
        long len = src.remaining();
        checkWriteRange(off, len);
        while (len > 0) {
            Region r = pieceAt(off, len);
            int n = r.length();
            ByteBuffer piece = src.duplicate();
            piece.limit(piece.position() + n);
            r.asByteBuffer().put(piece);
            src.position(src.position() + n);
            off += n;
            len -= n;
        }
    }

    @Override
    public void copyTo(long off, Segment dst, long dstOff, long len) {
        checkRange(off, len);
        if ((dstOff | len | (dst.size() - len - dstOff)) < 0) {
            throw new OutOfBoundsException("destination offset " + dstOff + " length " + len
                    + " is outside a segment of " + dst.size() + " bytes");
        }
        if (dst instanceof AbstractSegment) {
            ((AbstractSegment) dst).checkWriteRange(dstOff, len);
        }
        if (len == 0) {
            return;
        }
        boolean sameMemory = dst instanceof AbstractSegment && ((AbstractSegment) dst).memory == memory;
        if (sameMemory && dstOff > off && dstOff < off + len) {
            copyBackward(off, dst, dstOff, len);
            return;
        }
        while (len > 0) {
            Region src = pieceAt(off, len);
            int at = 0;
            for (Region d : dst.regions(dstOff, src.length())) {
                src.copyTo(at, d, 0, d.length());
                at += d.length();
            }
            off += src.length();
            dstOff += src.length();
            len -= src.length();
        }
    }

    // Overlapping with the destination ahead of the source: copy from the end through a buffer,
    // so every byte is read before the copy overwrites it.
    private void copyBackward(long off, Segment dst, long dstOff, long len) {
        byte[] buffer = new byte[(int) Math.min(len, 1 << 16)];
        long remaining = len;
        while (remaining > 0) {
            int n = (int) Math.min(remaining, buffer.length);
            remaining -= n;
            copyTo(off + remaining, buffer, 0, n);
            dst.copyFrom(buffer, 0, dstOff + remaining, n);
        }
    }

    @Override
    public void fill(long off, long len, byte value) {
        checkWriteRange(off, len);
        while (len > 0) {
            Region r = pieceAt(off, len);
            r.fill(0, r.length(), value);
            off += r.length();
            len -= r.length();
        }
    }

    @Override
    public Iterable<Region> regions(long off, long len) {
        checkRange(off, len);
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
                Region r = pieceAt(at, remaining);
                at += r.length();
                remaining -= r.length();
                return r;
            }
        };
    }

    // ---- typed views -------------------------------------------------------------------------

    @Override
    public DoubleArray asDoubles() {
        return new SegmentArrays.Doubles(this, memory.pool().isChecked());
    }

    @Override
    public LongArray asLongs() {
        return new SegmentArrays.Longs(this, memory.pool().isChecked());
    }

    @Override
    public IntArray asInts() {
        return new SegmentArrays.Ints(this, memory.pool().isChecked());
    }

    @Override
    public String toString() {
        return "Segment[" + memory.describe() + ", " + memory.pool().backend().name()
                + (isClosed() ? ", closed" : "") + "]";
    }
}
