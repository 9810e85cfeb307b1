package dev.ferrite.internal;

import dev.ferrite.DoubleArray;
import dev.ferrite.IntArray;
import dev.ferrite.LongArray;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.Segment;
import java.util.Objects;

/**
 * The typed, {@code long}-indexed views of a segment. An access is one check and the segment's
 * walk without its own check: the index is checked against the handle's live limit shifted to
 * elements, which is -1 once the handle is closed (or, for writes, on a read-only pool), so the
 * one compare catches a bad index, a closed handle and a read-only pool, and a huge index never
 * wraps around to a valid offset. {@code Objects.checkIndex} is a JIT intrinsic that a counted
 * loop hoists. Elements are naturally aligned, so none crosses a chunk and the walk has no fit
 * test. With checks off only writes to a read-only pool are refused.
 */
final class SegmentArrays {

    private static final boolean CHECKS = Checks.ENABLED;

    private SegmentArrays() {
    }

    /** Checks a read of element {@code i}; {@code shift} is log2 of the element size. */
    private static void checkGet(AbstractSegment s, long i, int shift, String type) {
        if (CHECKS) {
            try {
                Objects.checkIndex(i, s.limit >> shift);
            } catch (IndexOutOfBoundsException e) {
                throw s.limit < 0 ? s.closedError() : indexError(s, i, shift, type);
            }
        }
    }

    /** Checks a write of element {@code i}, which a read-only pool refuses with checks on or off. */
    private static void checkSet(AbstractSegment s, long i, int shift, String type) {
        if (CHECKS) {
            try {
                Objects.checkIndex(i, s.writeLimit >> shift);
            } catch (IndexOutOfBoundsException e) {
                throw s.limit < 0 || s.readOnly() ? s.writeError(i << shift, 1L << shift) : indexError(s, i, shift, type);
            }
        } else if (s.readOnly()) {
            throw s.writeError(i << shift, 1L << shift);
        }
    }

    private static OutOfBoundsException indexError(AbstractSegment s, long i, int shift, String type) {
        long length = s.size() >> shift;
        return new OutOfBoundsException("index " + i + " is outside a " + type + " view of " + length
                + " elements (valid indices: [0, " + length + "))");
    }

    static final class Doubles implements DoubleArray {
        private final AbstractSegment segment;

        Doubles(AbstractSegment segment) {
            this.segment = segment;
        }

        @Override
        public long length() {
            return segment.size() >>> 3;
        }

        @Override
        public double get(long i) {
            checkGet(segment, i, 3, "double");
            return segment.loadDoubleInChunk(i << 3);
        }

        @Override
        public void set(long i, double v) {
            checkSet(segment, i, 3, "double");
            segment.storeDoubleInChunk(i << 3, v);
        }

        @Override
        public Segment segment() {
            return segment;
        }
    }

    static final class Longs implements LongArray {
        private final AbstractSegment segment;

        Longs(AbstractSegment segment) {
            this.segment = segment;
        }

        @Override
        public long length() {
            return segment.size() >>> 3;
        }

        @Override
        public long get(long i) {
            checkGet(segment, i, 3, "long");
            return segment.loadLongInChunk(i << 3);
        }

        @Override
        public void set(long i, long v) {
            checkSet(segment, i, 3, "long");
            segment.storeLongInChunk(i << 3, v);
        }

        @Override
        public Segment segment() {
            return segment;
        }
    }

    static final class Ints implements IntArray {
        private final AbstractSegment segment;

        Ints(AbstractSegment segment) {
            this.segment = segment;
        }

        @Override
        public long length() {
            return segment.size() >>> 2;
        }

        @Override
        public int get(long i) {
            checkGet(segment, i, 2, "int");
            return segment.loadIntInChunk(i << 2);
        }

        @Override
        public void set(long i, int v) {
            checkSet(segment, i, 2, "int");
            segment.storeIntInChunk(i << 2, v);
        }

        @Override
        public Segment segment() {
            return segment;
        }
    }
}
