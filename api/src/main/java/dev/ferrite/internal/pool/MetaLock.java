package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.PoolHeaderLayout.META_LOCK_OFFSET;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The pool-wide lock for the rare changes that are not lock-free: the directory of named
 * segments, extent growth, validation and recovery. The word in the file names the holder's claim
 * of its owner slot ({@link OwnerTable#lockWord}); a process that finds the holder dead takes the lock over (every step done under
 * it leaves the file consistent, or repairable by recovery), so no dead process holds it forever.
 * Threads of one process queue on a local lock first. Reentrant within a thread. A lock naming
 * this process's own slot is inherited only when the slot itself was taken over from a dead
 * process; released by CAS, and always before the slot is given back.
 */
final class MetaLock {

    private final MetaRegion meta;
    private final OwnerTable owners;
    private final int slot;
    private final ReentrantLock local = new ReentrantLock();
    private final boolean inheritedSlot;
    private boolean tookOverFromDead;

    /**
     * @param meta          the pool's header
     * @param owners        its owner table
     * @param slot          this process's owner slot
     * @param inheritedSlot whether this process took the slot over from a dead process, whose
     *                      lock (naming the same slot) it may then inherit too
     */
    MetaLock(MetaRegion meta, OwnerTable owners, int slot, boolean inheritedSlot) {
        this.meta = meta;
        this.owners = owners;
        this.slot = slot;
        this.inheritedSlot = inheritedSlot;
    }

    /** Acquires the lock, waiting for a live holder and taking it over from a dead one. */
    void lock() {
        local.lock();
        if (local.getHoldCount() > 1) {
            return;
        }
        long mine = owners.lockWord(slot);
        Backoff backoff = new Backoff();
        while (true) {
            long holder = meta.getLongVolatile(META_LOCK_OFFSET);
            if (holder == 0) {
                if (meta.compareAndSetLong(META_LOCK_OFFSET, 0, mine)) {
                    return;
                }
            } else if ((int) holder == slot + 1 && inheritedSlot) {
                // The dead process whose slot this process took over died holding the lock.
                if (meta.compareAndSetLong(META_LOCK_OFFSET, holder, mine)) {
                    tookOverFromDead = true;
                    return;
                }
            } else if (backoff.checkLiveness() && !owners.holderAlive(holder, backoff)
                    && meta.compareAndSetLong(META_LOCK_OFFSET, holder, mine)) {
                tookOverFromDead = true;
                return;
            }
            backoff.idle();
        }
    }

    /**
     * Releases the lock, by CAS from this slot: a process never clears a lock it does not hold. A
     * process releases the lock before it gives its owner slot back, so a newcomer in that slot
     * never finds the lock naming it while a live process is inside.
     */
    void unlock() {
        if (local.getHoldCount() == 1 && !meta.compareAndSetLong(META_LOCK_OFFSET, owners.lockWord(slot), 0)) {
            local.unlock();
            throw new IllegalStateException("the meta lock of owner slot " + slot + " was taken over while held: "
                    + "another process judged this one dead");
        }
        local.unlock();
    }

    /**
     * @return whether the lock was taken over from a dead process since the last call (the dead
     *         holder's work may need recovery); clears the flag
     */
    boolean takeOverSinceLastAsked() {
        boolean was = tookOverFromDead;
        tookOverFromDead = false;
        return was;
    }
}
