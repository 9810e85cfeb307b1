package dev.ferrite.kv;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import dev.ferrite.internal.XxHash64;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

import static dev.ferrite.kv.MapLayout.CODECS_CRC;
import static dev.ferrite.kv.MapLayout.CODEC_NAME_BYTES;
import static dev.ferrite.kv.MapLayout.KEY_CODEC_HASH;
import static dev.ferrite.kv.MapLayout.KEY_CODEC_NAME;
import static dev.ferrite.kv.MapLayout.VALUE_CODEC_HASH;
import static dev.ferrite.kv.MapLayout.VALUE_CODEC_NAME;

/**
 * The codecs a map was made with, as its header records them ({@link MapLayout#KEY_CODEC_HASH}
 * to {@link MapLayout#CODECS_CRC}): each codec's {@link Codec#id() identity} as a hash, and its
 * first bytes for messages. An opener whose codec has another identity is refused, unless either
 * side is {@link Codec#bytes()} (raw bytes read and write any map) or the header records no codecs.
 * Stateless.
 */
final class MapCodecs {

    /** The hash of {@link Codecs#BYTES_ID}: raw bytes, which open any map. */
    private static final long BYTES_HASH = hash(Codecs.BYTES_ID.getBytes(StandardCharsets.UTF_8));

    private MapCodecs() {
    }

    /** Writes the codec block of a header being created (before its magic). */
    static void record(Segment header, Codec<?> key, Codec<?> value) {
        write(header, KEY_CODEC_HASH, KEY_CODEC_NAME, key.id());
        write(header, VALUE_CODEC_HASH, VALUE_CODEC_NAME, value.id());
        header.putInt(CODECS_CRC, crc(header));
    }

    private static void write(Segment header, int hashAt, int nameAt, String id) {
        byte[] b = id.getBytes(StandardCharsets.UTF_8);
        header.putLong(hashAt, hash(b));
        header.copyFrom(Arrays.copyOf(b, CODEC_NAME_BYTES), 0, nameAt, CODEC_NAME_BYTES);
    }

    /**
     * Checks an opener's codecs against the header's.
     *
     * @param where names the map in messages
     * @throws FerriteException     naming both identities of each side that differs
     * @throws CorruptFileException if the codec block fails its CRC
     */
    static void check(Segment header, Codec<?> key, Codec<?> value, String where) {
        long keyHash = header.getLong(KEY_CODEC_HASH);
        long valueHash = header.getLong(VALUE_CODEC_HASH);
        if (keyHash == 0 && valueHash == 0 && header.getInt(CODECS_CRC) == 0) {
            return; // made before codecs were recorded
        }
        int crc = crc(header);
        if (header.getInt(CODECS_CRC) != crc) {
            throw new CorruptFileException(where + ": the codec block's CRC 0x" + Integer.toHexString(header.getInt(CODECS_CRC))
                    + " does not match its bytes (0x" + Integer.toHexString(crc) + ")");
        }
        List<String> differ = new ArrayList<>();
        compare(header, "key", key, keyHash, KEY_CODEC_NAME, differ);
        compare(header, "value", value, valueHash, VALUE_CODEC_NAME, differ);
        if (!differ.isEmpty()) {
            throw new FerriteException(where + " was made with other codecs: " + String.join("; ", differ)
                    + ". Open it with the codecs it was made with, or with Codec.bytes() to read its raw bytes");
        }
    }

    private static void compare(Segment header, String side, Codec<?> codec, long stored, int nameAt, List<String> differ) {
        String id = codec.id();
        byte[] b = id.getBytes(StandardCharsets.UTF_8);
        long mine = hash(b);
        if (mine == stored || mine == BYTES_HASH || stored == BYTES_HASH) {
            return;
        }
        differ.add(side + " codec '" + storedName(header, nameAt) + "', opened with '" + id + "'");
    }

    /** @return the recorded name, with "..." if the identity was longer than the field */
    private static String storedName(Segment header, int nameAt) {
        byte[] b = new byte[CODEC_NAME_BYTES];
        header.copyTo(nameAt, b, 0, CODEC_NAME_BYTES);
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        String name = new String(b, 0, n, StandardCharsets.UTF_8);
        return n == CODEC_NAME_BYTES ? name + "..." : name;
    }

    private static long hash(byte[] id) {
        long h = XxHash64.hash(id, 0, id.length);
        return h == 0 ? 1 : h; // 0 means "not recorded"
    }

    private static int crc(Segment header) {
        byte[] b = new byte[CODECS_CRC - KEY_CODEC_HASH];
        header.copyTo(KEY_CODEC_HASH, b, 0, b.length);
        CRC32C c = new CRC32C();
        c.update(b);
        return (int) c.getValue();
    }
}
