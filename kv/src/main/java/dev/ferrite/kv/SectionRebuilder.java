package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLong;

import static dev.ferrite.kv.MapLayout.LINE_COUNT;
import static dev.ferrite.kv.MapLayout.LINE_DROPPED;
import static dev.ferrite.kv.MapLayout.LINE_GENERATION;
import static dev.ferrite.kv.SectionLayout.OFFSET_MASK;
import static dev.ferrite.kv.SectionLayout.TOMBSTONE;

/**
 * Rebuilds a section: its live, intact entries copied into a new data segment of the next
 * generation, sized for them plus room (growth, compaction, repair, clear), then switched to with
 * one store of the generation. For the holder of the section's lock.
 */
final class SectionRebuilder {

    private static final Logger LOG = LoggerFactory.getLogger(SectionRebuilder.class);

    private final MapStore store;
    private final ChunkPool pool;
    private final Segment header;
    private final SectionViews views;
    private final AtomicLong rebuilds = new AtomicLong();

    SectionRebuilder(MapStore store, SectionViews views) {
        this.store = store;
        this.pool = store.pool;
        this.header = store.header;
        this.views = views;
    }

    /** @return sections this process rebuilt since it opened the map */
    long count() {
        return rebuilds.get();
    }

    /**
     * Writes a section's live entries into a new data segment sized for them plus room, and
     * switches the section to it with one store of its generation; readers of the old generation
     * finish on it (its chunks go back to the pool when the last handle on it closes). Entries
     * whose checksum fails are dropped and counted. The caller holds the section's lock.
     *
     * @param section   the section
     * @param extra     heap bytes the caller is about to append
     * @param repairing whether this rebuild repairs a dead writer's section (for the log)
     * @throws PoolExhaustedException if the pool cannot hold the new segment; nothing changed then
     */
    void rebuild(int section, long extra, boolean repairing) {
        rebuild(section, extra, repairing, false);
    }

    /** As {@link #rebuild(int, long, boolean)}; {@code dropAll} keeps no entry (clear). */
    void rebuild(int section, long extra, boolean repairing, boolean dropAll) {
        SectionView old = views.current(section);
        Segment os = old.segment;
        // The slot words give the live entries; marked in a bitmap of the heap's 8-byte words, they
        // are read front to back, not at random, and a second slot word naming an entry shows.
        long heapWords = (old.heapEnd - old.heapStart) >>> 3;
        if ((heapWords + 63) >>> 6 > Integer.MAX_VALUE - 8) {
            throw new FerriteException("map '" + store.name + "' section " + section + ": a heap of "
                    + (old.heapEnd - old.heapStart) + " bytes is over the 1 TiB a section can rebuild");
        }
        long[] marks = new long[(int) ((heapWords + 63) >>> 6)];
        int found = 0;
        long dropped = 0;
        for (int i = 0; i < old.slots && !dropAll; i++) {
            long w = os.getLong(SectionLayout.slot(i));
            if (w == 0 || w == TOMBSTONE) {
                continue;
            }
            long off = w & OFFSET_MASK;
            if (!old.entryFits(off)) {
                dropped++; // points outside the heap
                continue;
            }
            long bit = (off - old.heapStart) >>> 3;
            long mask = 1L << bit; // shifts by bit mod 64
            if ((marks[(int) (bit >>> 6)] & mask) != 0) {
                dropped++; // a second slot word naming the same entry
                continue;
            }
            marks[(int) (bit >>> 6)] |= mask;
            found++;
        }
        long[] keep = new long[found];
        int live = 0;
        long bytes = 0;
        for (int word = 0; word < marks.length; word++) {
            for (long m = marks[word]; m != 0; m &= m - 1) {
                long off = old.heapStart + (((long) word << 6) + Long.numberOfTrailingZeros(m)) * 8;
                int k = old.entryField(off, EntryLayout.KEY_LENGTH);
                int vl = old.entryField(off, EntryLayout.VALUE_LENGTH);
                if (!old.checksumMatches(off, k, vl)) {
                    dropped++; // damaged
                    continue;
                }
                keep[live++] = off;
                bytes += EntryLayout.size(k, vl);
            }
        }
        int slots = SectionLayout.MIN_SLOTS;
        while ((long) slots < (live + 1L) * 2 && slots < SectionLayout.MAX_SLOTS) {
            slots <<= 1;
        }
        long heap = bytes + extra + Math.max(Math.max(bytes / 2, extra), 4096);
        long generation = old.generation + 1;
        String newName = MapLayout.sectionName(store.name, section, generation);
        pool.delete(newName); // left by a rebuild that died before its switch
        pool.delete(MapLayout.sectionName(store.name, section, old.generation - 1)); // left by one that died after it
        Segment ns = pool.allocate(newName, SectionView.segmentSize(pool, slots, heap));
        SectionView nv;
        try {
            ns.fill(0, SectionLayout.TABLE + 8L * slots, (byte) 0);
            long top = SectionLayout.TABLE + 8L * slots;
            int mask = slots - 1;
            for (int i = 0; i < live; i++) {
                long off = keep[i];
                int k = os.getInt(off + EntryLayout.KEY_LENGTH);
                int vl = os.getInt(off + EntryLayout.VALUE_LENGTH);
                long size = EntryLayout.size(k, vl);
                os.copyTo(off, ns, top, size);
                long h = os.hash64(off + EntryLayout.KEY, k);
                int idx = (int) h & mask;
                while (ns.getLong(SectionLayout.slot(idx)) != 0) {
                    idx = (idx + 1) & mask;
                }
                ns.putLong(SectionLayout.slot(idx), SectionLayout.word(h, top));
                top += size;
            }
            SectionView.writeHeader(ns, section, generation, slots, top, 0, live);
            nv = SectionView.open(ns, section, generation, store.maxKey, store.maxValue);
        } catch (RuntimeException e) {
            ns.close();
            pool.delete(newName);
            throw e;
        }
        long line = MapLayout.line(section);
        header.putLongVolatile(line + LINE_GENERATION, generation);
        header.putLongVolatile(line + LINE_COUNT, live);
        if (dropped > 0) {
            header.putLongVolatile(line + LINE_DROPPED, header.getLong(line + LINE_DROPPED) + dropped);
            LOG.warn("map '{}' section {}: {} damaged entries dropped by a {}", store.name, section, dropped,
                    repairing ? "repair" : "rebuild");
        }
        views.replace(section, nv);
        pool.delete(old.segment.name());
        rebuilds.incrementAndGet();
    }
}
