package dev.ferrite.internal;

import dev.ferrite.DoubleArray;
import dev.ferrite.IntArray;
import dev.ferrite.LongArray;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.Segment;
import java.util.Objects;

/**
 * The typed, {@code long}-indexed views of a segment. Each access is one shift and the segment's
 * own access (a final method, so it inlines); with checks on the index is checked first, because a
 * huge index shifted left could wrap around to a valid offset.
 */
final class SegmentArrays {

    private static final boolean CHECKS = Checks.ENABLED;

    private SegmentArrays() {
    }

    // Objects.checkIndex is a JIT intrinsic, checked once per counted loop rather than per element.
    private static void checkIndex(long i, long length, String type) {
        try {
            Objects.checkIndex(i, length);
        } catch (IndexOutOfBoundsException e) {
            throw indexError(i, length, type);
        }
    }

    private static OutOfBoundsException indexError(long i, long length, String type) {
        return new OutOfBoundsException("index " + i + " is outside a " + type + " view of " + length
                + " elements (valid indices: [0, " + length + "))");
    }

    static final class Doubles implements DoubleArray {
        private final AbstractSegment segment;
        private final long length;

        Doubles(AbstractSegment segment) {
            this.segment = segment;
            this.length = segment.size() >>> 3;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public double get(long i) {
            if (CHECKS) {
                checkIndex(i, length, "double");
            }
            return segment.getDouble(i << 3);
        }

        @Override
        public void set(long i, double v) {
            if (CHECKS) {
                checkIndex(i, length, "double");
            }
            segment.putDouble(i << 3, v);
        }

        @Override
        public Segment segment() {
            return segment;
        }
    }

    static final class Longs implements LongArray {
        private final AbstractSegment segment;
        private final long length;

        Longs(AbstractSegment segment) {
            this.segment = segment;
            this.length = segment.size() >>> 3;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public long get(long i) {
            if (CHECKS) {
                checkIndex(i, length, "long");
            }
            return segment.getLong(i << 3);
        }

        @Override
        public void set(long i, long v) {
            if (CHECKS) {
                checkIndex(i, length, "long");
            }
            segment.putLong(i << 3, v);
        }

        @Override
        public Segment segment() {
            return segment;
        }
    }

    static final class Ints implements IntArray {
        private final AbstractSegment segment;
        private final long length;

        Ints(AbstractSegment segment) {
            this.segment = segment;
            this.length = segment.size() >>> 2;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public int get(long i) {
            if (CHECKS) {
                checkIndex(i, length, "int");
            }
            return segment.getInt(i << 2);
        }

        @Override
        public void set(long i, int v) {
            if (CHECKS) {
                checkIndex(i, length, "int");
            }
            segment.putInt(i << 2, v);
        }

        @Override
        public Segment segment() {
            return segment;
        }
    }
}
