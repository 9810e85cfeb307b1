package dev.ferrite.kv;

import dev.ferrite.Segment;

import java.util.Objects;

/**
 * A map's codecs at work: keys and values to bytes and back, with the map's limits checked; the
 * keys of lookups encoded into per-thread arrays, without garbage; the value readers the map's
 * gets use. Thread-safe.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class MapCoding<K, V> {

    static final ValueReader<byte[]> COPY = (segment, offset, length) -> {
        byte[] b = new byte[length];
        segment.copyTo(offset, b, 0, length);
        return b;
    };
    static final ValueReader<Boolean> PRESENT = (segment, offset, length) -> Boolean.TRUE;
    /** Per thread: the reader of {@link FerriteMap#get(Object, byte[])}, which runs no user code. */
    static final ThreadLocal<CopyInto> COPY_INTO = ThreadLocal.withInitial(CopyInto::new);

    /** Copies a value into the array it is given, if it fits, and keeps its length. */
    static final class CopyInto implements ValueReader<Boolean> {
        byte[] into;
        int length;

        @Override
        public Boolean read(Segment segment, long offset, int length) {
            this.length = length;
            if (length <= into.length) {
                segment.copyTo(offset, into, 0, length);
            }
            return Boolean.TRUE;
        }
    }

    /** Per thread: the key array of a {@code readValue} by buffer or segment, lent out while one runs. */
    private static final ThreadLocal<byte[][]> KEY_SCRATCH = ThreadLocal.withInitial(() -> new byte[][] {new byte[64]});
    /**
     * Per thread: the key of a {@link FerriteMap#get} or {@link FerriteMap#containsKey}, which run no user code while
     * they use it (a {@code ValueReader} may call those, so this is not {@link #KEY_SCRATCH}).
     */
    private static final ThreadLocal<LookupKey> LOOKUP_KEY = ThreadLocal.withInitial(LookupKey::new);
    /** Longest string a lookup encodes into its thread's buffer; longer ones are encoded as other keys. */
    private static final int LOOKUP_CHARS = 1 << 12;

    private final Codec<K> keyCodec;
    private final Codec<V> valueCodec;
    private final MapStore store;

    MapCoding(Codec<K> keyCodec, Codec<V> valueCodec, MapStore store) {
        this.keyCodec = keyCodec;
        this.valueCodec = valueCodec;
        this.store = store;
    }

    byte[] encodeKey(Object key) {
        Objects.requireNonNull(key, "key");
        if (keyCodec == Codecs.UTF8) {
            byte[] b = Codecs.bytesOf(Codecs.UTF8, (String) key);
            store.checkKeyLength(b.length);
            return b;
        }
        @SuppressWarnings("unchecked")
        K k = (K) key;
        int size = keyCodec.size(k);
        store.checkKeyLength(size);
        return Codecs.encode(keyCodec, k, size);
    }

    /**
     * A thread's lookup key: its bytes are {@code bytes[0, length)}, which a lookup only reads.
     * {@code bytes} is the thread's {@code buffer}, a key's own array (the bytes codec) or a new one.
     */
    static final class LookupKey {
        byte[] bytes;
        int length;
        /** Where strings are encoded; never a caller's array. */
        byte[] buffer = new byte[64];
    }

    /**
     * The bytes of a key for a lookup, which only reads them: a {@code byte[]} key of the bytes codec
     * itself, not copied; a string of the UTF-8 codec without surrogates and of at most
     * {@link #LOOKUP_CHARS} chars encoded into the thread's buffer; both without allocating. Any
     * other key as {@link #encodeKey} encodes it.
     */
    LookupKey lookupKey(Object key) {
        Objects.requireNonNull(key, "key");
        LookupKey k = LOOKUP_KEY.get();
        if (keyCodec != Codecs.UTF8 || !encodeUtf8((String) key, k)) {
            k.bytes = lookupBytes(key);
            k.length = k.bytes.length;
            return k;
        }
        store.checkKeyLength(k.length);
        return k;
    }

    /**
     * The bytes of a key for a lookup, which only reads them and may keep them a while (a batch): a
     * {@code byte[]} key of the bytes codec itself, not copied; any other key as {@link #encodeKey}
     * encodes it. Both checked against the map's key limit.
     */
    byte[] lookupBytes(Object key) {
        if (keyCodec == Codecs.BYTES) {
            byte[] b = (byte[]) Objects.requireNonNull(key, "key");
            store.checkKeyLength(b.length);
            return b;
        }
        return encodeKey(key);
    }

    /**
     * Encodes a string into {@code into}'s buffer and points {@code into.bytes} at it.
     *
     * @return false, leaving {@code into} to be refilled, if the string has a surrogate or is too long
     */
    private static boolean encodeUtf8(String s, LookupKey into) {
        int n = s.length();
        if (n > LOOKUP_CHARS) {
            return false;
        }
        if (into.buffer.length < 3 * n) {
            into.buffer = new byte[3 * n];
        }
        byte[] b = into.buffer;
        if (into.bytes != b) { // nearly always b already: no reference store (and its collector barrier) per lookup
            into.bytes = b;
        }
        int seen = 0;
        for (int i = 0; i < n; i++) { // no branch per char: the common, ASCII case
            char c = s.charAt(i);
            b[i] = (byte) c;
            seen |= c;
        }
        if (seen < 0x80) {
            into.length = n;
            return true;
        }
        int p = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                b[p++] = (byte) c;
            } else if (c < 0x800) {
                b[p++] = (byte) (0xC0 | c >> 6);
                b[p++] = (byte) (0x80 | c & 0x3F);
            } else if (Character.isSurrogate(c)) {
                return false; // pairs and lone surrogates: as String.getBytes encodes them
            } else {
                b[p++] = (byte) (0xE0 | c >> 12);
                b[p++] = (byte) (0x80 | c >> 6 & 0x3F);
                b[p++] = (byte) (0x80 | c & 0x3F);
            }
        }
        into.length = p;
        return true;
    }

    /**
     * @return the bytes of a value given as an object to compare with stored values ({@link
     * #encodeValue}), or null if it is null, not of the codec's type or longer than the map's limit:
     * such a value equals no stored value
     */
    byte[] comparableValue(Object value) {
        return Codecs.comparableBytes(value, this::encodeValue);
    }

    /**
     * The bytes of a value to store or compare, which callers only read: a {@code byte[]} value of
     * the bytes codec itself, not copied; any other value encoded by its codec. Checked against the
     * map's value limit.
     */
    byte[] encodeValue(V value) {
        Objects.requireNonNull(value, "value");
        if (valueCodec == Codecs.BYTES) {
            byte[] b = (byte[]) value;
            store.checkValueLength(b.length);
            return b;
        }
        if (valueCodec == Codecs.UTF8) {
            byte[] b = Codecs.bytesOf(Codecs.UTF8, (String) value);
            store.checkValueLength(b.length);
            return b;
        }
        int size = valueCodec.size(value);
        store.checkValueLength(size);
        return Codecs.encode(valueCodec, value, size);
    }

    V decodeValue(byte[] b) {
        if (b == null) {
            return null;
        }
        return Codecs.decode(valueCodec, b, true); // a copy of its own: no second one
    }

    K decodeKey(byte[] b) {
        return Codecs.decode(keyCodec, b, false);
    }

    /**
     * Takes the thread's key array (of at least that many bytes; keys are at most the map's key
     * limit) until {@link #returnScratch}: a lookup its reader makes meanwhile gets an array of its own.
     */
    byte[] borrowScratch(int length) {
        store.checkKeyLength(length);
        byte[][] holder = KEY_SCRATCH.get();
        byte[] b = holder[0];
        holder[0] = null;
        return b != null && b.length >= length ? b : new byte[Math.max(length, 64)];
    }

    static void returnScratch(byte[] b) {
        KEY_SCRATCH.get()[0] = b;
    }
}
