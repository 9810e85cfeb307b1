package dev.ferrite.kv;

/**
 * Byte layout of a sorted map's header segment, the named segment that carries the map's name in
 * its pool. Little-endian. Mirrored in {@code docs/FORMAT.md} ("Sorted map, version 1").
 *
 * <pre>
 *   0        8         12          16        20         24              28     32
 *   +--------+---------+-----------+---------+----------+---------------+------+
 *   | MAGIC  | VERSION | PAGE_SIZE | CLIENTS | MAX_KEY  | EXTENT_PAGES  | CRC  |
 *   +--------+---------+-----------+---------+----------+---------------+------+
 *  32: CREATED_MILLIS (long); 40..124: the codecs' identities, laid out as in the map header
 *  128: CLIENTS client slots of 64 bytes, laid out as in the map header
 *  ROOT: the root word, alone on its line; LOCK and the writer's fields on the next
 * </pre>
 *
 * <p>A creator writes everything, then the CRC, then the magic. The fields before
 * {@link #CREATED_MILLIS}+8 never change afterwards; the rest is written with volatile stores and
 * CAS. Pages live in extents, named segments {@code <name>.x<e>}: extent {@code e} holds
 * {@link #extentPages}{@code (e)} pages; page numbers start at 1 and run through the extents in
 * order.
 */
final class SortedLayout {

    /** long: "FERRSRT1" in ASCII, little-endian. */
    static final int MAGIC = 0;
    /** The magic value. */
    static final long MAGIC_VALUE = 0x3154525352524546L;
    /** int: format version. */
    static final int VERSION = 8;
    /** The version this code writes and reads. */
    static final int VERSION_VALUE = 1;
    /** int: bytes per page, a power of two in [{@value #MIN_PAGE_SIZE}, {@value #MAX_PAGE_SIZE}]. */
    static final int PAGE_SIZE = 12;
    /** int: number of client slots, {@link MapLayout#CLIENT_COUNT}. */
    static final int CLIENTS = 16;
    /** int: the longest key in bytes, {@link PageLayout#maxKey(int)} of the page size. */
    static final int MAX_KEY = 20;
    /** int: pages of extent 0, a power of two ({@link #firstExtentPages}); each next extent doubles, up to {@link #MAX_EXTENT_BYTES}. */
    static final int EXTENT_PAGES = 24;
    /** int: CRC-32C of bytes [8, 28) and [32, 40). */
    static final int CRC = 28;
    /** long: creation time, ms since the epoch. */
    static final int CREATED_MILLIS = 32;

    /** long: the root word, {@code page << 32 | stamp} of the root page, 0 when the map is empty. */
    static final int ROOT = MapLayout.CLIENTS_OFFSET + MapLayout.CLIENT_COUNT * MapLayout.CLIENT_SIZE;
    /** long: the writer lock, 0 when free, else the holder's client lock word ({@link MapLayout#lockValue}). */
    static final int LOCK = ROOT + 128;
    /** int: first page of the free list, 0 when empty. */
    static final int FREE_HEAD = LOCK + 8;
    /** int: the next page number never used; pages below it are in the tree, free or lost by a dead writer. */
    static final int HIGH_WATER = LOCK + 12;
    /** int: extents made. */
    static final int EXTENTS = LOCK + 16;
    /** long: times a dead writer's lock was taken over and the free list rebuilt. */
    static final int REPAIRS = LOCK + 24;
    /** long: changes committed (root words published). */
    static final int COMMITS = LOCK + 32;
    /** Bytes of the header. */
    static final int HEADER_SIZE = LOCK + 128;

    /** Smallest page size. */
    static final int MIN_PAGE_SIZE = 1 << 12;
    /** Largest page size. */
    static final int MAX_PAGE_SIZE = 1 << 16;
    /** Most bytes of one extent: extents double up to this size, then stay at it. */
    static final long MAX_EXTENT_BYTES = 1L << 30;
    private static final int MAX_EXTENT_SHIFT = Long.numberOfTrailingZeros(MAX_EXTENT_BYTES);

    private SortedLayout() {
    }

    /** @return pages of extent 0 of a new map: one chunk of its pool (at least one page, at most 1 GiB) */
    static int firstExtentPages(long chunkSize, int pageSize) {
        return (int) Math.max(1, Math.min(chunkSize, MAX_EXTENT_BYTES) / pageSize);
    }

    /** @return the name of extent {@code e} of a map */
    static String extentName(String map, int e) {
        return map + ".x" + e;
    }

    /** @return pages extent {@code e} holds, for a first extent of {@code first} pages and pages of {@code pageSize} */
    static long extentPages(int e, long first, int pageSize) {
        return first << Math.min(e, doublings(first, pageSize));
    }

    /** @return the index (from 0) of the first page of extent {@code e} */
    static long extentStart(int e, long first, int pageSize) {
        int doublings = doublings(first, pageSize);
        if (e <= doublings) {
            return first * ((1L << e) - 1);
        }
        return first * ((1L << doublings) - 1) + ((long) (e - doublings) * first << doublings);
    }

    /** @return the extent holding the page of index {@code index} (page number - 1), by shifts alone */
    static int extentOf(long index, long first, int pageSize) {
        int doublings = doublings(first, pageSize);
        int firstShift = Long.numberOfTrailingZeros(first);
        long doubled = first * ((1L << doublings) - 1);
        if (index < doubled) {
            return 63 - Long.numberOfLeadingZeros((index >>> firstShift) + 1);
        }
        return doublings + (int) ((index - doubled) >>> (firstShift + doublings));
    }

    /**
     * @return how many times the extents double before they reach {@link #MAX_EXTENT_BYTES}:
     *         extent {@code e} holds {@code first << min(e, doublings)} pages ({@code first} and
     *         {@code pageSize} are powers of two, as the header promises)
     */
    private static int doublings(long first, int pageSize) {
        return Math.max(0, MAX_EXTENT_SHIFT - Integer.numberOfTrailingZeros(pageSize) - Long.numberOfTrailingZeros(first));
    }

    /** @return the root word for a page and its stamp */
    static long ref(int page, int stamp) {
        return (long) page << 32 | (stamp & 0xFFFF_FFFFL);
    }

    /** @return the page a reference names */
    static int refPage(long ref) {
        return (int) (ref >>> 32);
    }

    /** @return the stamp a reference expects */
    static int refStamp(long ref) {
        return (int) ref;
    }
}
