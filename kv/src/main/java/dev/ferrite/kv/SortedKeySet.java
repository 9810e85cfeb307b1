package dev.ferrite.kv;

import java.util.AbstractSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.SortedSet;

/**
 * The keys of a {@link SortedView}, as a live {@code NavigableSet}: removal writes through, adding
 * is not supported (there is no value to add). Thread-safe.
 */
final class SortedKeySet<K> extends AbstractSet<K> implements NavigableSet<K> {

    private final SortedView<K, ?> map;

    SortedKeySet(SortedView<K, ?> map) {
        this.map = map;
    }

    @Override
    public Iterator<K> iterator() {
        return map.keyIterator();
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public boolean isEmpty() {
        return map.isEmpty();
    }

    @Override
    public boolean contains(Object o) {
        return map.containsKey(o);
    }

    @Override
    public boolean remove(Object o) {
        return map.remove(o) != null;
    }

    @Override
    public void clear() {
        map.clear();
    }

    @Override
    public Comparator<? super K> comparator() {
        return map.comparator();
    }

    @Override
    public K first() {
        return map.firstKey();
    }

    @Override
    public K last() {
        return map.lastKey();
    }

    @Override
    public K lower(K k) {
        return map.lowerKey(k);
    }

    @Override
    public K floor(K k) {
        return map.floorKey(k);
    }

    @Override
    public K ceiling(K k) {
        return map.ceilingKey(k);
    }

    @Override
    public K higher(K k) {
        return map.higherKey(k);
    }

    @Override
    public K pollFirst() {
        Map.Entry<K, ?> e = map.pollFirstEntry();
        return e == null ? null : e.getKey();
    }

    @Override
    public K pollLast() {
        Map.Entry<K, ?> e = map.pollLastEntry();
        return e == null ? null : e.getKey();
    }

    @Override
    public NavigableSet<K> descendingSet() {
        return map.descendingKeySet();
    }

    @Override
    public Iterator<K> descendingIterator() {
        return descendingSet().iterator();
    }

    @Override
    public NavigableSet<K> subSet(K from, boolean fromInclusive, K to, boolean toInclusive) {
        return of(map.subMap(from, fromInclusive, to, toInclusive));
    }

    @Override
    public NavigableSet<K> headSet(K to, boolean inclusive) {
        return of(map.headMap(to, inclusive));
    }

    @Override
    public NavigableSet<K> tailSet(K from, boolean inclusive) {
        return of(map.tailMap(from, inclusive));
    }

    @Override
    public SortedSet<K> subSet(K from, K to) {
        return subSet(from, true, to, false);
    }

    @Override
    public SortedSet<K> headSet(K to) {
        return headSet(to, false);
    }

    @Override
    public SortedSet<K> tailSet(K from) {
        return tailSet(from, true);
    }

    private static <K> NavigableSet<K> of(Map<K, ?> view) {
        return ((SortedView<K, ?>) view).navigableKeySet();
    }
}
