package dev.ferrite.kv;

/**
 * Up to {@link #SIZE} keys of a batched get, encoded and hashed, waiting to be warmed together and
 * then read: {@code keys[i]} as asked, its bytes {@code encoded[i]}, their hash {@code hashes[i]};
 * with the scratch array of the batch's prefetch. One thread's, for one call: it holds the keys of
 * its last batch until the call ends.
 */
final class KeyBatch {

    /** Keys warmed together: about as many cache misses as a core keeps in flight. */
    static final int SIZE = 16;

    final Object[] keys = new Object[SIZE];
    final byte[][] encoded = new byte[SIZE][];
    final long[] hashes = new long[SIZE];
    /** The prefetch's scratch: the outside entries the keys' home buckets name, else -1. */
    final long[] words = new long[SIZE];
    int size;

    /** @return whether the batch holds {@link #SIZE} keys */
    boolean full() {
        return size == SIZE;
    }

    /** Adds a key and its bytes, which the batch reads but never writes, and hashes them. */
    void add(Object key, byte[] bytes) {
        keys[size] = key;
        encoded[size] = bytes;
        hashes[size] = MapStore.hash(bytes, 0, bytes.length);
        size++;
    }

    /** Empties the batch; the next keys overwrite its slots. */
    void clear() {
        size = 0;
    }
}
