package dev.ferrite.kv;

import dev.ferrite.PoolExhaustedException;
import dev.ferrite.Segment;
import dev.ferrite.internal.pool.Backoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicReferenceArray;

import static dev.ferrite.kv.MapLayout.LINE_COUNT;
import static dev.ferrite.kv.MapLayout.LINE_LOCK;
import static dev.ferrite.kv.MapLayout.LINE_REPAIRS;
import static dev.ferrite.kv.SectionLayout.USED;

/**
 * The sections' write locks: a lock word ({@link LockWords}) in each section's line, taken by a
 * thread that first took the section's owner slot in this handle (so the lock word names this
 * map's client slot only while that thread holds it). A dead holder's lock is taken over and the
 * section repaired (an in-place update it cut short undone, then a rebuild) before the new holder
 * writes. A lock is not reentrant: a thread that asks again for a lock it holds gets an
 * {@code IllegalStateException}. Thread-safe.
 */
final class SectionLocks {

    private static final Logger LOG = LoggerFactory.getLogger(SectionLocks.class);

    /** A wait for a section lock held by another: spins, then yields, then short parks. */
    private static final int SPINS = 100;
    private static final int YIELDS = 100;
    private static final long PARK_NANOS = 20_000;

    private final MapStore store;
    private final Segment header;
    private final SectionViews views;
    private final LockWords words;
    /**
     * The thread of this map handle that holds each section's lock or is taking it, or null; taken
     * by CAS before the lock word, given back after it.
     */
    private final AtomicReferenceArray<Thread> lockOwners;

    SectionLocks(MapStore store, SectionViews views, MapClients.Held client) {
        this.store = store;
        this.header = store.header;
        this.views = views;
        this.words = new LockWords(header, client, store::checkOpen, this::repairTakenOver, 0, 0);
        this.lockOwners = new AtomicReferenceArray<>(store.sectionCount);
    }

    void lock(int section) {
        store.checkOpen();
        Thread me = Thread.currentThread();
        if (lockOwners.get(section) == me) {
            throw new IllegalStateException("recursive update: this thread already holds the lock of map '" + store.name
                    + "' section " + section + " (a compute/merge function or updater must not write the map)");
        }
        takeOwnerSlot(section, me);
        try {
            takeLockWord(section);
        } catch (RuntimeException | Error e) {
            lockOwners.set(section, null);
            throw e;
        }
    }

    /** Waits until no other thread of this handle holds or takes the section's lock, and claims it. */
    private void takeOwnerSlot(int section, Thread me) {
        Backoff backoff = null;
        while (!lockOwners.compareAndSet(section, null, me)) {
            if (backoff == null) {
                backoff = new Backoff(SPINS, YIELDS, PARK_NANOS, PARK_NANOS);
            }
            backoff.idle();
            if (backoff.checkLiveness()) {
                store.checkOpen();
            }
        }
    }

    /** Takes the section's lock word for this handle, whose owner slot the caller holds. */
    private void takeLockWord(int section) {
        words.take(MapLayout.line(section) + LINE_LOCK, section);
    }

    /**
     * Takes a section's lock word from a dead holder and repairs the section; false if the holder
     * may run. The caller holds the section's owner slot, so a lock word naming this map's own
     * client slot can only be damage, and is taken over too.
     */
    private boolean takeOverIfDead(int section, long lock) {
        return words.takeOverIfDead(MapLayout.line(section) + LINE_LOCK, section, lock);
    }

    /** What the new holder of a section's lock does first: the dead holder's cut-short update undone, then a rebuild. */
    private void repairTakenOver(int section, String cause) {
        settleInPlaceUpdate(section);
        repair(section, cause);
    }

    /**
     * For the new holder of a lock a dead writer held: a change of a bucket it cut short goes
     * back from the undo record (if the record is that change's and passes its check).
     */
    private void settleInPlaceUpdate(int section) {
        SectionView v = views.current(section);
        if (UndoRecord.settle(v)) {
            LOG.warn("map '{}' section {}: a change of the bucket at offset {} was cut short; what it held was put back",
                    store.name, section, v.segment.getLong(SectionLayout.UNDO + UndoLayout.BUCKET));
        }
    }

    /** Releases a section's lock: the lock word, then the owner slot. */
    void unlock(int section) {
        words.release(MapLayout.line(section) + LINE_LOCK);
        lockOwners.set(section, null);
    }

    /** At a writable open: repairs each section whose lock a dead process holds. */
    int repairDeadHolders() {
        int repaired = 0;
        Thread me = Thread.currentThread();
        for (int s = 0; s < lockOwners.length(); s++) {
            long lock = header.getLongVolatile(MapLayout.line(s) + LINE_LOCK);
            if (lock == 0 || !lockOwners.compareAndSet(s, null, me)) {
                continue;
            }
            boolean took = false;
            try {
                took = takeOverIfDead(s, lock);
            } finally {
                if (took) {
                    unlock(s);
                    repaired++;
                } else {
                    lockOwners.set(s, null); // also when the repair threw: the owner slot is given back
                }
            }
        }
        return repaired;
    }

    private void repair(int section, String cause) {
        long at = MapLayout.line(section) + LINE_REPAIRS;
        header.putLongVolatile(at, header.getLong(at) + 1);
        LOG.warn("map '{}' section {}: {}; taken over and repaired", store.name, section, cause);
        try {
            store.rebuilder.rebuild(section, 0, true);
        } catch (PoolExhaustedException e) {
            recountInPlace(section);
            LOG.warn("map '{}' section {}: no pool space to rebuild it ({}); its counts were repaired in place",
                    store.name, section, e.getMessage());
        }
    }

    /** Recounts a section's live entries and used buckets where it is (when no rebuild fits). */
    private void recountInPlace(int section) {
        SectionView v = views.current(section);
        Segment seg = v.segment;
        long live = 0;
        int used = 0;
        for (int i = 0; i < v.buckets; i++) {
            long b = v.bucket(i);
            long w = seg.getLong(b);
            if (w == 0) {
                continue;
            }
            used++;
            if (v.intact(b, w)) {
                live++;
            }
        }
        seg.putInt(USED, used);
        header.putLongVolatile(MapLayout.line(section) + LINE_COUNT, live);
    }
}
