package dev.ferrite.kv;

import java.util.AbstractCollection;
import java.util.AbstractMap.SimpleEntry;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;

/**
 * The live views of a {@link FerriteMap} ({@code keySet}, {@code values}, {@code entrySet}) and
 * their iterators. An iterator reads the map a few hundred entries at a time with the scan's bucket
 * cursor, so it never copies a whole section to the heap, meets an entry present throughout
 * exactly once (even across a section's rebuild) and never throws
 * {@code ConcurrentModificationException}. Each view and iterator is as thread-safe as the map's
 * reads; an iterator belongs to one thread.
 */
final class MapViews {

    private MapViews() {
    }

    /** The key and value bytes of every entry of a map, read {@link #STEP} at a time. */
    static final class RawEntries implements Iterator<byte[][]> {
        /** Entries each step aims for. */
        private static final int STEP = 256;
        private final MapStore store;
        private int section;
        private long bucket;
        private boolean sectionDone;
        private List<byte[][]> batch = List.of();
        private int index;

        RawEntries(MapStore store) {
            this.store = store;
        }

        @Override
        public boolean hasNext() {
            while (index >= batch.size()) {
                if (sectionDone) {
                    section++;
                    bucket = 0;
                    sectionDone = false;
                }
                if (section >= store.sectionCount) {
                    return false;
                }
                SectionScanner.BucketRun run = store.scanBuckets(section, bucket, STEP);
                batch = run.entries;
                index = 0;
                bucket = run.next;
                sectionDone = run.next == 0;
            }
            return true;
        }

        @Override
        public byte[][] next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return batch.get(index++);
        }
    }

    /** The entries, decoded; {@code remove} removes the last one's key from the map. */
    static final class EntryIterator<K, V> implements Iterator<Map.Entry<K, V>> {
        private final FerriteMap<K, V> map;
        private final RawEntries entries;
        private K lastKey;

        EntryIterator(FerriteMap<K, V> map) {
            this.map = map;
            this.entries = new RawEntries(map.store());
        }

        @Override
        public boolean hasNext() {
            return entries.hasNext();
        }

        @Override
        public Map.Entry<K, V> next() {
            byte[][] e = entries.next();
            K k = map.decodeKey(e[0]);
            lastKey = k;
            return new WriteThroughEntry<>(map, k, map.decodeValue(e[1]));
        }

        @Override
        public void remove() {
            if (lastKey == null) {
                throw new IllegalStateException("next() was not called, or remove() was already called for its entry");
            }
            map.remove(lastKey);
            lastKey = null;
        }
    }

    /** The keys or the values of the entry iterator. */
    static final class PartIterator<K, V, T> implements Iterator<T> {
        private final EntryIterator<K, V> entries;
        private final Function<Map.Entry<K, V>, T> part;

        PartIterator(FerriteMap<K, V> map, Function<Map.Entry<K, V>, T> part) {
            this.entries = new EntryIterator<>(map);
            this.part = part;
        }

        @Override
        public boolean hasNext() {
            return entries.hasNext();
        }

        @Override
        public T next() {
            return part.apply(entries.next());
        }

        @Override
        public void remove() {
            entries.remove();
        }
    }

    /** An entry whose {@code setValue} puts the new value into the map. */
    static final class WriteThroughEntry<K, V> extends SimpleEntry<K, V> {
        private static final long serialVersionUID = 1L;
        private final transient FerriteMap<K, V> map;

        WriteThroughEntry(FerriteMap<K, V> map, K key, V value) {
            super(key, value);
            this.map = map;
        }

        @Override
        public V setValue(V value) {
            Objects.requireNonNull(value, "value");
            V old = super.setValue(value);
            map.put(getKey(), value);
            return old;
        }
    }

    /** {@code entrySet()}: an entry is contained if its key maps to a value of the same bytes. */
    static final class EntrySet<K, V> extends AbstractSet<Map.Entry<K, V>> {
        private final FerriteMap<K, V> map;

        EntrySet(FerriteMap<K, V> map) {
            this.map = map;
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            return new EntryIterator<>(map);
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
            return o instanceof Map.Entry<?, ?> e && map.containsEntry(e.getKey(), e.getValue());
        }

        @Override
        public boolean remove(Object o) {
            if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
                return false;
            }
            try {
                return map.remove(e.getKey(), e.getValue());
            } catch (ClassCastException x) {
                return false;
            }
        }

        @Override
        public void clear() {
            map.clear();
        }
    }

    /** {@code keySet()}. */
    static final class KeySet<K, V> extends AbstractSet<K> {
        private final FerriteMap<K, V> map;

        KeySet(FerriteMap<K, V> map) {
            this.map = map;
        }

        @Override
        public Iterator<K> iterator() {
            return new PartIterator<>(map, Map.Entry::getKey);
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
            try {
                return o != null && map.containsKey(o);
            } catch (ClassCastException e) {
                return false;
            }
        }

        @Override
        public boolean remove(Object o) {
            try {
                return o != null && map.remove(o) != null;
            } catch (ClassCastException e) {
                return false;
            }
        }

        @Override
        public void clear() {
            map.clear();
        }
    }

    /** {@code values()}. */
    static final class Values<K, V> extends AbstractCollection<V> {
        private final FerriteMap<K, V> map;

        Values(FerriteMap<K, V> map) {
            this.map = map;
        }

        @Override
        public Iterator<V> iterator() {
            return new PartIterator<>(map, Map.Entry::getValue);
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
            return o != null && map.containsValue(o);
        }

        /** Removes one entry whose value has the bytes of {@code o}. */
        @Override
        public boolean remove(Object o) {
            byte[] v = map.comparableValue(o);
            if (v == null) {
                return false;
            }
            for (RawEntries it = new RawEntries(map.store()); it.hasNext(); ) {
                byte[][] e = it.next();
                if (Arrays.equals(e[1], v) && map.removeIfValue(e[0], v)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void clear() {
            map.clear();
        }
    }
}
