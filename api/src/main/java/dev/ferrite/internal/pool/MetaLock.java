package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.PoolHeaderLayout.META_LOCK_OFFSET;
import static dev.ferrite.internal.pool.PoolHeaderLayout.MAX_OWNERS;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The pool-wide lock for the rare changes that are not lock-free: the directory of named
 * segments, extent growth, validation and recovery. The word in the file holds the holder's owner
 * slot plus one; a process that finds the holder dead takes the lock over (every step done under
 * it leaves the file consistent, or repairable by recovery), so no dead process holds it forever.
 * Threads of one process queue on a local lock first. Reentrant within a thread.
 */
final class MetaLock {

    private final MetaRegion meta;
    private final OwnerTable owners;
    private final int slot;
    private final ReentrantLock local = new ReentrantLock();
    private boolean tookOverFromDead;

    MetaLock(MetaRegion meta, OwnerTable owners, int slot) {
        this.meta = meta;
        this.owners = owners;
        this.slot = slot;
    }

    /** Acquires the lock, waiting for a live holder and taking it over from a dead one. */
    void lock() {
        local.lock();
        if (local.getHoldCount() > 1) {
            return;
        }
        long mine = slot + 1;
        Backoff backoff = new Backoff();
        while (true) {
            long holder = meta.getLongVolatile(META_LOCK_OFFSET);
            if (holder == 0) {
                if (meta.compareAndSetLong(META_LOCK_OFFSET, 0, mine)) {
                    return;
                }
            } else if (holder == mine) {
                // Only a dead process that held this slot before this process took it over can
                // have left the lock naming it: it is ours now.
                tookOverFromDead = true;
                return;
            } else if (backoff.checkLiveness() && !holderAlive(holder)
                    && meta.compareAndSetLong(META_LOCK_OFFSET, holder, mine)) {
                tookOverFromDead = true;
                return;
            }
            backoff.idle();
        }
    }

    private boolean holderAlive(long holder) {
        int s = (int) holder - 1;
        return s >= 0 && s < MAX_OWNERS && owners.isLive(s);
    }

    /** Releases the lock. */
    void unlock() {
        if (local.getHoldCount() == 1) {
            meta.putLongVolatile(META_LOCK_OFFSET, 0);
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
