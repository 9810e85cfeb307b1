package dev.ferrite.internal.pool;

/**
 * Byte layout of a pool's chunk table: one {@value #ENTRY_SIZE}-byte entry per chunk of capacity,
 * chunk {@code c} at {@code chunkTableOffset + 8 * c}. Little-endian. Mirrored in
 * {@code docs/FORMAT.md}.
 *
 * <pre>
 *   0             4             8
 *   +-------------+-------------+
 *   | NEXT (int)  | OWNER (int) |
 *   +-------------+-------------+
 * </pre>
 *
 * <p>{@code OWNER} is the one authority on who holds a chunk: {@value #OWNER_FREE} free,
 * {@code i + 1} owner slot {@code i} (an unnamed segment of that process, or a chunk it is
 * moving), {@code -(d + 1)} directory slot {@code d}. {@code NEXT} links a free chunk to the next
 * one on the free stack, or a named segment's chunk to the next in its chain; -1 ends either.
 * Entries of chunks in extents not yet obtained are zero.
 */
public final class ChunkTableLayout {

    /** Bytes per entry. */
    public static final int ENTRY_SIZE = 8;
    /** int: next chunk id, or {@value #NIL}. */
    public static final int NEXT = 0;
    /** int: owner code. */
    public static final int OWNER = 4;
    /** The end of a chain or of the free stack. */
    public static final int NIL = -1;
    /** The owner code of a free chunk. */
    public static final int OWNER_FREE = 0;

    private ChunkTableLayout() {
    }

    /**
     * @param ownerSlot an owner slot index
     * @return the owner code of chunks that process holds
     */
    public static int processOwner(int ownerSlot) {
        return ownerSlot + 1;
    }

    /**
     * @param directorySlot a directory slot index
     * @return the owner code of chunks of that named segment
     */
    public static int directoryOwner(int directorySlot) {
        return -(directorySlot + 1);
    }
}
