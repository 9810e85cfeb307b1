package dev.ferrite.kv;

/**
 * Byte layout of an outside entry, one too long for its bucket, in a section's heap. Little-endian;
 * an entry starts 8-aligned and takes {@link #size} bytes. Mirrored in {@code docs/FORMAT.md}
 * ("Map, version 4").
 *
 * <pre>
 *   0           4            8             12         16
 *   +-----------+------------+-------------+----------+------------+--------------+---------------+
 *   | CHECKSUM  | KEY_LENGTH | VALUE_LENGTH| (zero)   | key bytes  | value bytes  | zero to 8     |
 *   +-----------+------------+-------------+----------+------------+--------------+---------------+
 * </pre>
 *
 * <p>{@code CHECKSUM} is the low 32 bits of XXH64 (seed 0) of bytes [4, 16 + key + value): the
 * lengths, the zero word, the key and the value. An entry is written whole before a bucket
 * refers to it; afterwards only an in-place update changes its value and checksum, while its
 * bucket's word is odd (readers then take the value from the undo record). So a reader that finds
 * a checksum that does not match under a settled, unchanged word has found damage.
 */
final class EntryLayout {

    /** int: the checksum. */
    static final int CHECKSUM = 0;
    /** int: key length in bytes. */
    static final int KEY_LENGTH = 4;
    /** int: value length in bytes. */
    static final int VALUE_LENGTH = 8;
    /** int: zero (reserved). */
    static final int RESERVED = 12;
    /** Offset of the key bytes. */
    static final int KEY = 16;
    /** Bytes before the key. */
    static final int HEADER = 16;

    private EntryLayout() {
    }

    /** @return bytes an entry of those lengths takes in the heap, a multiple of 8 */
    static long size(int keyLength, int valueLength) {
        return (HEADER + (long) keyLength + valueLength + 7) & ~7L;
    }

    /** @return the bytes the checksum covers, from {@link #KEY_LENGTH} */
    static long checkedLength(int keyLength, int valueLength) {
        return 12L + keyLength + valueLength;
    }
}
