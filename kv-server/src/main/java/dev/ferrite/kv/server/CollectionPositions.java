package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteSortedMap;

import java.util.List;
import java.util.Map;

/**
 * A collection's elements by position, found by the tree's counts of entries (a descent by rank,
 * O(log n)), not by a walk from the collection's start: where a collection's elements lie among all
 * the store's entries ({@link #span}), an element by its index or by that rank, a list's values
 * from an index, a sorted set's members by score rank. What a list's index, {@code SPOP}'s random
 * pick, a scan's cursor and a sorted set's {@code ZRANGE} by rank read. Reads take no lock; the
 * removal runs inside the store's atomic change. Thread-safe as the tree is.
 */
final class CollectionPositions {

    private final FerriteSortedMap<byte[], byte[]> tree;

    CollectionPositions(FerriteSortedMap<byte[], byte[]> tree) {
        this.tree = tree;
    }

    /** @return how many of a sorted set's members by score are below {@code key}, in one read */
    long scoresBelow(long id, byte[] key) {
        return tree.subMap(CollectionLayout.scoresFrom(id), true, key, false).size();
    }

    /** @return the key of a sorted set's member by score at {@code rank} (0 the lowest), or null */
    byte[] scoreAt(long id, long rank) {
        return keyOf(tree.entryAt(CollectionLayout.scoresFrom(id), rank), id, CollectionLayout.SCORE);
    }

    /**
     * Where collection {@code id}'s elements lie among all the store's entries, both ranks counted
     * in one state of the tree (so the size is the collection's at that instant, whatever other
     * collections' writers and the sweeper change). Outside {@link CollectionStore#change}, a
     * writer after it may move the ranks ({@link #elementAtRank} then finds an entry that is not
     * the collection's).
     *
     * @return the rank of its first element and its size
     */
    Span span(long id) {
        long[] below = tree.countBelow(CollectionLayout.elementsFrom(id), CollectionLayout.elementsTo(id));
        return new Span(below[0], Math.max(0, below[1] - below[0]));
    }

    /** Where a collection's elements lie among the store's entries: the rank of the first, and how many. */
    record Span(long first, long size) {
    }

    /**
     * @param rank a rank among all the store's entries, as {@link #span} counts them
     * @return the element key of collection {@code id} at that rank (a descent by rank, no search
     *         for the collection's start), or null if the entry there is not one of its elements
     */
    byte[] elementAtRank(long id, long rank) {
        return keyOf(tree.entryAt(rank), id, CollectionLayout.ELEMENT);
    }

    /**
     * Removes the element of collection {@code id} at a rank among all the store's entries, as
     * {@link #span} counts them in the same change: one descent finds and removes it. Inside
     * {@link CollectionStore#change}.
     *
     * @return its key in the store ({@link CollectionLayout#member} gives the member)
     * @throws IllegalStateException if the entry at that rank is not one of the collection's
     *                               elements (the span was read outside this change): the change
     *                               is then rolled back
     */
    byte[] removeElementAtRank(long id, long rank) {
        Map.Entry<byte[], byte[]> e = tree.removeEntryAt(rank);
        byte[] k = keyOf(e, id, CollectionLayout.ELEMENT);
        if (k == null) {
            throw new IllegalStateException("the store's entry at rank " + rank + " is not an element of collection "
                    + id + ": its span was not read in this change");
        }
        return k;
    }

    /** @return the {@code index}-th element key of collection {@code id} (0 the first), or null */
    byte[] elementAt(long id, long index) {
        Map.Entry<byte[], byte[]> e = tree.entryAt(CollectionLayout.elementsFrom(id), index); // one read: the base cannot move
        return keyOf(e, id, CollectionLayout.ELEMENT);
    }

    /**
     * @return the values of up to {@code max} elements of collection {@code id} from the
     *         {@code index}-th (0 the first) on, in order, read on from the first
     *         ({@link FerriteSortedMap#valuesAt})
     */
    List<byte[]> valuesAt(long id, long index, int max) {
        return tree.valuesAt(CollectionLayout.elementsFrom(id), index, CollectionLayout.elementsTo(id), max);
    }

    /** @return the entry's key if it is one of collection {@code id}'s keys of that kind, else null (also for no entry) */
    private static byte[] keyOf(Map.Entry<byte[], byte[]> e, long id, byte kind) {
        return e == null || CollectionLayout.id(e.getKey()) != id || e.getKey()[CollectionLayout.ID_BYTES] != kind ? null : e.getKey();
    }
}
