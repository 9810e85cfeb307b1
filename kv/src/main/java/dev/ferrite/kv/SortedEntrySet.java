package dev.ferrite.kv;

import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;

/**
 * The entries of a {@link SortedView}, as a live set: iteration in the view's order, removal
 * writes through (an entry is removed only while the map holds that value), adding is not
 * supported. Entries returned are snapshots ({@code setValue} is not supported). Thread-safe.
 */
final class SortedEntrySet<K, V> extends AbstractSet<Map.Entry<K, V>> {

    private final SortedView<K, V> map;

    SortedEntrySet(SortedView<K, V> map) {
        this.map = map;
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        return map.walk(map::entry);
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public boolean isEmpty() {
        return map.isEmpty();
    }

    /** An entry is contained if its key maps to a value of the same bytes. */
    @Override
    public boolean contains(Object o) {
        return o instanceof Map.Entry<?, ?> e && map.containsEntry(e.getKey(), e.getValue());
    }

    @Override
    public boolean remove(Object o) {
        return o instanceof Map.Entry<?, ?> e && e.getKey() != null && e.getValue() != null
                && map.remove(e.getKey(), e.getValue());
    }

    @Override
    public void clear() {
        map.clear();
    }
}
