package dev.ferrite.queue;

/**
 * Byte layout of one record in the ring.
 *
 * <pre>
 *   0        4        8                         length      aligned to 8
 *   +--------+--------+--------------- ... -----+--- pad ---+
 *   | length | type   | payload (length - 8)    | unused    |
 *   +--------+--------+--------------- ... -----+-----------+
 * </pre>
 *
 * <p>The header is one little-endian long, {@code type << 32 | length}, so one 8-byte store
 * publishes both. Its states:
 * <ul>
 *   <li>{@code 0}: nothing published here yet (the producer, or with many producers the
 *       consumer, makes sure the next header word reads 0 until a record is published there);</li>
 *   <li>{@code length > 0}, {@code type >= 0}: a message of {@code length - 8} payload bytes;</li>
 *   <li>{@code length > 0}, {@code type == PADDING_TYPE}: bytes to skip (the end of the ring
 *       before a wrap, an aborted claim, or a record skipped as abandoned);</li>
 *   <li>{@code length < 0}: claimed and being written; {@code -length} bytes are reserved and the
 *       type field names the writer ({@link #inProgressOwner}).</li>
 * </ul>
 */
public final class RecordLayout {

    /** Header bytes before the payload. */
    public static final int HEADER_BYTES = 8;
    /** Records start at multiples of this. */
    public static final int ALIGNMENT = 8;
    /** Type of a padding record. Message types are {@code >= 0}. */
    public static final int PADDING_TYPE = -1;
    /** Bits of an in-progress owner word that hold the producer slot. */
    public static final int OWNER_SLOT_BITS = 6;

    private RecordLayout() {
    }

    /**
     * @param length record length in bytes (header included), or its negation while in progress
     * @param type   message type, {@link #PADDING_TYPE}, or an in-progress owner word
     * @return the header word
     */
    public static long header(int length, int type) {
        return (long) type << 32 | (length & 0xFFFFFFFFL);
    }

    /**
     * @param header a header word
     * @return its length field
     */
    public static int length(long header) {
        return (int) header;
    }

    /**
     * @param header a header word
     * @return its type field
     */
    public static int type(long header) {
        return (int) (header >>> 32);
    }

    /**
     * @param length record length in bytes
     * @return the bytes the record occupies, a multiple of {@link #ALIGNMENT}
     */
    public static int aligned(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * The type field of an in-progress record: the writer's slot and the slot's generation, so a
     * reader can tell whether the writer still holds its slot.
     *
     * @param slot       producer slot, 0 to 63
     * @param generation the slot's generation when the writer took it
     * @return the owner word
     */
    public static int inProgressOwner(int slot, long generation) {
        return (int) (generation << OWNER_SLOT_BITS) | slot;
    }
}
