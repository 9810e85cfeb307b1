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
    private final KeyRange range;
    private final Function<Hit, T> out;
    private final Rel onwards;
    private List<Hit> run;
    private int i;
    private boolean ended;
    private byte[] lastKey;

    /**
     * @param store the map's store
     * @param range the keys walked, and the direction
     * @param out   what to return for each entry
     */
    SortedWalk(SortedStore store, KeyRange range, Function<Hit, T> out) {
        this.store = store;
        this.range = range;
        this.out = out;
        this.onwards = range.descending ? Rel.LT : Rel.GT;
        byte[] edge = range.descending ? range.hi : range.lo;
        boolean inclusive = range.descending ? range.hiInclusive : range.loInclusive;
        Rel first = range.descending ? (inclusive || edge == null ? Rel.LE : Rel.LT)
                : (inclusive || edge == null ? Rel.GE : Rel.GT);
        take(edge, first);
    }

    /** Reads the entries from a key on, as far as its leaf and the range's far end go. */
    private void take(byte[] from, Rel rel) {
        TreeReader reader = store.reader();
        TreeReader.Run r = range.descending ? reader.run(from, rel, Integer.MAX_VALUE, range.lo, range.loInclusive)
                : reader.run(from, rel, Integer.MAX_VALUE, range.hi, range.hiInclusive);
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
