package dev.ferrite.kv.server;

/**
 * The counters every process that opens a data directory shares ({@code docs/FORMAT.md}, "KV
 * server counters"): a named segment, {@value #NAME}, of the collection store's pool, made by the
 * server. Each counter is a little-endian u64, changed by atomic add, read by volatile load.
 *
 * <pre>
 *   0  manifest generation: one more after every change of the manifest (a database made,
 *      FLUSHDB, FLUSHALL, SWAPDB), by whichever process made it; a process holding a database
 *      reads it before each command, and reads the manifest again when it moved
 *   8  expiry writes of in-process databases ({@link KvDatabase}): one more after each write
 *      that sets an expiry, so the server's expiry reaper, resting, wakes
 *  16  reserved (zero) up to {@value #SIZE} bytes
 * </pre>
 */
final class CountersLayout {

    /** The segment's name in the collection store's pool. */
    static final String NAME = "counters";
    /** Bytes of the segment. */
    static final int SIZE = 64;
    /** Offset of the manifest generation. */
    static final int MANIFEST_GENERATION = 0;
    /** Offset of the in-process databases' expiry writes. */
    static final int EXPIRY_WRITES = 8;

    private CountersLayout() {
    }
}
