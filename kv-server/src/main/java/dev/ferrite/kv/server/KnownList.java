package dev.ferrite.kv.server;

/**
 * What the last change of one {@link CollectionStore} left of one list, its size and end
 * positions, with the tree's {@link dev.ferrite.kv.FerriteSortedMap#version version} after it:
 * while the version is the same, no change was published since (by this process or another), so a
 * push or pop learns the list's size, and a push where its end is, from it instead of from descents
 * of the tree, as Redis keeps each list's length and ends. A change notes a shape
 * ({@link #pending}); the note counts only if the change is then published ({@link #published}).
 * Used by the store's lock holder only: not thread-safe.
 */
final class KnownList {

    /**
     * A list's size and end positions as far as they are known.
     *
     * @param size  its elements, or -1 if not known
     * @param ends  which of {@code first} and {@code last} are known: {@link #FIRST}, {@link #LAST},
     *              both or neither
     * @param first the first element's position (unsigned), if known
     * @param last  the last element's position (unsigned), if known
     */
    record Shape(long size, int ends, long first, long last) {
        static final int FIRST = 1;
        static final int LAST = 2;
        /** Nothing known. */
        static final Shape UNKNOWN = new Shape(-1, 0, 0, 0);
        /** An empty list: no element, so no end. */
        static final Shape EMPTY = new Shape(0, 0, 0, 0);

        /** @return whether the position of the first ({@code left}) or last end is known */
        boolean knows(boolean left) {
            return (ends & (left ? FIRST : LAST)) != 0;
        }

        /** @return the position of the first ({@code left}) or last end; only if {@link #knows} it */
        long end(boolean left) {
            return left ? first : last;
        }

        /** @return this shape with the position of one end learned otherwise */
        Shape withEnd(boolean left, long p) {
            return with(size, left, p);
        }

        /** @return the shape after an element was added at one end, at position {@code p} */
        Shape pushed(boolean left, long p) {
            return size == 0 ? new Shape(1, FIRST | LAST, p, p) : with(size < 0 ? -1 : size + 1, left, p);
        }

        private Shape with(long size, boolean left, long p) {
            return left ? new Shape(size, ends | FIRST, p, last) : new Shape(size, ends | LAST, first, p);
        }

        /** @return the shape after {@code n} elements were taken from one end (the new end is not known) */
        Shape popped(boolean left, long n) {
            return new Shape(size < 0 ? -1 : size - n, ends & (left ? ~FIRST : ~LAST), first, last);
        }

        /** @return this shape with a size learned otherwise */
        Shape withSize(long size) {
            return new Shape(size, ends, first, last);
        }
    }

    private long id;
    /** Null until a change's note is published. */
    private Shape shape;
    private long version;
    private long pendingId;
    private Shape pending;

    /** @return list {@code id}'s shape in the tree of that version, or {@link Shape#UNKNOWN} */
    Shape of(long id, long version) {
        return shape != null && id == this.id && version == this.version ? shape : Shape.UNKNOWN;
    }

    /** Notes list {@code id}'s shape as the running change leaves it. */
    void pending(long id, Shape shape) {
        pendingId = id;
        pending = shape;
    }

    /**
     * The running change ended.
     *
     * @param published whether it published a new tree
     * @param version   the tree's version now
     */
    void published(boolean published, long version) {
        if (published && pending != null) {
            id = pendingId;
            shape = pending;
            this.version = version;
        }
        pending = null;
    }

    /** The running change failed: what it noted is dropped. */
    void dropPending() {
        pending = null;
    }
}
