package dev.ferrite.internal.pool;

/**
 * Byte layout of a pool file's header: the first {@value #HEADER_SIZE} bytes. Little-endian.
 * Mirrored in {@code docs/FORMAT.md}.
 *
 * <pre>
 *   0                   8         12        16                  24                  32
 *   +-------------------+---------+---------+-------------------+-------------------+
 *   | MAGIC "FERRPOOL"  | VERSION | HDR_SIZE| CHUNK_SIZE        | CAPACITY          |
 *   +-------------------+---------+---------+-------------------+-------------------+
 *  32                  40         44        48        52        56                  64
 *   | EXTENT_SIZE       | TOTAL_CH| MAX_OWN | DIR_SLOTS| SLOT_SZ| DIRECTORY_OFFSET  |
 *   +-------------------+---------+---------+---------+---------+-------------------+
 *  64                  72                  80                  88         92       96
 *   | CHUNK_TABLE_OFFSET| DATA_OFFSET       | CREATED_MILLIS    | GEOM_CRC| (zero)  |
 *   +-------------------+-------------------+-------------------+---------+---------+
 *  128  OBTAINED_EXTENTS (int)          -- each mutable word alone on a 128-byte line
 *  256  FREE_HEAD (long: tag &lt;&lt; 32 | chunk id, id -1 = empty)
 *  384  USED_CHUNKS (long)
 *  512  META_LOCK (long lock word of the holder: generation &lt;&lt; 32 | slot + 1; 0 = free)
 *  640  EXCLUSIVE (long lock word of a process holding allocators out; 0 = none)
 *  768  STATE (int: 0 clean, 1 open)  772 (zero)  776 RECOVERIES (long)
 *  896  RESERVED (long: RESERVED_KNOWN | bytes of the data region whose blocks are reserved)
 * 4096  OWNER TABLE: MAX_OWNERS slots of OWNER_SLOT_SIZE bytes
 *         +0 OWNER_WORD (long identity: start ticks &lt;&lt; 32 | pid, 0 = free)
 *         +8 BUSY (int: threads inside a lock-free free-list operation)
 *        +12 GENERATION (int: claims of this slot so far)
 *        +16 ATTACHED_MILLIS (long)
 *        +24 LIVENESS RECORD (32 bytes, {@link LivenessLayout})
 * 8192  end of header
 * </pre>
 *
 * <p>The geometry fields [0, 88) never change after creation and are covered by
 * {@link #GEOMETRY_CRC_OFFSET} (CRC-32C). Every mutable word is on its own 128-byte line so that
 * processes updating different words do not share a cache line.
 */
public final class PoolHeaderLayout {

    /** "FERRPOOL" in ASCII, read as a little-endian long. */
    public static final long MAGIC = 0x4C4F4F5052524546L;
    /** The format version this code writes and reads. */
    public static final int VERSION = 1;
    /** Bytes of the header, including the owner table. */
    public static final int HEADER_SIZE = 8192;

    /** long: {@link #MAGIC}. */
    public static final int MAGIC_OFFSET = 0;
    /** int: {@link #VERSION}. */
    public static final int VERSION_OFFSET = 8;
    /** int: {@link #HEADER_SIZE}. */
    public static final int HEADER_SIZE_OFFSET = 12;
    /** long: bytes per chunk, a power of two. */
    public static final int CHUNK_SIZE_OFFSET = 16;
    /** long: bytes of capacity, a multiple of the chunk size. */
    public static final int CAPACITY_OFFSET = 24;
    /** long: bytes per extent, a power of two. */
    public static final int EXTENT_SIZE_OFFSET = 32;
    /** int: capacity / chunk size. */
    public static final int TOTAL_CHUNKS_OFFSET = 40;
    /** int: {@link #MAX_OWNERS}. */
    public static final int MAX_OWNERS_OFFSET = 44;
    /** int: directory slots. */
    public static final int DIRECTORY_SLOTS_OFFSET = 48;
    /** int: {@link DirectoryLayout#SLOT_SIZE}. */
    public static final int DIRECTORY_SLOT_SIZE_OFFSET = 52;
    /** long: file offset of the directory. */
    public static final int DIRECTORY_OFFSET_OFFSET = 56;
    /** long: file offset of the chunk table. */
    public static final int CHUNK_TABLE_OFFSET_OFFSET = 64;
    /** long: file offset of extent 0. */
    public static final int DATA_OFFSET_OFFSET = 72;
    /** long: creation time, milliseconds since the epoch. */
    public static final int CREATED_MILLIS_OFFSET = 80;
    /** int: CRC-32C of bytes [0, {@value #GEOMETRY_CRC_OFFSET}). */
    public static final int GEOMETRY_CRC_OFFSET = 88;

    /** int: extents obtained so far; grows under the meta lock. */
    public static final int OBTAINED_EXTENTS_OFFSET = 128;
    /** long: head of the free-chunk stack: {@code tag << 32 | (id & 0xFFFFFFFF)}, id -1 when empty. */
    public static final int FREE_HEAD_OFFSET = 256;
    /** long: chunks owned by segments or in flight. */
    public static final int USED_CHUNKS_OFFSET = 384;
    /**
     * long: lock word of the meta lock's holder, {@code generation << 32 | (slot + 1)} with the
     * generation of its owner slot, 0 when free. The generation tells a later holder of the same
     * slot from the one that took the lock.
     */
    public static final int META_LOCK_OFFSET = 512;
    /** long: lock word (as {@link #META_LOCK_OFFSET}) of a process that holds allocators out, 0 when none. */
    public static final int EXCLUSIVE_OFFSET = 640;
    /** int: {@link #STATE_CLEAN} or {@link #STATE_OPEN}. */
    public static final int STATE_OFFSET = 768;
    /** long: recoveries run on this pool, for information. */
    public static final int RECOVERIES_OFFSET = 776;
    /**
     * long: {@link #RESERVED_KNOWN} | how many bytes from the start of the data region have their
     * file-system blocks reserved (chunks below it can be written without the file system running
     * out); grows under the meta lock as chunks are first handed out.
     */
    public static final int RESERVED_OFFSET = 896;
    /** High bit of {@link #RESERVED_OFFSET}: set by every pool that keeps the count (0 = a file made before). */
    public static final long RESERVED_KNOWN = 1L << 63;

    /** No process has the pool open, and the last one closed it cleanly. */
    public static final int STATE_CLEAN = 0;
    /** Some process has (or had, if it crashed) the pool open. */
    public static final int STATE_OPEN = 1;

    /** Processes that can have a pool open at once; also the bits of a directory slot's open mask. */
    public static final int MAX_OWNERS = 64;
    /** File offset of owner slot 0. */
    public static final int OWNER_TABLE_OFFSET = 4096;
    /** Bytes per owner slot: one cache line, so processes' busy flags do not share one. */
    public static final int OWNER_SLOT_SIZE = 64;
    /** long within a slot: the holder's identity word ({@code Liveness}), 0 when the slot is free. */
    public static final int OWNER_WORD = 0;
    /** int within a slot: how many of the holder's threads are inside a lock-free free-list operation. */
    public static final int OWNER_BUSY = 8;
    /** int within a slot: how many times the slot has been claimed; part of its lock words. */
    public static final int OWNER_GENERATION = 12;
    /** long within a slot: when the process attached, ms since the epoch. */
    public static final int OWNER_ATTACHED_MILLIS = 16;

    private PoolHeaderLayout() {
    }

    /**
     * @param slot owner slot index in [0, {@value #MAX_OWNERS})
     * @return the file offset of that slot
     */
    public static int ownerSlotOffset(int slot) {
        return OWNER_TABLE_OFFSET + slot * OWNER_SLOT_SIZE;
    }
}
