package dev.ferrite.kv;

import dev.ferrite.kv.TreeReader.Hit;
import dev.ferrite.kv.TreeReader.Rel;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * Walks a sorted map's range in its order a leaf at a time, each run read as it was at one
 * instant: weakly consistent, never {@code ConcurrentModificationException}; an entry present
 * throughout is met once. {@code remove} removes the last key returned. Not thread-safe (an
 * iterator per thread, as for any collection's).
 *
 * @param <T> what the walk returns for each entry
 */
final class SortedWalk<T> implements Iterator<T> {

    private final SortedStore store;
    private final byte[] lo;
    private final boolean loInclusive;
    private final byte[] hi;
    private final boolean hiInclusive;
    private final boolean descending;
    private final Function<Hit, T> out;
    private final Rel onwards;
    private List<Hit> run;
    private int i;
    private boolean ended;
    private byte[] lastKey;

    /**
     * @param store       the map's store
     * @param lo          the range's low bound in the map's order, or null for none
     * @param loInclusive whether a key equal to {@code lo} is in the range
     * @param hi          its high bound, or null for none
     * @param hiInclusive whether a key equal to {@code hi} is in the range
     * @param descending  whether the walk goes from the high end down
     * @param out         what to return for each entry
     */
    SortedWalk(SortedStore store, byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, boolean descending,
               Function<Hit, T> out) {
        this.store = store;
        this.lo = lo;
        this.loInclusive = loInclusive;
        this.hi = hi;
        this.hiInclusive = hiInclusive;
        this.descending = descending;
        this.out = out;
        this.onwards = descending ? Rel.LT : Rel.GT;
        byte[] edge = descending ? hi : lo;
        boolean inclusive = descending ? hiInclusive : loInclusive;
        Rel first = descending ? (inclusive || edge == null ? Rel.LE : Rel.LT) : (inclusive || edge == null ? Rel.GE : Rel.GT);
        take(edge, first);
    }

    /** Reads the entries from a key on, as far as its leaf and the range's far end go. */
    private void take(byte[] from, Rel rel) {
        TreeReader reader = store.reader();
        TreeReader.Run r = descending ? reader.run(from, rel, Integer.MAX_VALUE, lo, loInclusive)
                : reader.run(from, rel, Integer.MAX_VALUE, hi, hiInclusive);
        run = r.hits();
        i = 0;
        ended = r.last() || run.isEmpty();
    }

    @Override
    public boolean hasNext() {
        if (i < run.size()) {
            return true;
        }
        if (ended) {
            return false;
        }
        take(run.get(run.size() - 1).key(), onwards);
        return i < run.size();
    }

    @Override
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Hit h = run.get(i++);
        lastKey = h.key();
        return out.apply(h);
    }

    @Override
    public void remove() {
        if (lastKey == null) {
            throw new IllegalStateException("next() has not returned an entry since the last remove()");
        }
        byte[] k = lastKey;
        lastKey = null;
        store.write(w -> w.update(k, old -> null));
    }
}
