package dev.ferrite.kv;

import dev.ferrite.FerriteException;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;

/**
 * A sorted map's codecs and its order: keys and values to bytes and back, key lengths checked
 * against the map's limit, and the comparator of keys by their bytes (unsigned, lexicographic).
 * Thread-safe.
 */
final class SortedCoding<K, V> {

    final SortedStore store;
    final Codec<K> keyCodec;
    final Codec<V> valueCodec;
    final Comparator<K> comparator;

    SortedCoding(SortedStore store, Codec<K> keyCodec, Codec<V> valueCodec) {
        this.store = store;
        this.keyCodec = keyCodec;
        this.valueCodec = valueCodec;
        this.comparator = (a, b) -> Arrays.compareUnsigned(Codecs.bytesOf(keyCodec, a), Codecs.bytesOf(keyCodec, b));
    }

    /**
     * @return a key's bytes
     * @throws NullPointerException if the key is null
     * @throws ClassCastException   if it is not a key of this map's type
     * @throws FerriteException     if its bytes are longer than the map's longest key
     */
    @SuppressWarnings("unchecked")
    byte[] key(Object key) {
        Objects.requireNonNull(key, "key");
        byte[] b = Codecs.bytesOf(keyCodec, (K) key);
        if (b.length > store.maxKey) {
            throw new FerriteException("key of " + b.length + " bytes is longer than the longest sorted map "
                    + store.describe() + " takes, " + store.maxKey + " ((page size - 16) / 4 - 17)");
        }
        return b;
    }

    /** @return a key's bytes, or null if it cannot be in the map (too long) */
    byte[] lookupKey(Object key) {
        try {
            return key(key);
        } catch (FerriteException e) {
            return null;
        }
    }

    /**
     * @return the bytes of a value given as an object to compare with stored values, or null if it
     *         is null, not of the codec's type or longer than the longest value: such a value
     *         equals no stored value
     */
    byte[] comparableValue(Object value) {
        return Codecs.comparableBytes(value, this::value);
    }

    /** @throws FerriteException if the value's bytes are longer than {@link SortedStore#MAX_VALUE} */
    byte[] value(V value) {
        Objects.requireNonNull(value, "value");
        byte[] b = Codecs.bytesOf(valueCodec, value);
        if (b.length > SortedStore.MAX_VALUE) {
            throw new FerriteException("value of " + b.length + " bytes is longer than the longest a sorted map takes, "
                    + SortedStore.MAX_VALUE);
        }
        return b;
    }

    K decodeKey(byte[] b) {
        return Codecs.decode(keyCodec, b, false);
    }

    /** Decodes a key whose array nothing else holds: a {@code byte[]} key is that array. */
    K decodeOwnedKey(byte[] b) {
        return Codecs.decode(keyCodec, b, true);
    }

    V decodeValue(byte[] b) {
        return b == null ? null : Codecs.decode(valueCodec, b, true);
    }
}
