package dev.ferrite.kv;

/**
 * Byte layout of a map's header segment, the named segment that carries the map's name in its
 * pool. Little-endian. Mirrored in {@code docs/FORMAT.md} ("Map, version 4").
 *
 * <pre>
 *   0        8         12         16          20         24           28        32
 *   +--------+---------+----------+-----------+----------+------------+---------+
 *   | MAGIC  | VERSION | SECTIONS | CLIENTS   | MAX_KEY  | MAX_VALUE  | CRC     |
 *   +--------+---------+----------+-----------+----------+------------+---------+
 *  32                40                48                  56                 88                 120          124          128
 *   | CREATED_MILLIS  | KEY_CODEC_HASH  | VALUE_CODEC_HASH  | KEY_CODEC_NAME   | VALUE_CODEC_NAME  | CODECS_CRC | LOAD_LIMIT |
 *  128: CLIENTS client slots of CLIENT_SIZE bytes
 *  SECTIONS_OFFSET: SECTIONS section lines of LINE_SIZE bytes
 * </pre>
 *
 * <p>A creator writes everything, then the CRC, then the magic: an opener that sees the magic sees
 * a complete header. Bytes [40, 124) record the codecs' identities ({@link MapCodecs}); a header
 * whose codec hashes are both 0 records none (a map made before they were recorded). The first
 * 128 bytes never change afterwards; the client slots and section lines are updated with volatile
 * stores and CAS.
 */
final class MapLayout {

    /** long: "FERRMAP1" in ASCII, little-endian. */
    static final int MAGIC = 0;
    /** The magic value. */
    static final long MAGIC_VALUE = 0x3150414D52524546L;
    /** int: format version. */
    static final int VERSION = 8;
    /** The version this code writes, and reads. */
    static final int VERSION_VALUE = 4;
    /**
     * The oldest version this code reads and writes too: the same format without reaches (bucket
     * word bits 2-7 are 0 and a probe goes on to an empty bucket, {@link BucketLayout#REACH_BITS}).
     * A version-4 map is refused by a build that writes version 3, which would not keep reaches.
     */
    static final int VERSION_WITHOUT_REACH = 3;
    /** int: number of sections, a power of two in [1, {@value #MAX_SECTIONS}]. */
    static final int SECTIONS = 12;
    /** int: number of client slots, {@value #CLIENT_COUNT}. */
    static final int CLIENTS = 16;
    /** int: the longest key in bytes. */
    static final int MAX_KEY = 20;
    /** int: the longest value in bytes. */
    static final int MAX_VALUE = 24;
    /** int: CRC-32C of bytes [8, 28) and [32, 40) (the magic, written last, is not covered). */
    static final int CRC = 28;
    /** long: creation time, ms since the epoch. */
    static final int CREATED_MILLIS = 32;
    /** long: XXH64 (seed 0) of the key codec's identity in UTF-8; 0 if not recorded. */
    static final int KEY_CODEC_HASH = 40;
    /** long: XXH64 (seed 0) of the value codec's identity in UTF-8; 0 if not recorded. */
    static final int VALUE_CODEC_HASH = 48;
    /** The key codec's identity in UTF-8, its first {@value #CODEC_NAME_BYTES} bytes, zero-padded: for messages. */
    static final int KEY_CODEC_NAME = 56;
    /** The value codec's identity, as {@link #KEY_CODEC_NAME}. */
    static final int VALUE_CODEC_NAME = 88;
    /** Bytes of each codec name field. */
    static final int CODEC_NAME_BYTES = 32;
    /** int: CRC-32C of bytes [40, 120), or 0 with all of them when no codec is recorded. */
    static final int CODECS_CRC = 120;
    /**
     * int: the sections' load limit (buckets in use, entries and tombstones, over buckets) in
     * thousandths, from {@value #MIN_LOAD_LIMIT} to {@value #MAX_LOAD_LIMIT}: a new key that would
     * fill an empty bucket past it rebuilds its section first. 0 in a map made before it was
     * recorded, read as {@value #UNRECORDED_LOAD_LIMIT}. Covered by the header CRC when not 0.
     */
    static final int LOAD_LIMIT = 124;
    /** The unit of {@link #LOAD_LIMIT}: thousandths of a load. */
    static final int LOAD_SCALE = 1000;
    /** The load limit of a map made before {@link #LOAD_LIMIT} was recorded, in thousandths. */
    static final int UNRECORDED_LOAD_LIMIT = 800;
    /** The load limit a new map gets unless its builder sets one, in thousandths. */
    static final int DEFAULT_LOAD_LIMIT = 850;
    /** The lowest load limit, in thousandths. */
    static final int MIN_LOAD_LIMIT = 500;
    /** The highest load limit, in thousandths: beyond it a miss probes tens of buckets. */
    static final int MAX_LOAD_LIMIT = 900;

    /**
     * @param entries     entries to hold
     * @param thousandths the highest load they may make, in thousandths, at least 1
     * @return the fewest buckets that hold them at that load or below
     */
    static long bucketsForLoad(long entries, int thousandths) {
        return (entries * LOAD_SCALE + thousandths - 1) / thousandths;
    }

    /** Offset of client slot 0. */
    static final int CLIENTS_OFFSET = 128;
    /** Client slots: the most processes (writable opens) that can have the map open at once. */
    static final int CLIENT_COUNT = 64;
    /** Bytes per client slot. */
    static final int CLIENT_SIZE = 64;
    /** long, in a client slot: identity word of the holding process, 0 when free. */
    static final int CLIENT_IDENTITY = 0;
    /** long, in a client slot: incremented each time the slot is taken. */
    static final int CLIENT_GENERATION = 8;
    /** In a client slot: the holder's liveness record (shared {@code LivenessLayout}, 32 bytes). */
    static final int CLIENT_LIVENESS = 24;

    /** Offset of section line 0. */
    static final int SECTIONS_OFFSET = CLIENTS_OFFSET + CLIENT_COUNT * CLIENT_SIZE;
    /**
     * Bytes per section line: two cache lines, the generation alone on the first (every read loads
     * it; only a rebuild writes it), the writers' fields on the second.
     */
    static final int LINE_SIZE = 128;
    /** long, in a section line: generation of the section's current data segment, at least 1. */
    static final int LINE_GENERATION = 0;
    /** long, in a section line: the lock word, 0 when free, else {@code generation << 8 | (slot + 1)} of the holder's client slot. */
    static final int LINE_LOCK = 64;
    /** long, in a section line: live entries in the section. */
    static final int LINE_COUNT = 72;
    /** long, in a section line: times the section was taken over from a dead writer and repaired. */
    static final int LINE_REPAIRS = 80;
    /** long, in a section line: damaged entries dropped by repairs and rebuilds. */
    static final int LINE_DROPPED = 88;

    /** Most sections a map may have. */
    static final int MAX_SECTIONS = 1 << 16;

    private MapLayout() {
    }

    /** @return bytes of a header for that many sections */
    static long headerSize(int sections) {
        return SECTIONS_OFFSET + (long) sections * LINE_SIZE;
    }

    /** @return offset of a client slot */
    static long client(int slot) {
        return CLIENTS_OFFSET + (long) slot * CLIENT_SIZE;
    }

    /** @return offset of a section line */
    static long line(int section) {
        return SECTIONS_OFFSET + (long) section * LINE_SIZE;
    }

    /** @return the lock word a client slot's holder writes */
    static long lockValue(int slot, long generation) {
        return generation << 8 | (slot + 1);
    }

    /** @return the client slot a lock word names, or -1 if it names none */
    static int lockSlot(long lock) {
        return (int) (lock & 0xFF) - 1;
    }

    /** @return the client generation a lock word names */
    static long lockGeneration(long lock) {
        return lock >>> 8;
    }

    /**
     * @param map     the map's name in its pool
     * @param section the section index
     * @param generation the data segment's generation
     * @return the name of that section's data segment
     */
    static String sectionName(String map, int section, long generation) {
        return map + "." + section + "." + generation;
    }
}
