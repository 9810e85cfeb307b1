package dev.ferrite.kv;

/**
 * A snapshot of a map's size, memory and repair history, from {@link FerriteMap#stats()}.
 *
 * @param entries        live entries
 * @param sections       sections of the index
 * @param loadFactor     the load at which a section grows, recorded when the map was made
 *                       ({@link FerriteMapBuilder#loadFactor})
 * @param segmentBytes   bytes of pool memory the map's segments hold (header and sections)
 * @param indexBytes     bytes of the map's header and of the sections' headers and bucket tables
 *                       (which hold the entries that fit their buckets)
 * @param usedBytes      heap bytes holding entries too long for their buckets (live or dead) in the current sections
 * @param garbageBytes   heap bytes of removed or overwritten entries (holes), taken by the next new entries of their
 *                       sizes or reclaimed by the next rebuild of their section
 * @param rebuilds       sections this process rebuilt (grown or compacted) since it opened the map
 * @param repairs        times any process took a section over from a dead writer and repaired it, over the map's life
 * @param droppedEntries damaged entries repairs and rebuilds dropped, over the map's life
 * @param damagedReads   reads in this process that met a damaged entry (lengths out of range, or a checksum that did
 *                       not match where reads check it), and skipped it
 * @param repairedAtOpen sections this open found locked by dead processes and repaired
 * @param verifiedAtOpen whether this open found that processes had died with the map open, and so
 *                       checked every entry against its checksum ({@link FerriteMap#verify()})
 */
public record MapStats(long entries, int sections, double loadFactor, long segmentBytes, long indexBytes, long usedBytes,
                       long garbageBytes, long rebuilds, long repairs, long droppedEntries, long damagedReads,
                       int repairedAtOpen, boolean verifiedAtOpen) {

    /**
     * @return bytes the map has written: its index and its entries' heaps up to their tops. This is
     *         what it occupies in RAM and on disk; the rest of {@link #segmentBytes()} is reserved
     *         for growth and never touched (sparse in a file)
     */
    public long writtenBytes() {
        return indexBytes + usedBytes;
    }
}
