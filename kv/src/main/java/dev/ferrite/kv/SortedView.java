package dev.ferrite.kv;

import dev.ferrite.kv.TreeReader.Hit;
import dev.ferrite.kv.TreeReader.Rel;

import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A sorted map, or a range of one, in either direction: every {@code ConcurrentNavigableMap}
 * operation on the keys of its {@link KeyRange}, for {@link FerriteSortedMap} and its sub-map
 * views. Thread-safe.
 */
abstract class SortedView<K, V> extends AbstractMap<K, V> implements ConcurrentNavigableMap<K, V> {

    final SortedCoding<K, V> coding;
    /** The keys this view holds and the direction it walks them. */
    final KeyRange range;

    SortedView(SortedCoding<K, V> coding, KeyRange range) {
        this.coding = coding;
        this.range = range;
    }

    private TreeReader reader() {
        return coding.store.reader();
    }

    // ---------------------------------------------------------------- bounds, in the map's order

    private byte[] checkedKey(Object key) {
        byte[] k = coding.key(key);
        if (!range.contains(k)) {
            throw new IllegalArgumentException("key out of range");
        }
        return k;
    }

    private Hit lowest() {
        byte[] lo = range.lo;
        Hit h = lo == null ? reader().find(null, Rel.GE) : reader().find(lo, range.loInclusive ? Rel.GE : Rel.GT);
        return h == null || range.tooHigh(h.key()) ? null : h;
    }

    private Hit highest() {
        byte[] hi = range.hi;
        Hit h = hi == null ? reader().find(null, Rel.LE) : reader().find(hi, range.hiInclusive ? Rel.LE : Rel.LT);
        return h == null || range.tooLow(h.key()) ? null : h;
    }

    /** @return the nearest entry in the range to a key, in a relation of the map's order */
    private Hit near(byte[] k, Rel rel) {
        if (range.tooLow(k)) {
            return rel.ascending() ? lowest() : null;
        }
        if (range.tooHigh(k)) {
            return rel.ascending() ? null : highest();
        }
        Hit h = reader().find(k, rel);
        return h == null || !range.contains(h.key()) ? null : h;
    }

    private Hit first() {
        return range.descending ? highest() : lowest();
    }

    private Hit last() {
        return range.descending ? lowest() : highest();
    }

    private Hit nearKey(Object key, Rel viewRel) {
        byte[] k = coding.lookupKey(key);
        if (k == null) {
            Objects.requireNonNull(key, "key");
            throw new IllegalArgumentException("key longer than the longest the map takes");
        }
        return near(k, range.inMapOrder(viewRel));
    }

    /** @return the hit's key and value decoded, as an immutable entry, or null for no hit */
    Map.Entry<K, V> entry(Hit h) {
        return h == null ? null : new SimpleImmutableEntry<>(coding.decodeKey(h.key()), coding.decodeValue(h.value()));
    }

    private K key(Hit h) {
        return h == null ? null : coding.decodeKey(h.key());
    }

    // ---------------------------------------------------------------- Map

    @Override
    public V get(Object key) {
        byte[] k = coding.lookupKey(key);
        if (k == null || !range.contains(k)) {
            return null;
        }
        return coding.decodeValue(reader().get(k));
    }

    @Override
    public boolean containsKey(Object key) {
        byte[] k = coding.lookupKey(key);
        return k != null && range.contains(k) && reader().get(k) != null;
    }

    @Override
    public V put(K key, V value) {
        byte[] k = checkedKey(key);
        byte[] v = coding.value(value);
        return coding.decodeValue(coding.store.write(w -> w.update(k, old -> v)));
    }

    @Override
    public V putIfAbsent(K key, V value) {
        byte[] k = checkedKey(key);
        byte[] v = coding.value(value);
        return coding.decodeValue(coding.store.write(w -> w.update(k, old -> old == null ? v : old)));
    }

    @Override
    public V remove(Object key) {
        byte[] k = coding.lookupKey(key);
        if (k == null || !range.contains(k)) {
            return null;
        }
        return coding.decodeValue(coding.store.write(w -> w.update(k, old -> null)));
    }

    @Override
    public boolean remove(Object key, Object value) {
        byte[] k = coding.lookupKey(key);
        byte[] v = coding.comparableValue(value);
        if (k == null || v == null || !range.contains(k)) {
            return false;
        }
        return removeIfValue(k, v);
    }

    /** @return whether the key mapped to a value of exactly these bytes, now removed */
    private boolean removeIfValue(byte[] k, byte[] v) {
        boolean[] removed = {false};
        coding.store.write(w -> w.update(k, old -> {
            removed[0] = old != null && Arrays.equals(old, v);
            return removed[0] ? null : old;
        }));
        return removed[0];
    }

    /**
     * Removes one entry of this view whose value has the same bytes as {@code value}: the first in
     * the view's order still holding it when its removal runs.
     *
     * @return whether an entry was removed
     */
    boolean removeValue(Object value) {
        byte[] v = coding.comparableValue(value);
        if (v == null) {
            return false;
        }
        for (Iterator<Hit> it = walk(h -> h); it.hasNext(); ) {
            Hit h = it.next();
            if (Arrays.equals(h.value(), v) && removeIfValue(h.key(), v)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public V replace(K key, V value) {
        byte[] k = checkedKey(key);
        byte[] v = coding.value(value);
        return coding.decodeValue(coding.store.write(w -> w.update(k, old -> old == null ? null : v)));
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        byte[] k = checkedKey(key);
        byte[] expected = coding.value(oldValue);
        byte[] v = coding.value(newValue);
        boolean[] replaced = {false};
        coding.store.write(w -> w.update(k, old -> {
            replaced[0] = old != null && Arrays.equals(old, expected);
            return replaced[0] ? v : old;
        }));
        return replaced[0];
    }

    /**
     * Atomic across threads and processes: the function runs once, under the map's lock, and must
     * not change this map. A function that returns the very object it was given leaves the entry as
     * it is and writes nothing.
     */
    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
        Objects.requireNonNull(fn, "function");
        byte[] k = checkedKey(key);
        Object[] result = {null};
        coding.store.write(w -> w.update(k, old -> {
            V before = coding.decodeValue(old);
            V next = fn.apply(key, before);
            result[0] = next;
            // the value the function was given, given back: nothing to write
            return next == null ? null : next == before && old != null ? old : coding.value(next);
        }));
        @SuppressWarnings("unchecked")
        V out = (V) result[0];
        return out;
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> fn) {
        Objects.requireNonNull(fn, "function");
        return compute(key, (k, old) -> old != null ? old : fn.apply(k));
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
        Objects.requireNonNull(fn, "function");
        return compute(key, (k, old) -> old == null ? null : fn.apply(k, old));
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> fn) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(fn, "function");
        return compute(key, (k, old) -> old == null ? value : fn.apply(old, value));
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, longSize());
    }

    /** @return entries in this view, as a long */
    public long longSize() {
        return reader().ranks().countBetween(range.lo, range.loInclusive, range.hi, range.hiInclusive);
    }

    @Override
    public boolean isEmpty() {
        return lowest() == null;
    }

    /**
     * Scans this view's entries: time proportional to its size.
     *
     * @throws NullPointerException if the value is null
     */
    @Override
    public boolean containsValue(Object value) {
        Objects.requireNonNull(value, "value");
        byte[] v = coding.comparableValue(value);
        if (v == null) {
            return false;
        }
        for (Iterator<byte[]> it = walk(Hit::value); it.hasNext(); ) {
            if (Arrays.equals(it.next(), v)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether the key is in this view and maps to a value of the same bytes as {@code value} */
    boolean containsEntry(Object key, Object value) {
        byte[] v = coding.comparableValue(value);
        if (key == null || v == null) {
            return false;
        }
        byte[] k;
        try {
            k = coding.lookupKey(key);
        } catch (ClassCastException e) {
            return false;
        }
        return k != null && range.contains(k) && Arrays.equals(reader().get(k), v);
    }

    @Override
    public void clear() {
        if (range.isWhole()) {
            coding.store.write(w -> {
                w.clear();
                return null;
            });
            return;
        }
        for (Iterator<K> it = keySet().iterator(); it.hasNext(); ) {
            it.next();
            it.remove();
        }
    }

    // ---------------------------------------------------------------- navigation

    @Override
    public Comparator<? super K> comparator() {
        return range.descending ? Collections.reverseOrder(coding.comparator) : coding.comparator;
    }

    @Override
    public K firstKey() {
        Hit h = first();
        if (h == null) {
            throw new NoSuchElementException();
        }
        return key(h);
    }

    @Override
    public K lastKey() {
        Hit h = last();
        if (h == null) {
            throw new NoSuchElementException();
        }
        return key(h);
    }

    @Override
    public Map.Entry<K, V> firstEntry() {
        return entry(first());
    }

    @Override
    public Map.Entry<K, V> lastEntry() {
        return entry(last());
    }

    @Override
    public Map.Entry<K, V> pollFirstEntry() {
        return poll(true);
    }

    @Override
    public Map.Entry<K, V> pollLastEntry() {
        return poll(false);
    }

    private Map.Entry<K, V> poll(boolean first) {
        KeyRange r = range;
        boolean lowest = first != r.descending;
        byte[] bound = lowest ? r.lo : r.hi;
        if (bound != null) { // one descent, if the leaf the bound's descent reaches holds the entry
            byte[][] taken = coding.store.write(w -> w.pollEdge(bound, lowest ? r.loInclusive : r.hiInclusive, lowest,
                    lowest ? r.hi : r.lo, lowest ? r.hiInclusive : r.loInclusive));
            if (taken != null) {
                return new SimpleImmutableEntry<>(coding.decodeKey(taken[0]), coding.decodeValue(taken[1]));
            }
        }
        while (true) {
            Hit h = first ? first() : last();
            if (h == null) {
                return null;
            }
            if (removeIfValue(h.key(), h.value())) {
                return entry(h);
            }
        }
    }

    @Override
    public Map.Entry<K, V> lowerEntry(K key) {
        return entry(nearKey(key, Rel.LT));
    }

    @Override
    public K lowerKey(K key) {
        return key(nearKey(key, Rel.LT));
    }

    @Override
    public Map.Entry<K, V> floorEntry(K key) {
        return entry(nearKey(key, Rel.LE));
    }

    @Override
    public K floorKey(K key) {
        return key(nearKey(key, Rel.LE));
    }

    @Override
    public Map.Entry<K, V> ceilingEntry(K key) {
        return entry(nearKey(key, Rel.GE));
    }

    @Override
    public K ceilingKey(K key) {
        return key(nearKey(key, Rel.GE));
    }

    @Override
    public Map.Entry<K, V> higherEntry(K key) {
        return entry(nearKey(key, Rel.GT));
    }

    @Override
    public K higherKey(K key) {
        return key(nearKey(key, Rel.GT));
    }

    // ---------------------------------------------------------------- sub-maps

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        return newView(coding.key(fromKey), fromInclusive, coding.key(toKey), toInclusive);
    }

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, K toKey) {
        return subMap(fromKey, true, toKey, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        return newView(null, false, coding.key(toKey), inclusive);
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey) {
        return headMap(toKey, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        return newView(coding.key(fromKey), inclusive, null, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey) {
        return tailMap(fromKey, true);
    }

    @Override
    public ConcurrentNavigableMap<K, V> descendingMap() {
        return new Range<>(coding, range.reversed());
    }

    /** A view of this one's range narrowed to bounds given in this view's order (null: this view's own bound). */
    private ConcurrentNavigableMap<K, V> newView(byte[] from, boolean fromInclusive, byte[] to, boolean toInclusive) {
        return new Range<>(coding, range.narrowed(from, fromInclusive, to, toInclusive));
    }

    /** A sub-map view. */
    static final class Range<K, V> extends SortedView<K, V> {
        Range(SortedCoding<K, V> coding, KeyRange range) {
            super(coding, range);
        }
    }

    // ---------------------------------------------------------------- views and iteration

    @Override
    public NavigableSet<K> keySet() {
        return new SortedKeySet<>(this);
    }

    @Override
    public NavigableSet<K> navigableKeySet() {
        return new SortedKeySet<>(this);
    }

    @Override
    public NavigableSet<K> descendingKeySet() {
        return new SortedKeySet<>((SortedView<K, V>) descendingMap());
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return new SortedEntrySet<>(this);
    }

    @Override
    public Collection<V> values() {
        return new SortedValues<>(this);
    }

    /** @return an iterator of keys in this view's order */
    Iterator<K> keyIterator() {
        return walk(this::key);
    }

    /**
     * @param out what the iterator returns for each entry
     * @return an iterator over this view's entries in its order ({@link SortedWalk})
     */
    <T> Iterator<T> walk(Function<Hit, T> out) {
        return new SortedWalk<>(coding.store, range, out);
    }
}
