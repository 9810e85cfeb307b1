package dev.ferrite.kv;

import dev.ferrite.kv.TreeReader.Rel;

import java.util.Arrays;

/**
 * A range of a sorted map's keys and the direction a view walks it: the bounds of
 * {@link SortedView} and its sub-maps. Bounds are key bytes compared unsigned and lexicographically
 * (the map's order), null for none; "low" and "high" are in the map's order whatever the
 * direction. Immutable; its arrays are never changed.
 */
final class KeyRange {

    /** Every key, ascending. */
    static final KeyRange ALL = new KeyRange(null, false, null, false, false);

    final byte[] lo;
    final boolean loInclusive;
    final byte[] hi;
    final boolean hiInclusive;
    final boolean descending;

    /** @throws IllegalArgumentException if both bounds are given and the low one is above the high one */
    KeyRange(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, boolean descending) {
        if (lo != null && hi != null && Arrays.compareUnsigned(lo, hi) > 0) {
            throw new IllegalArgumentException("inconsistent range: the low bound is above the high one");
        }
        this.lo = lo;
        this.loInclusive = loInclusive;
        this.hi = hi;
        this.hiInclusive = hiInclusive;
        this.descending = descending;
    }

    /** @return whether the range has neither bound */
    boolean isWhole() {
        return lo == null && hi == null;
    }

    /** @return whether a key lies below the range */
    boolean tooLow(byte[] k) {
        if (lo == null) {
            return false;
        }
        int c = Arrays.compareUnsigned(k, lo);
        return c < 0 || c == 0 && !loInclusive;
    }

    /** @return whether a key lies above the range */
    boolean tooHigh(byte[] k) {
        if (hi == null) {
            return false;
        }
        int c = Arrays.compareUnsigned(k, hi);
        return c > 0 || c == 0 && !hiInclusive;
    }

    /** @return whether a key lies within the range */
    boolean contains(byte[] k) {
        return !tooLow(k) && !tooHigh(k);
    }

    /** @return a relation of the range's direction, in the map's order */
    Rel inMapOrder(Rel viewRel) {
        if (!descending) {
            return viewRel;
        }
        return switch (viewRel) {
            case LT -> Rel.GT;
            case LE -> Rel.GE;
            case GE -> Rel.LE;
            case GT -> Rel.LT;
        };
    }

    /** @return the same keys in the other direction */
    KeyRange reversed() {
        return new KeyRange(lo, loInclusive, hi, hiInclusive, !descending);
    }

    /**
     * The range narrowed to bounds given in its own direction ({@code from} first), in the same
     * direction.
     *
     * @param from the bound the narrowed range starts at in this range's direction, or null for this range's own
     * @param to   the bound it ends at, or null for this range's own
     * @throws IllegalArgumentException if a bound lies outside this range, or {@code from} lies past {@code to}
     */
    KeyRange narrowed(byte[] from, boolean fromInclusive, byte[] to, boolean toInclusive) {
        byte[] low = descending ? to : from;
        boolean lowInclusive = descending ? toInclusive : fromInclusive;
        byte[] high = descending ? from : to;
        boolean highInclusive = descending ? fromInclusive : toInclusive;
        if (lo != null) {
            if (low == null) {
                low = lo;
                lowInclusive = loInclusive;
            } else {
                int c = Arrays.compareUnsigned(low, lo);
                if (c < 0 || c == 0 && !loInclusive && lowInclusive) {
                    throw new IllegalArgumentException("key out of range");
                }
            }
        }
        if (hi != null) {
            if (high == null) {
                high = hi;
                highInclusive = hiInclusive;
            } else {
                int c = Arrays.compareUnsigned(high, hi);
                if (c > 0 || c == 0 && !hiInclusive && highInclusive) {
                    throw new IllegalArgumentException("key out of range");
                }
            }
        }
        return new KeyRange(low, lowInclusive, high, highInclusive, descending);
    }
}
