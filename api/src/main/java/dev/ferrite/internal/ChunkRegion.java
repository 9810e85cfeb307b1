package dev.ferrite.internal;

import dev.ferrite.FerriteException;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.Region;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The one {@link Region} of every backend: part of one chunk as a {@code (base, position)} pair of
 * the segment's chunk table, reached through the segment handle's primitives. Checked like the
 * handle ({@link Checks}): the offset against the region, and the handle for being open (and
 * writable, for a write) — so a region outlives neither its handle nor its pool, and a read-only
 * pool refuses writes through it, checks on or off.
 */
final class ChunkRegion implements Region {

    private static final boolean CHECKS = Checks.ENABLED;

    private final AbstractSegment segment;
    private final int chunk;
    final Object base;
    final long position;
    private final int offsetInChunk;
    private final int length;
    private final long segmentOffset;

    ChunkRegion(AbstractSegment segment, int chunk, Object base, long position, int offsetInChunk, int length,
            long segmentOffset) {
        this.segment = segment;
        this.chunk = chunk;
        this.base = base;
        this.position = position;
        this.offsetInChunk = offsetInChunk;
        this.length = length;
        this.segmentOffset = segmentOffset;
    }

    private void checkLoad(int off, int width) {
        if (CHECKS) {
            if (segment.limit < 0) {
                throw segment.closedError();
            }
            try {
                Objects.checkIndex(off, length - width + 1);
            } catch (IndexOutOfBoundsException e) {
                throw outside(off, width);
            }
        }
    }

    private void checkStore(int off, int width) {
        if (CHECKS) {
            if (segment.writeLimit < 0) {
                throw segment.writeError(segmentOffset + off, width);
            }
            try {
                Objects.checkIndex(off, length - width + 1);
            } catch (IndexOutOfBoundsException e) {
                throw outside(off, width);
            }
        } else if (segment.readOnly()) {
            throw segment.writeError(segmentOffset + off, width);
        }
    }

    /** Checked with checks on or off: a bulk range of this region, and an array range. */
    private void checkBulk(int off, long len, boolean write, int arrayLength, int from, int count) {
        if (write ? segment.writeLimit < 0 : segment.limit < 0) {
            throw write ? segment.writeError(segmentOffset + off, len) : segment.closedError();
        }
        if ((off | len) < 0 || len > length - off) { // compared, not a call to inline: see AbstractSegment.checkRange
            throw outside(off, len);
        }
        AbstractSegment.checkArray(arrayLength, from, count);
    }

    private OutOfBoundsException outside(long off, long len) {
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
        checkLoad(off, 1);
        return segment.regionLoadByte(base, position, off);
    }

    @Override
    public void putByte(int off, byte v) {
        checkStore(off, 1);
        segment.regionStoreByte(base, position, off, v);
    }

    @Override
    public int getInt(int off) {
        checkLoad(off, 4);
        return segment.regionLoadInt(base, position, off);
    }

    @Override
    public void putInt(int off, int v) {
        checkStore(off, 4);
        segment.regionStoreInt(base, position, off, v);
    }

    @Override
    public long getLong(int off) {
        checkLoad(off, 8);
        return segment.regionLoadLong(base, position, off);
    }

    @Override
    public void putLong(int off, long v) {
        checkStore(off, 8);
        segment.regionStoreLong(base, position, off, v);
    }

    @Override
    public double getDouble(int off) {
        checkLoad(off, 8);
        return segment.regionLoadDouble(base, position, off);
    }

    @Override
    public void putDouble(int off, double v) {
        checkStore(off, 8);
        segment.regionStoreDouble(base, position, off, v);
    }

    @Override
    public void copyTo(int off, byte[] dst, int dstOff, int len) {
        checkBulk(off, len, false, dst.length, dstOff, len);
        segment.copyToArray(base, position + off, dst, dstOff, len);
    }

    @Override
    public void copyFrom(byte[] src, int srcOff, int off, int len) {
        checkBulk(off, len, true, src.length, srcOff, len);
        segment.copyFromArray(src, srcOff, len, base, position + off);
    }

    @Override
    public void copyTo(int off, double[] dst, int dstOff, int count) {
        checkBulk(off, 8L * count, false, dst.length, dstOff, count);
        segment.copyToArray(base, position + off, dst, dstOff, count);
    }

    @Override
    public void copyFrom(double[] src, int srcOff, int off, int count) {
        checkBulk(off, 8L * count, true, src.length, srcOff, count);
        segment.copyFromArray(src, srcOff, count, base, position + off);
    }

    @Override
    public void copyTo(int off, long[] dst, int dstOff, int count) {
        checkBulk(off, 8L * count, false, dst.length, dstOff, count);
        segment.copyToArray(base, position + off, dst, dstOff, count);
    }

    @Override
    public void copyFrom(long[] src, int srcOff, int off, int count) {
        checkBulk(off, 8L * count, true, src.length, srcOff, count);
        segment.copyFromArray(src, srcOff, count, base, position + off);
    }

    @Override
    public void copyTo(int off, Region dst, int dstOff, int len) {
        checkBulk(off, len, false, Integer.MAX_VALUE, 0, 0);
        if (dst instanceof ChunkRegion) {
            ChunkRegion d = (ChunkRegion) dst;
            d.checkBulk(dstOff, len, true, Integer.MAX_VALUE, 0, 0);
            if (d.segment.getClass() == segment.getClass()) {
                segment.copyMemory(base, position + off, d.base, d.position + dstOff, len);
                return;
            }
        } else {
            try {
                Objects.checkFromIndexSize(dstOff, len, dst.length());
            } catch (IndexOutOfBoundsException e) {
                throw new OutOfBoundsException("destination offset " + dstOff + " length " + len
                        + " is outside a region of " + dst.length() + " bytes");
            }
        }
        ByteBuffer target = dst.asByteBuffer();
        if (target.isReadOnly()) {
            throw new FerriteException("cannot copy " + len + " bytes into a read-only region");
        }
        target.put(dstOff, asByteBuffer(), off, len);
    }

    @Override
    public void fill(int off, int len, byte value) {
        checkBulk(off, len, true, Integer.MAX_VALUE, 0, 0);
        segment.fillMemory(base, position + off, len, value);
    }

    @Override
    public ByteBuffer asByteBuffer() {
        if (segment.limit < 0) {
            throw segment.closedError();
        }
        return segment.chunkBuffer(chunk, offsetInChunk, length);
    }
}
