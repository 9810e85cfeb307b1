package dev.ferrite.kv;

import java.util.AbstractCollection;
import java.util.Iterator;

/**
 * The values of a {@link SortedView}, as a live collection in the view's key order: {@code remove},
 * the iterator's {@code remove} and {@code clear} write through, adding is not supported; values are
 * compared by their bytes. Thread-safe.
 */
final class SortedValues<K, V> extends AbstractCollection<V> {

    private final SortedView<K, V> map;

    SortedValues(SortedView<K, V> map) {
        this.map = map;
    }

    @Override
    public Iterator<V> iterator() {
        return map.walk(h -> map.coding.decodeValue(h.value()));
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public boolean isEmpty() {
        return map.isEmpty();
    }

    /** A value is contained if one of the view's values has its bytes. */
    @Override
    public boolean contains(Object o) {
        return o != null && map.containsValue(o);
    }

    /** Removes one entry whose value has the bytes of {@code o}. */
    @Override
    public boolean remove(Object o) {
        return map.removeValue(o);
    }

    @Override
    public void clear() {
        map.clear();
    }
}
