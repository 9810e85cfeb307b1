package dev.ferrite.kv;

import dev.ferrite.FerriteException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

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

    static void putUtf8(String s, ByteBuffer dst) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                dst.put((byte) c);
            } else if (c < 0x800) {
                dst.put((byte) (0xC0 | c >> 6)).put((byte) (0x80 | c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                dst.put((byte) (0xF0 | cp >> 18)).put((byte) (0x80 | cp >> 12 & 0x3F))
                        .put((byte) (0x80 | cp >> 6 & 0x3F)).put((byte) (0x80 | cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                dst.put((byte) '?');
            } else {
                dst.put((byte) (0xE0 | c >> 12)).put((byte) (0x80 | c >> 6 & 0x3F)).put((byte) (0x80 | c & 0x3F));
            }
        }
    }

    /**
     * Reads {@code length} bytes of UTF-8, strictly: bytes that are no UTF-8 are an error, not
     * replacement characters.
     */
    static String getUtf8(ByteBuffer src, int length, String what) {
        int start = src.position();
        boolean ascii = true;
        for (int i = 0; i < length; i++) {
            if (src.get(start + i) < 0) {
                ascii = false;
                break;
            }
        }
        byte[] b = new byte[length];
        src.get(b);
        if (ascii) {
            return new String(b, StandardCharsets.ISO_8859_1);
        }
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new FerriteException("the " + length + " bytes of a " + what + " are not UTF-8: " + e.getMessage());
        }
    }
}
