package dev.ferrite.kv;

import dev.ferrite.FerriteException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.Function;

/** The built-in codecs behind {@link Codec}'s factory methods. */
final class Codecs {

    private Codecs() {
    }

    /** The identity of {@link #BYTES}: raw bytes, which read every map. */
    static final String BYTES_ID = "bytes";

    static final Codec<byte[]> BYTES = new Codec<>() {
        @Override
        public int size(byte[] value) {
            return value.length;
        }

        @Override
        public void encode(byte[] value, ByteBuffer dst) {
            dst.put(value);
        }

        @Override
        public byte[] decode(ByteBuffer src, int length) {
            byte[] b = new byte[length];
            src.get(b);
            return b;
        }

        @Override
        public String id() {
            return BYTES_ID;
        }

        @Override
        public String toString() {
            return "Codec.bytes()";
        }
    };

    static final Codec<String> UTF8 = new Codec<>() {
        @Override
        public int size(String value) {
            return utf8Length(value);
        }

        @Override
        public void encode(String value, ByteBuffer dst) {
            putUtf8(value, dst);
        }

        @Override
        public String decode(ByteBuffer src, int length) {
            return getUtf8(src, length, "String");
        }

        @Override
        public String id() {
            return "utf8";
        }

        @Override
        public String toString() {
            return "Codec.utf8()";
        }
    };

    static final Codec<Long> LONG = new Fixed<>(Long.BYTES, "Long", "int64") {
        @Override
        public void encode(Long value, ByteBuffer dst) {
            dst.putLong(value);
        }

        @Override
        Long read(ByteBuffer src) {
            return src.getLong();
        }
    };

    /** Big-endian with the sign bit flipped: unsigned byte order is numeric order (sorted map keys). */
    static final Codec<Long> LONG_ORDERED = new Fixed<>(Long.BYTES, "Long", "int64-ordered") {
        @Override
        public void encode(Long value, ByteBuffer dst) {
            dst.putLong(Long.reverseBytes(value ^ Long.MIN_VALUE));
        }

        @Override
        Long read(ByteBuffer src) {
            return Long.reverseBytes(src.getLong()) ^ Long.MIN_VALUE;
        }
    };

    static final Codec<Integer> INT = new Fixed<>(Integer.BYTES, "Integer", "int32") {
        @Override
        public void encode(Integer value, ByteBuffer dst) {
            dst.putInt(value);
        }

        @Override
        Integer read(ByteBuffer src) {
            return src.getInt();
        }
    };

    static final Codec<Double> DOUBLE = new Fixed<>(Double.BYTES, "Double", "float64") {
        @Override
        public void encode(Double value, ByteBuffer dst) {
            dst.putLong(Double.doubleToLongBits(value)); // every NaN as the canonical one
        }

        @Override
        Double read(ByteBuffer src) {
            return Double.longBitsToDouble(src.getLong());
        }
    };

    static final Codec<UUID> UUID_CODEC = new Fixed<>(16, "UUID", "uuid") {
        @Override
        public void encode(UUID value, ByteBuffer dst) {
            dst.putLong(value.getMostSignificantBits()).putLong(value.getLeastSignificantBits());
        }

        @Override
        UUID read(ByteBuffer src) {
            return new UUID(src.getLong(), src.getLong());
        }
    };

    /** A codec whose every encoding has one length. */
    abstract static class Fixed<T> implements Codec<T> {
        private final int size;
        private final String name;
        private final String id;

        Fixed(int size, String name, String id) {
            this.size = size;
            this.name = name;
            this.id = id;
        }

        @Override
        public final String id() {
            return id;
        }

        @Override
        public final int size(T value) {
            return size;
        }

        @Override
        public final int fixedSize() {
            return size;
        }

        @Override
        public final T decode(ByteBuffer src, int length) {
            if (length != size) {
                throw new FerriteException("a " + name + " is " + size + " bytes long, not " + length);
            }
            return read(src);
        }

        abstract T read(ByteBuffer src);

        @Override
        public String toString() {
            return "Codec of " + name;
        }
    }

    // ---- UTF-8 without a temporary array ------------------------------------------------------

    /** @return the UTF-8 length of a string; an unpaired surrogate counts as '?', as {@code getBytes} writes it */
    static int utf8Length(String s) {
        int n = s.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                bytes += 1;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 2; // 4 bytes for two chars
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes += 0; // '?'
            } else {
                bytes += 2;
            }
        }
        return bytes;
    }

    /** Writes a string's UTF-8 bytes, {@link #utf8Length} of them, as the JDK encodes them. */
    static void putUtf8(String s, ByteBuffer dst) {
        dst.put(s.getBytes(StandardCharsets.UTF_8)); // one intrinsic copy for Latin-1, not a put per char
    }

    /** @return the bytes a codec writes for a value, checked to be as many as its {@code size()} said */
    static <T> byte[] encode(Codec<T> codec, T value, int size) {
        byte[] b = new byte[size];
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        codec.encode(value, buf);
        if (buf.position() != size) {
            throw new FerriteException(codec + " wrote " + buf.position() + " bytes where its size() said " + size);
        }
        return b;
    }

    /**
     * The bytes a codec writes for a value, through the JDK's encoder for {@link #UTF8} (the same
     * bytes: an unpaired surrogate is {@code '?'} in both; for a Latin-1 string one intrinsic copy).
     *
     * @throws FerriteException if the codec writes another count of bytes than its {@code size()} says
     */
    static <T> byte[] bytesOf(Codec<T> codec, T value) {
        if (codec == UTF8) {
            return ((String) value).getBytes(StandardCharsets.UTF_8);
        }
        return encode(codec, value, codec.size(value));
    }

    /**
     * The bytes of a value given as an object, to compare with stored values' bytes: what
     * {@code encode} makes of it, or null if it is null, not of the map's value type or over the
     * map's limit ({@code encode} throws a {@link FerriteException}): such a value equals no stored
     * value.
     *
     * @param encode the map's value encoding, its limit checked
     */
    @SuppressWarnings("unchecked")
    static <V> byte[] comparableBytes(Object value, Function<V, byte[]> encode) {
        try {
            return value == null ? null : encode.apply((V) value);
        } catch (ClassCastException | FerriteException e) {
            return null;
        }
    }

    /**
     * The value a codec reads from all of {@code b}: for {@link #BYTES} {@code b} itself if the caller
     * hands it over ({@code own}), else a copy; for {@link #UTF8} decoded from {@code b} in place.
     */
    @SuppressWarnings("unchecked")
    static <T> T decode(Codec<T> codec, byte[] b, boolean own) {
        if (codec == BYTES && own) {
            return (T) b;
        }
        if (codec == UTF8) {
            return (T) utf8(b, 0, b.length, "String");
        }
        return codec.decode(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN), b.length);
    }

    /**
     * Reads {@code length} bytes of UTF-8 from a buffer's position, and moves it past them;
     * strictly: bytes that are no UTF-8 are an error, not replacement characters.
     *
     * @throws java.nio.BufferUnderflowException if fewer bytes remain
     * @throws FerriteException naming {@code what} if the bytes are not UTF-8
     */
    static String getUtf8(ByteBuffer src, int length, String what) {
        if (length > src.remaining()) {
            throw new BufferUnderflowException();
        }
        int at = src.position();
        src.position(at + length);
        if (src.hasArray()) {
            return utf8(src.array(), src.arrayOffset() + at, length, what);
        }
        byte[] b = new byte[length];
        src.get(at, b);
        return utf8(b, 0, length, what);
    }

    /**
     * Decodes {@code b[off, off + len)} as UTF-8, strictly (as {@link #getUtf8}).
     *
     * @throws FerriteException naming {@code what} if the bytes are not UTF-8
     */
    static String utf8(byte[] b, int off, int len, String what) {
        // The JDK's decoder: for ASCII one vectorized scan and one copy. It replaces malformed input
        // with U+FFFD, so only a string holding that char is decoded again, strictly, to tell a real
        // U+FFFD from bytes that are no UTF-8 (a Latin-1 string answers indexOf of it at once).
        String s = new String(b, off, len, StandardCharsets.UTF_8);
        if (s.indexOf('\uFFFD') >= 0) {
            try {
                StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, off, len));
            } catch (CharacterCodingException e) {
                throw new FerriteException("the " + len + " bytes of a " + what + " are not UTF-8: " + e.getMessage());
            }
        }
        return s;
    }
}
