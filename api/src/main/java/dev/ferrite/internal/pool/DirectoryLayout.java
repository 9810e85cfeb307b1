package dev.ferrite.internal.pool;

/**
 * Byte layout of one slot of a pool's directory of named segments. The directory starts at
 * {@link PoolHeaderLayout#HEADER_SIZE} and holds a fixed number of {@value #SLOT_SIZE}-byte slots.
 * Little-endian. Mirrored in {@code docs/FORMAT.md}.
 *
 * <pre>
 *   0         4           8                  16                 24          28          32
 *   +---------+-----------+------------------+------------------+-----------+-----------+
 *   | STATE   | CHANGED_BY| GENERATION       | SIZE             | FIRST_CH  | CHUNK_CNT |
 *   +---------+-----------+------------------+------------------+-----------+-----------+
 *  32                    40          44          48          52                         64
 *   | OPEN_MASK          | NAME_LEN  | (zero)    | CRC       | (zero)                   |
 *   +--------------------+-----------+-----------+-----------+--------------------------+
 *  64                                                                                  320
 *   | NAME: NAME_LEN bytes of UTF-8, zero padded to 256                                 |
 *   +-----------------------------------------------------------------------------------+
 * </pre>
 *
 * <p>A slot changes only under the pool's meta lock. {@code STATE} goes EMPTY → RESERVED (chunks
 * being claimed, owned by this slot) → LIVE (findable by name) → DELETING (name gone, freed when
 * the last process closes its handles) → EMPTY. {@code CRC} is CRC-32C of bytes [8, 32) and the
 * name, written when the slot goes LIVE.
 */
public final class DirectoryLayout {

    /** Bytes per slot. */
    public static final int SLOT_SIZE = 320;
    /** Longest name in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 255;

    /** int: one of the STATE_ values. */
    public static final int STATE = 0;
    /** int: owner slot of the process that made the last change (for recovery). */
    public static final int CHANGED_BY = 4;
    /** long: bumped each time the slot is emptied, so a stale reference can tell. */
    public static final int GENERATION = 8;
    /** long: segment size in bytes. */
    public static final int SIZE = 16;
    /** int: first chunk of the chain, -1 when the segment has no chunk. */
    public static final int FIRST_CHUNK = 24;
    /** int: chunks in the chain. */
    public static final int CHUNK_COUNT = 28;
    /** long: bit i set while owner slot i has handles open on the segment. */
    public static final int OPEN_MASK = 32;
    /** int: name length in bytes, 1 to {@value #MAX_NAME_BYTES}. */
    public static final int NAME_LENGTH = 40;
    /** int: CRC-32C of bytes [8, 32) and the name bytes. */
    public static final int CRC = 48;
    /** The name bytes. */
    public static final int NAME = 64;

    /** Unused. */
    public static final int STATE_EMPTY = 0;
    /** Being allocated: chunks are claimed for it; not findable yet. */
    public static final int STATE_RESERVED = 1;
    /** A named segment, findable by name. */
    public static final int STATE_LIVE = 2;
    /** Deleted, waiting for the last open handle; not findable. */
    public static final int STATE_DELETING = 3;

    private DirectoryLayout() {
    }

    /**
     * @param directoryOffset file offset of the directory
     * @param slot            slot index
     * @return the file offset of the slot
     */
    public static long slotOffset(long directoryOffset, int slot) {
        return directoryOffset + (long) slot * SLOT_SIZE;
    }
}
