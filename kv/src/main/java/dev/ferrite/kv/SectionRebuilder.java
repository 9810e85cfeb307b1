package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.Segment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import static dev.ferrite.kv.MapLayout.LINE_COUNT;
import static dev.ferrite.kv.MapLayout.LINE_DROPPED;
import static dev.ferrite.kv.MapLayout.LINE_GENERATION;

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
        UndoRecord.settle(old); // a change a dead writer cut short goes back first
        int[] keep = new int[Math.max(16, Math.min(old.buckets, os.getInt(SectionLayout.USED)))];
        int live = 0;
        long dropped = 0;
        // Two buckets naming one outside entry are damage: marked in a bitmap of the heap's 8-byte words.
        long heapWords = (old.heapEnd - old.heapStart) >>> 3;
        if ((heapWords + 63) >>> 6 > Integer.MAX_VALUE - 8) {
            throw new FerriteException("map '" + store.name + "' section " + section + ": a heap of "
                    + (old.heapEnd - old.heapStart) + " bytes is over the 1 TiB a section can rebuild");
        }
        long[] marks = null;
        EntrySizes sizes = new EntrySizes();
        for (int i = 0; i < old.buckets && !dropAll; i++) {
            long b = old.bucket(i);
            long w = os.getLong(b);
            int kind = BucketLayout.kind(w);
            if (kind == BucketLayout.EMPTY || kind == BucketLayout.TOMBSTONE) {
                continue;
            }
            if ((w & BucketLayout.ODD) != 0 || !old.intact(b, w)) {
                dropped++; // damaged, or left being changed with no record to put it back
                continue;
            }
            if (kind == BucketLayout.OUTSIDE) {
                long off = os.getLong(b + BucketLayout.ENTRY);
                if (marks == null) {
                    marks = new long[(int) ((heapWords + 63) >>> 6)];
                }
                long bit = (off - old.heapStart) >>> 3;
                if ((marks[(int) (bit >>> 6)] & 1L << bit) != 0) {
                    dropped++;
                    continue;
                }
                marks[(int) (bit >>> 6)] |= 1L << bit;
                sizes.add(os.getInt(off + EntryLayout.KEY_LENGTH), os.getInt(off + EntryLayout.VALUE_LENGTH));
            } else {
                sizes.add(BucketLayout.keyLength(w), BucketLayout.valueLength(w));
            }
            if (live == keep.length) {
                keep = Arrays.copyOf(keep, keep.length * 2);
            }
            keep[live++] = i;
        }
        int bucketSize = sizes.bucketSize(old.bucketSize);
        long outsideBytes = sizes.outsideBytes(bucketSize);
        long heap = outsideBytes + extra + Math.max(Math.max(outsideBytes / 2, extra), 4096);
        int buckets = SectionView.bucketsFilling(pool, bucketsFor(live + 1L), bucketSize, heap);
        long generation = old.generation + 1;
        String newName = MapLayout.sectionName(store.name, section, generation);
        pool.delete(newName); // left by a rebuild that died before its switch
        pool.delete(MapLayout.sectionName(store.name, section, old.generation - 1)); // left by one that died after it
        Segment ns = pool.allocate(newName, SectionView.segmentSize(pool, buckets, bucketSize, heap));
        SectionView nv;
        int kept = 0;
        try {
            long top = SectionLayout.bucketAt(buckets, bucketSize);
            ns.fill(0, top, (byte) 0);
            for (int i = 0; i < live; i++) {
                long b = old.bucket(keep[i]);
                long w = os.getLong(b);
                boolean wasInline = BucketLayout.kind(w) == BucketLayout.INLINE;
                long off = wasInline ? -1 : os.getLong(b + BucketLayout.ENTRY);
                long keyAt = wasInline ? b + BucketLayout.KEY : off + EntryLayout.KEY;
                int k = wasInline ? BucketLayout.keyLength(w) : os.getInt(off + EntryLayout.KEY_LENGTH);
                int vl = wasInline ? BucketLayout.valueLength(w) : os.getInt(off + EntryLayout.VALUE_LENGTH);
                long h = os.hash64(keyAt, k);
                long nb = place(ns, buckets, bucketSize, h, os, keyAt, k);
                if (nb < 0) {
                    dropped++; // a second bucket holding the same key
                    continue;
                }
                if (BucketLayout.fitsInline(bucketSize, k, vl)) {
                    if (wasInline) {
                        os.copyTo(b + BucketLayout.CHECKSUM, ns, nb + BucketLayout.CHECKSUM, 4L + k + vl);
                    } else { // an entry the smaller buckets before could not hold
                        os.copyTo(keyAt, ns, nb + BucketLayout.KEY, (long) k + vl);
                        ns.putInt(nb + BucketLayout.CHECKSUM, SectionView.inlineChecksum(ns, nb, k, vl));
                    }
                    ns.putLong(nb, BucketLayout.word(0, h, BucketLayout.INLINE, k, vl));
                } else {
                    long size = EntryLayout.size(k, vl);
                    if (wasInline) { // an entry the smaller buckets now cannot hold
                        ns.putInt(top + EntryLayout.KEY_LENGTH, k);
                        ns.putInt(top + EntryLayout.VALUE_LENGTH, vl);
                        ns.putInt(top + EntryLayout.RESERVED, 0);
                        os.copyTo(keyAt, ns, top + EntryLayout.KEY, (long) k + vl);
                        SectionView.sealEntry(ns, top, k, vl);
                    } else {
                        os.copyTo(off, ns, top, size);
                    }
                    ns.putLong(nb + BucketLayout.ENTRY, top);
                    ns.putLong(nb, BucketLayout.word(0, h, BucketLayout.OUTSIDE, 0, 0));
                    top += size;
                }
                if (store.reaches) {
                    SectionView.reachTo(ns, buckets, bucketSize, SectionLayout.home(h, buckets), nb);
                }
                kept++;
            }
            SectionView.writeHeader(ns, section, generation, buckets, bucketSize, top, 0, kept);
            nv = SectionView.open(ns, section, generation, store.maxKey, store.maxValue, store.reaches);
        } catch (RuntimeException e) {
            ns.close();
            pool.delete(newName);
            throw e;
        }
        long line = MapLayout.line(section);
        header.putLongVolatile(line + LINE_GENERATION, generation);
        header.putLongVolatile(line + LINE_COUNT, kept);
        if (dropped > 0) {
            header.putLongVolatile(line + LINE_DROPPED, header.getLong(line + LINE_DROPPED) + dropped);
            LOG.warn("map '{}' section {}: {} damaged entries dropped by a {}", store.name, section, dropped,
                    repairing ? "repair" : "rebuild");
        }
        views.replace(section, nv);
        pool.delete(old.segment.name());
        rebuilds.incrementAndGet();
    }

    /**
     * @return buckets of a rebuilt table for that many entries: their load right after is 5/8 of
     *         the load limit, so a section grows by 1.6x when full
     */
    private int bucketsFor(long entries) {
        long buckets = MapLayout.bucketsForLoad(entries, store.loadLimit * 5 / 8);
        return (int) Math.max(SectionLayout.MIN_BUCKETS, Math.min(SectionLayout.MAX_BUCKETS, buckets));
    }

    /**
     * Finds the bucket of a new table a key goes to: the first empty one of its probe run.
     *
     * @return its offset, or -1 if the run holds that key already
     */
    private static long place(Segment ns, int buckets, int bucketSize, long h, Segment src, long keyAt, int k) {
        int idx = SectionLayout.home(h, buckets);
        long tag = BucketLayout.tag(h);
        while (true) {
            long nb = SectionLayout.bucketAt(idx, bucketSize);
            long w = ns.getLong(nb);
            if (w == 0) {
                return nb;
            }
            if (BucketLayout.wordTag(w) == tag && sameKey(ns, nb, w, src, keyAt, k)) {
                return -1;
            }
            idx = idx + 1 == buckets ? 0 : idx + 1;
        }
    }

    /** @return whether a bucket of the new table (filled by this rebuild: sound) holds a key */
    private static boolean sameKey(Segment ns, long nb, long w, Segment src, long keyAt, int k) {
        long at;
        if (BucketLayout.kind(w) == BucketLayout.INLINE) {
            if (BucketLayout.keyLength(w) != k) {
                return false;
            }
            at = nb + BucketLayout.KEY;
        } else {
            long off = ns.getLong(nb + BucketLayout.ENTRY);
            if (ns.getInt(off + EntryLayout.KEY_LENGTH) != k) {
                return false;
            }
            at = off + EntryLayout.KEY;
        }
        for (int i = 0; i < k; i++) {
            if (ns.getByte(at + i) != src.getByte(keyAt + i)) {
                return false;
            }
        }
        return true;
    }
}
