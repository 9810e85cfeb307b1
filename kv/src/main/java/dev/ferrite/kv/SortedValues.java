package dev.ferrite.kv;

import java.util.AbstractCollection;
import java.util.Iterator;

/**
 * The values of a {@link SortedView}, as a live collection in the view's key order: the iterator's
 * {@code remove} and {@code clear} write through, adding is not supported. Thread-safe.
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

    @Override
    public void clear() {
        map.clear();
    }
}
