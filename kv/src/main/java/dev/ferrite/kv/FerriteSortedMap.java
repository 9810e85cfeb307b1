package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A sorted map whose entries live off the heap, in pages of a Ferrite pool: a
 * {@code ConcurrentNavigableMap} ordered by its keys' bytes (unsigned, lexicographic: for
 * {@link Codec#utf8()} that is code point order, for {@link Codec#int64Ordered()} numeric order),
 * persistent in a file pool, shared in RAM in an shm pool, process-local in an anonymous one.
 * Several processes may open one map and read and write it at once; a write is visible to all
 * when the call returns, and the atomic methods ({@code putIfAbsent}, both {@code replace}s,
 * {@code remove(key, value)}, {@code compute*}, {@code merge}, {@code poll*}) are atomic across
 * threads and processes.
 *
 * <p>It is a copy-on-write B+tree whose branches count the entries under each child: a read takes
 * no lock and writes nothing to shared memory, and sees the map as one writer left it (reads are
 * never torn); one writer at a time, of any process, changes it, copying the pages on its path and
 * publishing the new root with one store. A process killed at any instant costs only its
 * unfinished call: the map stays as the last finished one left it, and the next writer takes over
 * the dead one's lock and finds the pages it held. Sizes, ranks ({@link #countBelow}) and entries
 * by position ({@link #entryAt}) take O(log n), also on sub-map views.
 *
 * <p>Keys and values go through {@link Codec}s; keys of up to {@code (pageSize - 16) / 4 - 17} bytes (1,003 at
 * the default 4 KiB), values of up to 512 MiB. Values are compared by their bytes
 * ({@code remove(key, value)}, {@code replace(key, old, new)}, {@code containsValue}, and the
 * views' {@code contains} and {@code remove}). Null keys and values are refused
 * with {@code NullPointerException}. Views, sub-maps and iterators are live; iterators are weakly
 * consistent, as {@code ConcurrentSkipListMap}'s (each reads a leaf at a time, as it was at one
 * instant), and their entries do not support {@code setValue}.
 *
 * <p>Thread-safe. Made by {@link #builder(Codec, Codec)}; close it when done (closing the pool it
 * made, if it made one). Operations on a closed map, or on its views, throw
 * {@link dev.ferrite.SegmentClosedException}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class FerriteSortedMap<K, V> extends SortedView<K, V> implements AutoCloseable {

    private final SortedStore store;
    private final ChunkPool ownPool;

    FerriteSortedMap(SortedStore store, Codec<K> keyCodec, Codec<V> valueCodec, ChunkPool ownPool) {
        super(new SortedCoding<>(store, keyCodec, valueCodec), KeyRange.ALL);
        this.store = store;
        this.ownPool = ownPool;
    }

    /**
     * @param keyCodec   the keys' codec: the map's order is its bytes' order
     * @param valueCodec the values' codec
     * @param <K>        the key type
     * @param <V>        the value type
     * @return a builder
     * @throws FerriteException if the key codec is one of the little-endian number codecs, whose
     *                          bytes do not sort as their numbers (use {@link Codec#int64Ordered()})
     */
    public static <K, V> FerriteSortedMapBuilder<K, V> builder(Codec<K> keyCodec, Codec<V> valueCodec) {
        return new FerriteSortedMapBuilder<>(keyCodec, valueCodec);
    }

    /**
     * Deletes a closed sorted map from a pool: its header and every page.
     *
     * @param pool the pool
     * @param name the map's name
     * @return whether there was a map of that name
     */
    public static boolean delete(ChunkPool pool, String name) {
        boolean found = pool.delete(name);
        String prefix = name + ".x";
        for (String n : pool.segmentNames()) {
            if (n.startsWith(prefix) && n.length() > prefix.length() && n.substring(prefix.length()).chars().allMatch(Character::isDigit)) {
                pool.delete(n);
            }
        }
        return found;
    }

    /** @return the map's name in its pool */
    public String name() {
        return store.name;
    }

    /**
     * A word naming the map's published state, for caches of what is derived from the map: a
     * change of its entries published by any process gives a new word, and the same word read at
     * two instants means the map held the same entries at both (unless the page holding the root
     * was freed and taken again 2^31 times between them). Changes inside an
     * {@link #atomically atomic change} give a new word when it ends. One volatile load;
     * thread-safe.
     *
     * @return the version: the published root page's number and stamp, 0 while the map is empty
     * @throws dev.ferrite.SegmentClosedException if the map is closed
     */
    public long version() {
        store.checkOpen();
        return store.header.getLongVolatile(SortedLayout.ROOT);
    }

    /**
     * @param key a key (need not be in the map)
     * @return how many keys are below it: its rank, if it is in the map
     */
    public long countBelow(K key) {
        byte[] k = coding.lookupKey(key);
        Objects.requireNonNull(key, "key");
        if (k == null) {
            throw new FerriteException("key longer than the longest sorted map " + store.describe() + " takes, " + store.maxKey);
        }
        store.checkOpen();
        return store.reader().ranks().countBelow(k, false);
    }

    /**
     * How many keys are below each of two keys, counted in one state of the map: their difference
     * is exact while writers change the map, which two {@link #countBelow(Object)} calls (two reads,
     * between which keys below may come and go) do not promise.
     *
     * @param lo a key (need not be in the map)
     * @param hi a key (need not be in the map)
     * @return a new array of two: the keys below {@code lo}, then the keys below {@code hi}
     * @throws NullPointerException if a key is null
     * @throws FerriteException     if a key is longer than the map takes
     */
    public long[] countBelow(K lo, K hi) {
        byte[] l = coding.key(lo);
        byte[] h = coding.key(hi);
        store.checkOpen();
        return store.reader().ranks().countsBelow(l, h);
    }

    /**
     * @param index a position in key order, from 0
     * @return the entry at that position, or null if the map has no more than {@code index} entries
     * @throws IllegalArgumentException if the index is negative
     */
    public Map.Entry<K, V> entryAt(long index) {
        if (index < 0) {
            throw new IllegalArgumentException("index " + index + " is negative");
        }
        store.checkOpen();
        TreeReader.Hit h = store.reader().ranks().at(index);
        return h == null ? null : new SimpleImmutableEntry<>(coding.decodeKey(h.key()), coding.decodeValue(h.value()));
    }

    /**
     * Removes the entry at a position in key order, as {@link #entryAt(long)} counts it: one
     * descent finds it by the branches' counts and removes it, so the position and the removal are
     * of one state of the map (with {@code entryAt} then {@code remove}, another writer may move
     * the positions between the two). Atomic across threads and processes.
     *
     * @param index a position in key order, from 0
     * @return the entry removed, or null if the map has no more than {@code index} entries (nothing
     *         is changed)
     * @throws IllegalArgumentException      if the index is negative
     * @throws UnsupportedOperationException if the map is read-only
     * @throws IllegalStateException         if called inside a function given to one of the map's
     *                                       changes ({@code compute}, {@code merge}...)
     */
    public Map.Entry<K, V> removeEntryAt(long index) {
        if (index < 0) {
            throw new IllegalArgumentException("index " + index + " is negative");
        }
        byte[][] taken = store.write(w -> w.removeAt(index));
        return taken == null ? null : new SimpleImmutableEntry<>(coding.decodeKey(taken[0]), coding.decodeValue(taken[1]));
    }

    /**
     * Runs {@code body} as one atomic change of this map: every change the calling thread makes to
     * the map or its views inside it is published at once when it returns, with one store, so other
     * threads and processes see all of them or none; the calling thread's reads inside it see its
     * own changes. If {@code body} throws, or the process dies while it runs, none is made. The
     * map's writers of every process wait meanwhile (readers do not). Inside an atomic change of
     * the same thread, {@code body} simply runs as part of it.
     *
     * @param body what to do; it may read and change this map (not from other threads: their
     *             changes wait for this one to end)
     * @param <R>  what it returns
     * @return what {@code body} returned
     * @throws IllegalStateException if called inside a function given to one of the map's changes
     *                               ({@code compute}, {@code merge}...), or if a change inside
     *                               failed midway (for instance the pool ran out) and {@code body}
     *                               caught that and went on: the whole change is then rolled back
     * @throws UnsupportedOperationException if the map is read-only
     */
    public <R> R atomically(Supplier<R> body) {
        Objects.requireNonNull(body, "body");
        return store.atomically(body);
    }

    /**
     * Runs {@code body} as this map's one writer of every process: the map's writers of this and
     * other processes wait until it returns (readers do not), so a sequence of reads and changes
     * sees no other writer's change between its steps. Each change inside is published when it
     * returns, as outside; an {@link #atomically atomic change} inside is one change of its own, and
     * a throw out of it undoes that change alone. A process dying inside costs only its unfinished
     * change: the next writer takes the lock over.
     *
     * @param body what to do; it may read and change this map (not from other threads: their
     *             changes wait for this run to end)
     * @param <R>  what it returns
     * @return what {@code body} returned
     * @throws IllegalStateException if the calling thread already runs a change, an atomic change or
     *                               an exclusive run of this map
     * @throws UnsupportedOperationException if the map is read-only
     */
    public <R> R exclusively(Supplier<R> body) {
        Objects.requireNonNull(body, "body");
        return store.exclusively(body);
    }

    /**
     * As {@link #atomically(Supplier)}, for a body that returns nothing.
     *
     * @param body what to do
     */
    public void atomically(Runnable body) {
        Objects.requireNonNull(body, "body");
        store.atomically(() -> {
            body.run();
            return null;
        });
    }

    /**
     * The entry at a position counted from a key, read from one state of the map (a position
     * from {@link #countBelow} and an {@link #entryAt(long)} are two reads, between which a
     * writer may move the keys below).
     *
     * @param from  a key (need not be in the map)
     * @param index a position among the keys at or above {@code from}, from 0
     * @return the entry at that position, or null if there are not that many
     * @throws IllegalArgumentException if the index is negative
     */
    public Map.Entry<K, V> entryAt(K from, long index) {
        if (index < 0) {
            throw new IllegalArgumentException("index " + index + " is negative");
        }
        byte[] k = coding.lookupKey(Objects.requireNonNull(from, "from"));
        if (k == null) {
            throw new FerriteException("key longer than the longest sorted map " + store.describe() + " takes, " + store.maxKey);
        }
        TreeReader.Hit h = store.reader().ranks().at(k, index);
        return h == null ? null : new SimpleImmutableEntry<>(coding.decodeKey(h.key()), coding.decodeValue(h.value()));
    }

    /**
     * A page of a range by position: up to {@code max} entries in key order, from the
     * {@code index}-th key at or above {@code from} and below {@code to}. The position and the
     * entries of the leaf page it lies in are read from one state of the map; entries beyond that
     * leaf are read leaf by leaf, as an iterator reads them. The position is found as
     * {@link #entryAt(Object, long)} finds it (the rank of {@code from}, then a descent by
     * position); the entries are read on from there, with no descent of their own.
     *
     * @param from  the range's lowest key (need not be in the map)
     * @param index a position among the range's keys, from 0
     * @param to    the key the range ends before (need not be in the map), or null for none
     * @param max   the most entries to return, at least 1
     * @return a new list of the entries, in key order; empty if the range holds no more than
     *         {@code index} keys
     * @throws IllegalArgumentException if the index is negative or {@code max} is below 1
     * @throws NullPointerException     if {@code from} is null
     * @throws FerriteException         if a key is longer than the map takes
     */
    public List<Map.Entry<K, V>> entriesAt(K from, long index, K to, int max) {
        List<TreeReader.Hit> hits = hitsAt(from, index, to, max, true);
        List<Map.Entry<K, V>> out = new ArrayList<>(hits.size());
        for (TreeReader.Hit h : hits) {
            out.add(new SimpleImmutableEntry<>(coding.decodeOwnedKey(h.key()), coding.decodeValue(h.value())));
        }
        return out;
    }

    /**
     * The values of {@link #entriesAt entriesAt(from, index, to, max)}'s entries, read as it reads
     * them, without copying or decoding their keys.
     *
     * @return a new list of the values, in their keys' order
     * @throws IllegalArgumentException if the index is negative or {@code max} is below 1
     * @throws NullPointerException     if {@code from} is null
     * @throws FerriteException         if a key is longer than the map takes
     */
    public List<V> valuesAt(K from, long index, K to, int max) {
        List<TreeReader.Hit> hits = hitsAt(from, index, to, max, false);
        List<V> out = new ArrayList<>(hits.size());
        for (TreeReader.Hit h : hits) {
            out.add(coding.decodeValue(h.value()));
        }
        return out;
    }

    private List<TreeReader.Hit> hitsAt(K from, long index, K to, int max, boolean keys) {
        if (index < 0 || max < 1) {
            throw new IllegalArgumentException("index " + index + " must be at least 0 and max " + max + " at least 1");
        }
        byte[] f = coding.key(from);
        byte[] t = to == null ? null : coding.key(to);
        store.checkOpen();
        return store.reader().ranks().runAt(f, index, max, t, false, keys);
    }

    /** @return the longest key this map takes, in bytes */
    public int maxKeySize() {
        return store.maxKey;
    }

    /**
     * @return the bytes of the map's pages in use now (its entries with their pages' free room),
     *         in O(free pages); a snapshot while writers run
     * @throws dev.ferrite.SegmentClosedException if the map is closed
     */
    public long usedBytes() {
        return store.usedBytes();
    }

    /** @return times a writer that died holding the lock was taken over (since the map was made) */
    public long repairs() {
        return store.repairs();
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() {
        return store.isClosed();
    }

    /**
     * Closes the map, and the pool if the builder made it. Closing again does nothing. Operations
     * other threads run meanwhile end or throw {@link FerriteException}; none crashes the JVM. For
     * that, a pool the builder made stays mapped (and an anonymous one's RAM held) until the
     * collector finds the map's handles unreachable; to have the memory back at once, give the map
     * a pool ({@code pool(pool, name)}) and close that pool after the map, once no thread uses it.
     */
    @Override
    public void close() {
        store.close(ownPool == null); // a pool of its own closes the handles, leaving memory in use mapped
        if (ownPool != null) {
            ownPool.close();
        }
    }

    @Override
    public String toString() {
        return store.isClosed() ? "FerriteSortedMap " + store.name + " (closed)" : super.toString();
    }
}
