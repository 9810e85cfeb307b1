package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.Segment;

import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A concurrent hash map whose entries live off the heap, in segments of a Ferrite pool: persistent
 * in a file pool, shared in RAM in an shm pool, process-local in an anonymous one. Several
 * processes may open one map at once and read and write it; a write is visible to all of them
 * when the call returns, and the atomic methods ({@code putIfAbsent}, both {@code replace}s,
 * {@code remove(key, value)}, {@code compute*}, {@code merge}) are atomic across threads and
 * processes.
 *
 * <p>Keys and values are stored as the bytes their {@link Codec}s make; two keys are the same key
 * when their bytes are equal, and every value comparison ({@code remove(key, value)},
 * {@code replace(key, old, new)}, {@code containsValue}, and the views' {@code contains} and
 * {@code remove}) compares bytes too. Null keys and values are refused with
 * {@code NullPointerException}, as by {@code ConcurrentHashMap}.
 *
 * <p>Reads take no lock and write nothing to shared memory, so they scale over threads and
 * processes; a write locks the one section of the index its key hashes to. A process killed at any
 * instant costs nothing but its unfinished call: the next writer of a section whose lock a dead
 * process holds takes it over and repairs the section (see {@link #stats()}). The views
 * ({@link #keySet()}, {@link #values()}, {@link #entrySet()}) are live, and their iterators are
 * weakly consistent as {@code ConcurrentHashMap}'s: they never throw
 * {@code ConcurrentModificationException}, meet an entry present throughout exactly once (they read
 * a few hundred entries at a time, each batch as it was when read), and {@code remove} through them
 * works.
 *
 * <p>Under the typed API is a zero-copy one on bytes, for servers and flyweight access:
 * {@link #readValue(byte[], ValueReader)} hands a value where it lies to a reader and allocates
 * nothing, {@link #updateValue(byte[], ValueUpdater)} changes a value's bytes in the map's memory.
 *
 * <p>Thread-safe. Made by {@link #builder(Codec, Codec)}; close it when done (closing the pool it
 * made, if it made one). Operations on a closed map throw {@link FerriteException}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class FerriteMap<K, V> extends AbstractMap<K, V> implements ConcurrentMap<K, V>, AutoCloseable {

    /**
     * The longest value, in bytes, that {@link #updateValue} always changes where it lies (so is a
     * value held in its bucket, whatever its length); a longer one is changed in a copy that
     * replaces it.
     */
    public static final int IN_PLACE_MAX_VALUE = UndoLayout.MAX_VALUE;

    /** Most keys {@link #getAll} sizes its result for before it reads any. */
    private static final int GET_ALL_PRESIZE = 1 << 12;

    private final MapStore store;
    private final MapCoding<K, V> coding;
    private final ChunkPool ownedPool;
    private Set<K> keySet;
    private Collection<V> values;
    private Set<Map.Entry<K, V>> entrySet;

    FerriteMap(Codec<K> keyCodec, Codec<V> valueCodec, MapStore store, ChunkPool ownedPool) {
        this.store = store;
        this.coding = new MapCoding<>(keyCodec, valueCodec, store);
        this.ownedPool = ownedPool;
    }

    /**
     * Starts building a map.
     *
     * @param keyCodec   how keys become bytes, not null
     * @param valueCodec how values become bytes, not null
     * @param <K>        the key type
     * @param <V>        the value type
     * @return a builder with the defaults: a process-local map on the configured backend
     */
    public static <K, V> FerriteMapBuilder<K, V> builder(Codec<K> keyCodec, Codec<V> valueCodec) {
        return new FerriteMapBuilder<>(Objects.requireNonNull(keyCodec, "keyCodec"),
                Objects.requireNonNull(valueCodec, "valueCodec"));
    }

    // ---------------------------------------------------------------- encoding

    V decodeValue(byte[] b) {
        return coding.decodeValue(b);
    }

    K decodeKey(byte[] b) {
        return coding.decodeKey(b);
    }

    private static long hash(byte[] key) {
        return MapStore.hash(key, 0, key.length);
    }

    // ---------------------------------------------------------------- Map

    /**
     * @return live entries, or {@link Integer#MAX_VALUE} if there are more; exact while no write
     *         runs (each section's count is exact; a sum taken during writes may miss some)
     */
    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, store.size());
    }

    /** @return live entries, as a long (a map may hold more than 2^31) */
    public long longSize() {
        return store.size();
    }

    @Override
    public boolean isEmpty() {
        return store.size() == 0;
    }

    /**
     * @throws NullPointerException if the key is null
     * @throws ClassCastException   if the key is not of the key codec's type
     */
    @Override
    public V get(Object key) {
        MapCoding.LookupKey k = coding.lookupKey(key);
        return coding.decodeValue(store.read(k.bytes, 0, k.length, MapStore.hash(k.bytes, 0, k.length), MapCoding.COPY, null));
    }

    /**
     * Copies a key's value bytes (as the value codec wrote them) into an array of the caller's;
     * allocates nothing for a {@code String} key of the {@code utf8} codec without surrogates or a
     * {@code byte[]} key of the {@code bytes} codec, which is read where it is (a key of another
     * codec is encoded into a new array first). Thread-safe.
     *
     * @param key  the key, not null
     * @param into where the bytes go, from index 0; copied only if the value fits
     * @return the value's length in bytes (more than {@code into.length}: nothing was copied, and
     *         that is the length to allocate), or -1 if the key is absent
     * @throws NullPointerException if the key or {@code into} is null
     */
    public int get(K key, byte[] into) {
        Objects.requireNonNull(into, "into");
        MapCoding.LookupKey k = coding.lookupKey(key);
        MapCoding.CopyInto copy = MapCoding.COPY_INTO.get();
        copy.into = into;
        try {
            boolean found = store.read(k.bytes, 0, k.length, MapStore.hash(k.bytes, 0, k.length), copy, Boolean.FALSE);
            return found ? copy.length : -1;
        } finally {
            copy.into = null;
        }
    }

    /**
     * Gets many keys at once: their buckets (and entries kept outside them) are brought toward the CPU caches 16
     * keys at a time before they are read (see {@link #prefetch}). Each value is read as
     * {@link #get} reads it; the result is no snapshot of the map at one instant. Thread-safe.
     *
     * @param keys the keys, none null
     * @return a new map, in the keys' order, of every key present and its value
     * @throws NullPointerException if a key is null
     * @throws FerriteException     if the map is closed
     */
    public Map<K, V> getAll(Collection<? extends K> keys) {
        store.checkOpen();
        // sized for the keys, up to GET_ALL_PRESIZE of them: no rehash as a usual batch fills, and no
        // large table for a large collection of keys that are mostly absent
        Map<K, V> found = new java.util.LinkedHashMap<>(Math.min(keys.size(), GET_ALL_PRESIZE) * 4 / 3 + 1);
        KeyBatch batch = new KeyBatch();
        for (K key : keys) {
            // the JDK's encoder: fewer instructions than encoding into a shared array, for an array of
            // the key's size beside the value and the result's entry that each key allocates anyway
            batch.add(key, coding.lookupBytes(key));
            if (batch.full()) {
                getBatch(batch, found);
            }
        }
        getBatch(batch, found);
        return found;
    }

    /** Warms a batch of {@link #getAll}, reads its keys into {@code found}, then empties it. */
    @SuppressWarnings("unchecked")
    private void getBatch(KeyBatch batch, Map<K, V> found) {
        int n = batch.size;
        if (n == 0) {
            return;
        }
        store.prefetch(batch);
        for (int i = 0; i < n; i++) {
            byte[] k = batch.encoded[i];
            V v = coding.decodeValue(store.read(k, 0, k.length, batch.hashes[i], MapCoding.COPY, null));
            if (v != null) {
                found.put((K) batch.keys[i], v);
            }
        }
        batch.clear();
    }

    /**
     * @throws NullPointerException if the key is null
     * @throws ClassCastException   if the key is not of the key codec's type
     */
    @Override
    public boolean containsKey(Object key) {
        MapCoding.LookupKey k = coding.lookupKey(key);
        return store.read(k.bytes, 0, k.length, MapStore.hash(k.bytes, 0, k.length), MapCoding.PRESENT, Boolean.FALSE);
    }

    /**
     * Scans every entry: time proportional to the map's size.
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
        MapViews.RawEntries entries = new MapViews.RawEntries(store);
        while (entries.hasNext()) {
            if (Arrays.equals(entries.next()[1], v)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @throws NullPointerException if the key or the value is null
     * @throws FerriteException     if the key or value is longer than the map's limit (nothing is
     *                              written), or the pool has no room for it
     */
    @Override
    public V put(K key, V value) {
        byte[] k = coding.encodeKey(key);
        byte[] v = coding.encodeValue(value);
        return coding.decodeValue(store.write(k, 0, k.length, hash(k), c -> {
            byte[] old = c.present() ? c.value() : null;
            c.put(v, 0, v.length);
            return old;
        }));
    }

    @Override
    public V putIfAbsent(K key, V value) {
        byte[] k = coding.encodeKey(key);
        byte[] v = coding.encodeValue(value);
        return coding.decodeValue(store.write(k, 0, k.length, hash(k), c -> {
            if (c.present()) {
                return c.value();
            }
            c.put(v, 0, v.length);
            return null;
        }));
    }

    @Override
    public V remove(Object key) {
        byte[] k = coding.encodeKey(key);
        return coding.decodeValue(store.write(k, 0, k.length, hash(k), c -> {
            byte[] old = c.present() ? c.value() : null;
            c.remove();
            return old;
        }));
    }

    @Override
    public boolean remove(Object key, Object value) {
        Objects.requireNonNull(key, "key");
        byte[] v = coding.comparableValue(value);
        return v != null && removeIfValue(coding.encodeKey(key), v);
    }

    /** @return whether the key mapped to a value of exactly these bytes, now removed */
    boolean removeIfValue(byte[] k, byte[] v) {
        return store.write(k, 0, k.length, hash(k), c -> {
            if (!c.valueEquals(v, 0, v.length)) {
                return false;
            }
            c.remove();
            return true;
        });
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        byte[] k = coding.encodeKey(key);
        byte[] o = coding.encodeValue(oldValue);
        byte[] n = coding.encodeValue(newValue);
        return store.write(k, 0, k.length, hash(k), c -> {
            if (!c.valueEquals(o, 0, o.length)) {
                return false;
            }
            c.put(n, 0, n.length);
            return true;
        });
    }

    @Override
    public V replace(K key, V value) {
        byte[] k = coding.encodeKey(key);
        byte[] v = coding.encodeValue(value);
        return coding.decodeValue(store.write(k, 0, k.length, hash(k), c -> {
            if (!c.present()) {
                return null;
            }
            byte[] old = c.value();
            c.put(v, 0, v.length);
            return old;
        }));
    }

    /**
     * Atomic: the function runs at most once, under the lock of the key's section (in every
     * process), only if the key is absent; it must not write this map.
     */
    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
        Objects.requireNonNull(mappingFunction, "mappingFunction");
        V present = get(key);
        if (present != null) {
            return present;
        }
        return compute(key, (k, old) -> old != null ? old : mappingFunction.apply(k));
    }

    /**
     * Atomic: the function runs at most once, under the lock of the key's section (in every
     * process), only if the key is present; it must not write this map.
     */
    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        return compute(key, (k, old) -> old == null ? null : remappingFunction.apply(k, old));
    }

    /**
     * Atomic: the function runs exactly once, under the lock of the key's section (in every
     * process); it must not write this map (doing so throws {@code IllegalStateException} for the
     * same section). A null result removes the key; a result that encodes to the bytes already
     * stored writes nothing.
     */
    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        byte[] k = coding.encodeKey(key);
        return store.write(k, 0, k.length, hash(k), c -> {
            V old = c.present() ? coding.decodeValue(c.value()) : null;
            V next = remappingFunction.apply(key, old);
            if (next == null) {
                c.remove();
            } else {
                byte[] v = coding.encodeValue(next);
                if (!c.valueEquals(v, 0, v.length)) { // the same bytes (computeIfAbsent of a present key...): no write
                    c.put(v, 0, v.length);
                }
            }
            return next;
        });
    }

    /**
     * Atomic across threads and processes (a counter kept with {@code merge(key, 1L, Long::sum)}
     * from many processes ends exact); the function runs at most once, under the section's lock.
     */
    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        return compute(key, (k, old) -> old == null ? value : remappingFunction.apply(old, value));
    }

    /** Removes every entry, one section at a time (each atomically), giving their memory back to the pool. */
    @Override
    public void clear() {
        store.clear();
    }

    @Override
    public Set<K> keySet() {
        Set<K> v = keySet;
        return v != null ? v : (keySet = new MapViews.KeySet<>(this));
    }

    @Override
    public Collection<V> values() {
        Collection<V> v = values;
        return v != null ? v : (values = new MapViews.Values<>(this));
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        Set<Map.Entry<K, V>> v = entrySet;
        return v != null ? v : (entrySet = new MapViews.EntrySet<>(this));
    }

    // ---------------------------------------------------------------- zero-copy byte API

    /**
     * A hint before several lookups: brings the buckets and then the outside entries of these keys
     * toward the CPU caches, one pass over all keys per level, so that the gets, reads or writes
     * that follow find them there instead of each waiting for memory in turn (a server answering a
     * pipeline of 16 GETs waits about twice instead of 32 times). Changes nothing, takes no lock,
     * allocates one batch of small arrays (16 keys' scratch); keys that are absent, null, or not
     * where a first probe finds them are skipped. Thread-safe.
     *
     * @param keys  keys' bytes (as the key codec writes them); null elements are skipped
     * @param from  index of the first key to warm
     * @param count how many keys from there
     * @throws IndexOutOfBoundsException if {@code [from, from + count)} is not inside {@code keys}
     * @throws FerriteException if the map is closed
     */
    public void prefetch(byte[][] keys, int from, int count) {
        Objects.checkFromIndexSize(from, count, keys.length);
        store.checkOpen();
        if (count > 0) {
            store.prefetch(keys, from, count);
        }
    }

    /**
     * Finds a key given as bytes and hands its value, where it lies in the map's memory, to a
     * reader. Allocates nothing; takes no lock. The reader may be called more than once (see
     * {@link ValueReader}); the result of the last call is returned.
     *
     * @param key    the key's bytes (as the key codec writes them), not null
     * @param reader what to do with the value
     * @param <R>    the reader's result type
     * @return the reader's result, or null if the key is absent (the reader is not called then)
     */
    public <R> R readValue(byte[] key, ValueReader<R> reader) {
        Objects.requireNonNull(reader, "reader");
        return store.read(key, 0, key.length, hash(key), reader, null);
    }

    /**
     * As {@link #readValue(byte[], ValueReader)}, the key being the buffer's remaining bytes (its
     * position is not moved).
     */
    public <R> R readValue(ByteBuffer key, ValueReader<R> reader) {
        Objects.requireNonNull(reader, "reader");
        int len = key.remaining();
        byte[] k = coding.borrowScratch(len);
        try {
            key.duplicate().get(k, 0, len);
            return store.read(k, 0, len, MapStore.hash(k, 0, len), reader, null);
        } finally {
            MapCoding.returnScratch(k);
        }
    }

    /**
     * As {@link #readValue(byte[], ValueReader)}, the key being a range of a segment.
     *
     * @param key    the segment holding the key
     * @param offset byte offset of the key in it
     * @param length the key's length in bytes
     */
    public <R> R readValue(Segment key, long offset, int length, ValueReader<R> reader) {
        Objects.requireNonNull(reader, "reader");
        byte[] k = coding.borrowScratch(length);
        try {
            key.copyTo(offset, k, 0, length);
            return store.read(k, 0, length, MapStore.hash(k, 0, length), reader, null);
        } finally {
            MapCoding.returnScratch(k);
        }
    }

    /**
     * @param key the key's bytes
     * @return a copy of the value's bytes, or null if the key is absent
     */
    public byte[] getBytes(byte[] key) {
        return store.read(key, 0, key.length, hash(key), MapCoding.COPY, null);
    }

    /**
     * Sets a key's value, both as bytes.
     *
     * @param key   the key's bytes, at most the map's key limit
     * @param value the value's bytes, at most the map's value limit
     * @return true if the key was absent (an insertion), false if its value was replaced
     * @throws FerriteException if a length is over its limit (nothing is written) or the pool is full
     */
    public boolean putBytes(byte[] key, byte[] value) {
        Objects.requireNonNull(value, "value");
        store.checkKeyLength(key.length);
        store.checkValueLength(value.length);
        return store.write(key, 0, key.length, hash(key), c -> {
            boolean absent = !c.present();
            c.put(value, 0, value.length);
            return absent;
        });
    }

    /**
     * @param key the key's bytes
     * @return whether the key was present (and is now removed)
     */
    public boolean removeBytes(byte[] key) {
        return store.write(key, 0, key.length, hash(key), c -> {
            boolean present = c.present();
            c.remove();
            return present;
        });
    }

    /**
     * Changes a value's bytes where they lie in the map's memory, atomically: under the lock of the
     * key's section (in every process), the updater gets the stored value itself (no heap copy, no
     * new entry) when it is held in its bucket or is at most {@value #IN_PLACE_MAX_VALUE} bytes, else a copy in the map's
     * memory that is then published in its place. Readers see the old value until the call returns,
     * then the new one; a process killed inside the updater leaves the old value (see
     * {@link ValueUpdater}).
     *
     * @param key     the key's bytes
     * @param updater what to change; runs exactly once if the key is present
     * @return whether the key was present
     * @throws RuntimeException whatever the updater throws; the value is then as it was
     */
    public boolean updateValue(byte[] key, ValueUpdater updater) {
        Objects.requireNonNull(updater, "updater");
        return store.write(key, 0, key.length, hash(key), c -> {
            if (!c.present()) {
                return false;
            }
            c.update(updater);
            return true;
        });
    }

    /**
     * {@link #updateValue} for a key that is present, {@link #putBytes} of {@code initial} for one
     * that is absent, in one pass under the section's lock: a counter's first increment and its
     * later ones cost one lookup each, and no other writer can come between the check and the
     * write (in any process).
     *
     * @param key     the key's bytes, at most the map's key limit
     * @param updater what to change if the key is present; then it runs exactly once
     * @param initial the value stored if the key is absent, at most the map's value limit
     * @return true if the key was present (the updater ran), false if {@code initial} was stored
     * @throws FerriteException if a length is over its limit (nothing is written) or the pool is full
     */
    public boolean updateValueOrPut(byte[] key, ValueUpdater updater, byte[] initial) {
        Objects.requireNonNull(updater, "updater");
        Objects.requireNonNull(initial, "initial");
        store.checkKeyLength(key.length);
        store.checkValueLength(initial.length);
        return store.write(key, 0, key.length, hash(key), c -> {
            if (c.present()) {
                c.update(updater);
                return true;
            }
            c.put(initial, 0, initial.length);
            return false;
        });
    }

    // ---------------------------------------------------------------- cursor iteration

    /** A scan cursor is {@code section << 32 | bucket cursor within the section}. */
    private static final int CURSOR_SECTION_SHIFT = 32;

    /**
     * One step of a cursor iteration, as Redis's {@code SCAN}: visits about {@code count} entries
     * from where the cursor points and returns the cursor to pass next, 0 once every entry was
     * visited. Nothing is held between calls (no lock, no snapshot, no memory), so an iteration may
     * be left unfinished at no cost and may go on in another thread or process.
     *
     * <p>Guarantees, as {@code SCAN}'s: an entry present from the first call to the last is visited
     * exactly once, even if its section grows or is compacted meanwhile (a section's keys are
     * visited in the order of the low 32 bits of their hashes, which is the order of their home
     * buckets whatever the table's size, and the cursor is a position in that order); an entry
     * added or removed meanwhile may or may not be. Entries are visited in no particular order; a
     * step never splits the entries of one home bucket, so it may visit a few more than
     * {@code count}, or none while the iteration goes on. Each step reads as a get does (no lock,
     * validated), so writers are not slowed. Thread-safe.
     *
     * @param cursor 0 to start, then the value the previous call returned; a cursor this map could
     *               not have returned (one beyond its sections) ends the iteration: 0 is returned
     * @param count  how many entries to aim for in this step, 1 or more
     * @param action receives each visited entry, decoded
     * @return the cursor for the next call, or 0 when the iteration is complete
     * @throws IllegalArgumentException if {@code count} is less than 1 or {@code cursor} is negative
     */
    public long scan(long cursor, int count, BiConsumer<? super K, ? super V> action) {
        Objects.requireNonNull(action, "action");
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        if (cursor < 0) {
            throw new IllegalArgumentException("cursor must not be negative: " + cursor);
        }
        long section = cursor >>> CURSOR_SECTION_SHIFT;
        long bucket = cursor & 0xFFFF_FFFFL;
        int left = count;
        while (section < store.sectionCount) {
            SectionScanner.BucketRun run = store.scanBuckets((int) section, bucket, left);
            for (byte[][] e : run.entries) {
                action.accept(coding.decodeKey(e[0]), coding.decodeValue(e[1]));
            }
            left -= run.entries.size();
            if (run.next != 0) {
                return section << CURSOR_SECTION_SHIFT | run.next;
            }
            section++;
            bucket = 0;
            if (left <= 0) {
                return section < store.sectionCount ? section << CURSOR_SECTION_SHIFT : 0;
            }
        }
        return 0;
    }

    // ---------------------------------------------------------------- the rest

    /** @return whether the key maps to a value of the same bytes as {@code value} */
    boolean containsEntry(Object key, Object value) {
        byte[] v = coding.comparableValue(value);
        if (key == null || v == null) {
            return false;
        }
        try {
            return Arrays.equals(getBytes(coding.encodeKey(key)), v);
        } catch (ClassCastException | FerriteException e) {
            return false;
        }
    }

    /** @return the bytes of a value to compare with stored ones, or null if it equals none ({@link MapCoding#comparableValue}) */
    byte[] comparableValue(Object value) {
        return coding.comparableValue(value);
    }

    /** @return the store underneath, for this package */
    MapStore store() {
        return store;
    }

    /**
     * A scrub: reads every entry and checks it against its checksum and lengths; a section holding
     * a damaged entry is rebuilt without it (counted in {@link MapStats#droppedEntries()}), unless
     * the map is read-only. Takes time proportional to the map's size; readers and writers go on
     * meanwhile, each section locked only while it is rebuilt. Thread-safe.
     *
     * @return damaged entries found
     * @throws FerriteException if the map is closed
     */
    public long verify() {
        return store.verify();
    }

    /** @return a snapshot of the map's size, memory and repairs */
    public MapStats stats() {
        return store.stats();
    }

    /** @return the longest key, in bytes, this map stores */
    public int maxKeySize() {
        return store.maxKey;
    }

    /** @return the longest value, in bytes, this map stores */
    public int maxValueSize() {
        return store.maxValue;
    }

    /**
     * Writes the changed pages of the map's pool, whichever process changed them, to its file
     * ({@code msync}): every write that returned before the call then survives a power loss or an
     * operating system crash, not only a crash of the process (which a returned write always
     * survives; a shm pool lives in RAM and survives neither). Blocks
     * until the pages are on the device; costs in proportion to the pages written since the last
     * force. A no-op for a process-local map. Thread-safe.
     *
     * @throws FerriteException if the map is closed or the system cannot write the pages
     */
    public void force() {
        store.checkOpen();
        store.pool.force();
    }

    /** @return the pool holding the map */
    public ChunkPool pool() {
        return store.pool;
    }

    /** @return the map's name in its pool */
    public String name() {
        return store.name;
    }

    /** @return whether this map was opened read-only (writes throw {@code UnsupportedOperationException}) */
    public boolean isReadOnly() {
        return store.readOnly;
    }

    /**
     * Deletes a map's segments from a pool (no process may have it open).
     *
     * @param pool the pool
     * @param name the map's name
     * @return whether a map of that name was there
     */
    public static boolean delete(ChunkPool pool, String name) {
        boolean found = pool.delete(name);
        String prefix = name + ".";
        for (String n : pool.segmentNames()) {
            if (n.startsWith(prefix) && n.substring(prefix.length()).matches("[0-9]+\\.[0-9]+")) {
                pool.delete(n);
                found = true;
            }
        }
        return found;
    }

    /**
     * Releases the map's handles and client slot, and closes the pool if the builder made it. A
     * second call does nothing. Operations other threads run meanwhile end or throw
     * {@link FerriteException}; none crashes the JVM. For that, a pool the builder made stays
     * mapped (and an anonymous one's RAM held) until the collector finds the map's handles
     * unreachable; to have the memory back at once, give the map a pool ({@code pool(pool, name)})
     * and close that pool after the map, once no thread uses the map.
     */
    @Override
    public void close() {
        store.close(ownedPool == null); // a pool of its own closes the handles, leaving memory in use mapped
        if (ownedPool != null) {
            ownedPool.close();
        }
    }
}
