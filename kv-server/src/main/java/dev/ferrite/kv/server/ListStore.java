package dev.ferrite.kv.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * How a list lies in the collection store: its elements are elements of its collection
 * ({@link CollectionStore}) keyed by a position ({@link #POSITION} bytes, big-endian, compared
 * unsigned). A push at either end takes the position one {@link #STEP} beyond that end, so a push
 * or pop is a descent of the store, O(log n); an insert beside an element takes the middle of its
 * neighbours' positions, and renumbers the list (O(n), as Redis's LINSERT is) when they are
 * adjacent. The methods that change a list run inside the atomic change of its command. Stateless.
 */
final class ListStore {

    /** Bytes of a position. */
    static final int POSITION = 8;
    /** The distance between the positions of elements pushed one after the other. */
    static final long STEP = 1L << 20;
    /** The position of a new list's first element: the middle of the unsigned range. */
    private static final long MIDDLE = Long.MIN_VALUE;

    private ListStore() {
    }

    /** @return the {@link #POSITION} bytes of a position, big-endian */
    static byte[] position(long p) {
        byte[] b = new byte[POSITION];
        for (int i = 0; i < POSITION; i++) {
            b[i] = (byte) (p >>> (56 - 8 * i));
        }
        return b;
    }

    /** @return the position of an element, read from its store key (its collection's prefix, then the position) */
    static long position(byte[] key) {
        long p = 0;
        for (int i = 0; i < POSITION; i++) {
            p = p << 8 | (key[CollectionLayout.PREFIX + i] & 0xFF);
        }
        return p;
    }

    /** Adds an element at one end of list {@code id}. */
    static void pushOne(CollectionStore store, long id, boolean left, byte[] value) {
        pushOne(store, id, left, value, KnownList.Shape.UNKNOWN);
    }

    /**
     * Adds an element at one end of list {@code id}, at the end a shape the store noted gives, or
     * one found with a descent.
     *
     * @return the list's shape after it
     */
    static KnownList.Shape pushOne(CollectionStore store, long id, boolean left, byte[] value, KnownList.Shape shape) {
        if (shape.size() != 0 && !shape.knows(left)) {
            NavigableMap<byte[], byte[]> elements = store.elements(id);
            Map.Entry<byte[], byte[]> edge = left ? elements.firstEntry() : elements.lastEntry(); // one descent
            shape = edge == null ? KnownList.Shape.EMPTY : shape.withEnd(left, position(edge.getKey()));
        }
        long p = MIDDLE;
        if (shape.size() != 0) {
            long end = shape.end(left);
            if (left ? Long.compareUnsigned(end, STEP) < 0 : Long.compareUnsigned(end, -STEP) >= 0) {
                renumber(store, id);
                NavigableMap<byte[], byte[]> elements = store.elements(id);
                end = position(left ? elements.firstKey() : elements.lastKey());
                shape = new KnownList.Shape(shape.size(), 0, 0, 0).withEnd(left, end); // the other end moved too
            }
            p = left ? end - STEP : end + STEP;
        }
        byte[] taken = store.put(id, position(p), value);
        if (taken != null) { // a shape that disagrees with the tree: undo, and find the end in the tree
            store.put(id, position(p), taken);
            return pushOne(store, id, left, value, KnownList.Shape.UNKNOWN);
        }
        return shape.pushed(left, p);
    }

    /** @return the element taken from one end of list {@code id}, or null if it is empty */
    static byte[] popOne(CollectionStore store, long id, boolean left) {
        NavigableMap<byte[], byte[]> elements = store.elements(id);
        Map.Entry<byte[], byte[]> e = left ? elements.pollFirstEntry() : elements.pollLastEntry();
        return e == null ? null : e.getValue();
    }

    /**
     * Puts an element right before or after another of list {@code id}, if a position is free
     * between that one and its neighbour; else renumbers the list, so that a second call finds one.
     *
     * @param elements the list's elements ({@link CollectionStore#elements})
     * @param pivot    the store key of the element beside which the new one goes
     * @return whether the element was put
     */
    static boolean insertBeside(CollectionStore store, long id, NavigableMap<byte[], byte[]> elements, byte[] pivot,
                                boolean before, byte[] value) {
        byte[] neighbour = before ? elements.lowerKey(pivot) : elements.higherKey(pivot);
        long p = position(pivot);
        Long at = null;
        if (neighbour != null) {
            long lo = before ? position(neighbour) : p;
            long hi = before ? p : position(neighbour);
            if (hi - lo >= 2) { // unsigned: hi is above lo
                at = lo + (hi - lo) / 2;
            }
        } else if (before ? Long.compareUnsigned(p, STEP) >= 0 : Long.compareUnsigned(p, -STEP) < 0) {
            at = before ? p - STEP : p + STEP;
        }
        if (at == null) {
            renumber(store, id);
            return false;
        }
        store.put(id, position(at), value);
        return true;
    }

    /** Gives list {@code id}'s elements positions {@link #STEP} apart around the middle, in order; O(n). */
    private static void renumber(CollectionStore store, long id) {
        List<byte[]> values = new ArrayList<>(store.elements(id).values());
        store.elements(id).clear();
        long p = MIDDLE - (values.size() / 2) * STEP;
        for (byte[] v : values) {
            store.put(id, position(p), v);
            p += STEP;
        }
    }
}
