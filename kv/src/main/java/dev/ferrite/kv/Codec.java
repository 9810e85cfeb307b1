package dev.ferrite.kv;

import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * Turns values of one type into bytes and back, for keys and values stored off the heap. An
 * encoding is little-endian and self-contained: {@link #decode} gets exactly the bytes
 * {@link #encode} wrote, and equal values must encode to equal bytes (a map compares and hashes
 * keys by their bytes).
 *
 * <p>Buffers handed to a codec are little-endian; a codec reads and writes at their position,
 * advances it by the bytes it used and changes nothing else about them. Implementations are
 * stateless and thread-safe; the built-ins are.
 *
 * @param <T> the type of the values
 */
public interface Codec<T> {

    /**
     * @param value a value, not null
     * @return how many bytes {@link #encode} writes for it, at least 0
     */
    int size(T value);

    /**
     * Writes a value's bytes.
     *
     * @param value a value, not null
     * @param dst   a little-endian buffer with at least {@code size(value)} bytes remaining
     */
    void encode(T value, ByteBuffer dst);

    /**
     * Reads a value from the bytes {@link #encode} wrote.
     *
     * @param src    a little-endian buffer positioned at the value
     * @param length the value's length in bytes, at most {@code src.remaining()}
     * @return the value
     * @throws dev.ferrite.FerriteException if the bytes are no encoding of this codec (naming what
     *                                      is wrong); never reads past {@code length}
     */
    T decode(ByteBuffer src, int length);

    /**
     * The codec's identity, recorded in the header of a map it creates: opening a map with a codec
     * of another identity is refused, naming both (a codec of {@code byte[]} reads any map's raw
     * bytes). Two codecs share an identity only if each decodes what the other encodes. The
     * built-ins: {@code bytes}, {@code utf8}, {@code int64}, {@code int32}, {@code float64},
     * {@code uuid}, and for {@link #record} {@code record(TYPE NAME, ...)} from the record's
     * components (nested records spelled out), so reordering, renaming or retyping a component
     * changes it while renaming the record class does not.
     *
     * @return a non-empty, stable name; by default the codec's class name, which a codec of one's
     *         own should replace with a name that outlives refactoring
     */
    default String id() {
        return getClass().getName();
    }

    /**
     * @return the length of every encoding if it is fixed (such values can be updated in place),
     *         else -1
     */
    default int fixedSize() {
        return -1;
    }

    /** @return {@code byte[]} as its bytes (a map copies arrays in and out: the caller keeps its own) */
    static Codec<byte[]> bytes() {
        return Codecs.BYTES;
    }

    /**
     * @return {@code String} as UTF-8, encoded as {@code String.getBytes(UTF_8)} encodes (an unpaired
     *         surrogate becomes {@code '?'}) and decoded strictly: bytes that are no UTF-8 are a
     *         {@link dev.ferrite.FerriteException} naming their count, never replacement characters
     */
    static Codec<String> utf8() {
        return Codecs.UTF8;
    }

    /** @return {@code Long} as 8 little-endian bytes */
    static Codec<Long> int64() {
        return Codecs.LONG;
    }

    /**
     * @return {@code Long} as 8 big-endian bytes with the sign bit flipped, so that the order of
     *         the bytes (unsigned, lexicographic) is the order of the numbers: the key codec of a
     *         {@link FerriteSortedMap} of longs
     */
    static Codec<Long> int64Ordered() {
        return Codecs.LONG_ORDERED;
    }

    /** @return {@code Integer} as 4 little-endian bytes */
    static Codec<Integer> int32() {
        return Codecs.INT;
    }

    /**
     * @return {@code Double} as the 8 little-endian bytes of its IEEE 754 bits (every NaN as the
     *         canonical NaN, so equal values encode equally)
     */
    static Codec<Double> float64() {
        return Codecs.DOUBLE;
    }

    /** @return {@code UUID} as 16 bytes: the most significant long, then the least, little-endian */
    static Codec<UUID> uuid() {
        return Codecs.UUID_CODEC;
    }

    /**
     * A codec for a Java record, field by field in declaration order, without
     * {@code java.io.Serializable}. Supported component types: the eight primitives and their
     * boxes, {@code String}, {@code byte[]}, {@code UUID}, enums and records of these (nested to any
     * depth, but not recursive). The format is in {@code docs/FORMAT.md} ("Record codec").
     *
     * @param type the record class; its canonical constructor must be accessible to this module
     *             (public, or in a package opened to {@code dev.ferrite.kv})
     * @param <R>  the record type
     * @return the codec
     * @throws dev.ferrite.FerriteException naming the component if a component's type is not
     *                                      supported, or the record refers to itself
     */
    static <R extends Record> Codec<R> record(Class<R> type) {
        return RecordCodec.of(type);
    }
}
