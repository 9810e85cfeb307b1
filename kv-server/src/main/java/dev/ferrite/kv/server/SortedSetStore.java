package dev.ferrite.kv.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.UnaryOperator;

/**
 * A sorted set's members in the {@link CollectionStore}: each member is an element whose value is
 * its score ({@code [id][1][member]}, for O(log n) ZSCORE) and a key by score ({@code
 * [id][2][order][member]}, {@link CollectionLayout#scoreKey}), so the members by score, a rank, and
 * the member at a rank are O(log n) reads of the store's tree. Changes run inside the store's
 * atomic change ({@link CollectionWrite}); a read of several members runs under the store's lock,
 * so it sees one state of the set. Stateless.
 */
final class SortedSetStore {

    private static final byte[] EMPTY = new byte[0];

    private SortedSetStore() {
    }

    /** @return a member's score, or null if it is not in the set */
    static Double score(CollectionStore store, long id, byte[] member) {
        byte[] v = store.get(id, member);
        return v == null ? null : CollectionLayout.scoreValueOf(v);
    }

    /** Adds a member that is not in the set (of a set being made) with its score; inside an atomic change. */
    static void add(CollectionStore store, long id, byte[] member, double score) {
        store.put(id, member, CollectionLayout.scoreValue(score));
        reindex(store, id, member, score, null);
    }

    /**
     * Gives a member the score {@code decide} picks from its score now, reading and writing the
     * member's entry in one descent of the store; inside an atomic change.
     *
     * @param decide given the member's score (null if it is not in the set), returns its new score,
     *               or null to leave it as it is; called once
     * @return whether anything changed (a score equal to the one it had changes nothing)
     */
    static boolean update(CollectionStore store, long id, byte[] member, UnaryOperator<Double> decide) {
        Double[] scores = new Double[2]; // before, after: after null if nothing changed
        store.update(id, member, value -> {
            Double before = value == null ? null : CollectionLayout.scoreValueOf(value);
            Double after = decide.apply(before);
            if (after == null || before != null && before.doubleValue() == after) {
                return value;
            }
            scores[0] = before;
            scores[1] = after;
            return CollectionLayout.scoreValue(after);
        });
        if (scores[1] == null) {
            return false;
        }
        reindex(store, id, member, scores[1], scores[0]);
        return true;
    }

    /** Moves a member's key by score from its old score (null: none) to its new one. */
    private static void reindex(CollectionStore store, long id, byte[] member, double score, Double old) {
        if (old != null) {
            store.removeKey(CollectionLayout.scoreKey(id, old, member));
        }
        store.putKey(CollectionLayout.scoreKey(id, score, member), EMPTY);
    }

    /** Removes a member; inside an atomic change. @return whether it was there */
    static boolean remove(CollectionStore store, long id, byte[] member) {
        byte[] v = store.remove(id, member);
        if (v == null) {
            return false;
        }
        store.removeKey(CollectionLayout.scoreKey(id, CollectionLayout.scoreValueOf(v), member));
        return true;
    }

    /** Removes the members whose keys by score these are; inside an atomic change. */
    static void removeAll(CollectionStore store, long id, List<byte[]> scoreKeys) {
        for (byte[] k : scoreKeys) {
            store.remove(id, CollectionLayout.scoreMember(k));
            store.removeKey(k);
        }
    }

    /**
     * Removes up to {@code count} members from one end; inside an atomic change.
     *
     * @param highest whether to take the highest scores (else the lowest)
     * @return the removed members' keys by score, in the order taken
     */
    static List<byte[]> pop(CollectionStore store, long id, long count, boolean highest) {
        NavigableMap<byte[], byte[]> scores = store.scores(id);
        if (count == 1) { // the end's entry taken in the descent that finds it, not the run of its leaf
            Map.Entry<byte[], byte[]> end = highest ? scores.pollLastEntry() : scores.pollFirstEntry();
            if (end == null) {
                return List.of();
            }
            store.remove(id, CollectionLayout.scoreMember(end.getKey()));
            return List.of(end.getKey());
        }
        List<byte[]> taken = new ArrayList<>((int) Math.min(count, 1024));
        Iterator<byte[]> it = highest ? scores.descendingKeySet().iterator() : scores.keySet().iterator();
        while (taken.size() < count && it.hasNext()) {
            taken.add(it.next());
        }
        removeAll(store, id, taken);
        return taken;
    }

    /** @return a member's rank from the lowest score (0 the first) */
    static long rank(CollectionStore store, long id, byte[] member, double score) {
        return store.positions().scoresBelow(id, CollectionLayout.scoreKey(id, score, member));
    }

    /** Ranks [{@code from}, {@code to}) of a sorted set in the order of scores: what a range names. */
    record Ranks(long from, long to) {
        static final Ranks NONE = new Ranks(0, 0);

        long size() {
            return Math.max(0, to - from);
        }
    }

    /**
     * @param minKey the lowest key by score in the range (inclusive)
     * @param maxKey the key by score above the range (exclusive)
     * @return the ranks of the members between the keys
     */
    static Ranks between(CollectionStore store, long id, byte[] minKey, byte[] maxKey) {
        if (Arrays.compareUnsigned(minKey, maxKey) >= 0) {
            return Ranks.NONE;
        }
        return new Ranks(store.positions().scoresBelow(id, minKey), store.positions().scoresBelow(id, maxKey));
    }

    /**
     * @param start Redis's start index (negative: from the end)
     * @param stop  Redis's stop index, inclusive
     * @param rev   whether the indexes count from the highest score
     * @return the ranks ZRANGE's indexes name, in the order of scores
     */
    static Ranks byIndex(CollectionStore store, long id, long start, long stop, boolean rev) {
        long n = store.size(id);
        if (start < 0) {
            start += n;
        }
        if (stop < 0) {
            stop += n;
        }
        start = Math.max(start, 0);
        if (start > stop || start >= n) {
            return Ranks.NONE;
        }
        stop = Math.min(stop, n - 1);
        return rev ? new Ranks(n - 1 - stop, n - start) : new Ranks(start, stop + 1);
    }

    /**
     * @param rev    whether to walk from the highest score down
     * @param offset members of the range to pass over first (negative: none is returned)
     * @param count  the most to return (negative: all)
     * @return the keys by score of the range's members, in the walk's order
     */
    static List<byte[]> keys(CollectionStore store, long id, Ranks ranks, boolean rev, long offset, long count) {
        long n = ranks.size();
        if (offset < 0 || offset >= n) {
            return List.of();
        }
        long take = count < 0 ? n - offset : Math.min(count, n - offset);
        List<byte[]> out = new ArrayList<>((int) Math.min(take, 1024));
        byte[] first = store.positions().scoreAt(id, rev ? ranks.to() - 1 - offset : ranks.from() + offset);
        if (first == null) {
            return out;
        }
        Iterator<byte[]> it = rev ? store.scores(id).headMap(first, true).descendingKeySet().iterator()
                : store.scores(id).tailMap(first, true).keySet().iterator();
        while (out.size() < take && it.hasNext()) {
            out.add(it.next());
        }
        return out;
    }
}
