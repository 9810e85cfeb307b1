package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.PoolHeaderLayout.*;

import dev.ferrite.FerriteException;

/**
 * The processes that have a pool open, one slot each, and the handshake that lets one process
 * hold every allocator out for a moment (to validate or recover the free list) without a lock on
 * the lock-free path.
 *
 * <p>Handshake: a thread enters a lock-free free-list operation by incrementing its slot's
 * {@code BUSY} count and then reading {@code EXCLUSIVE}; if it is set, it backs out and waits. The
 * exclusive process sets {@code EXCLUSIVE} and then waits until every live slot's count is 0.
 * Both sides store and then load (volatile, so with a full fence between), so at least one of
 * them sees the other: never both inside at once. A dead process's count is ignored, and an
 * {@code EXCLUSIVE} set by a dead process is cleared by whoever sees it.
 */
final class OwnerTable {

    private final MetaRegion meta;
    private final String where;

    OwnerTable(MetaRegion meta, String where) {
        this.meta = meta;
        this.where = where;
    }

    private static long wordOffset(int slot) {
        return ownerSlotOffset(slot) + OWNER_WORD;
    }

    private static long busyOffset(int slot) {
        return ownerSlotOffset(slot) + OWNER_BUSY;
    }

    private static long recordOffset(int slot) {
        return ownerSlotOffset(slot) + LivenessLayout.SLOT_OFFSET;
    }

    /**
     * Starts stamping this process's heartbeat into its slot's liveness record.
     *
     * @param slot this process's slot
     * @return the stamp, to cancel before the slot is given back
     */
    Liveness.Stamp keepStamping(int slot) {
        return Liveness.keepStamping(meta, recordOffset(slot));
    }

    private boolean claim(int slot, long expected) {
        if (!ProcessSlot.claim(meta, wordOffset(slot), recordOffset(slot), expected)) {
            return false;
        }
        meta.putIntVolatile(busyOffset(slot), 0);
        meta.getAndAddInt(ownerSlotOffset(slot) + OWNER_GENERATION, 1);
        meta.putLongVolatile(ownerSlotOffset(slot) + OWNER_ATTACHED_MILLIS, System.currentTimeMillis());
        return true;
    }

    /**
     * @param slot this process's slot, claimed
     * @return the word that names this claim of the slot in META_LOCK and EXCLUSIVE:
     *         {@code generation << 32 | (slot + 1)}, so a later claimant of the same slot never
     *         holds an equal word (a lock judged abandoned cannot be CASed from its next holder)
     */
    long lockWord(int slot) {
        return (long) meta.getIntVolatile(ownerSlotOffset(slot) + OWNER_GENERATION) << 32 | (slot + 1);
    }

    /**
     * @param lockWord a META_LOCK or EXCLUSIVE value, non-zero
     * @return whether the claim it names still holds its slot and its process may still run; a
     *         word naming no slot, or a slot claimed again since, names a holder that is gone
     */
    boolean holderAlive(long lockWord) {
        int s = (int) lockWord - 1;
        if (s < 0 || s >= MAX_OWNERS) {
            return false;
        }
        long word = word(s); // read before the generation: a claim changes the word, then the generation
        return lockWord(s) == lockWord && runs(s, word);
    }

    /**
     * As {@link #holderAlive(long)} during a wait: once the wait outlasts the liveness timeout, a
     * holder whose liveness record does not name it counts as dead (damage, see
     * {@link ProcessSlot#runsAfterTimeout}).
     */
    boolean holderAlive(long lockWord, Backoff wait) {
        int s = (int) lockWord - 1;
        if (s < 0 || s >= MAX_OWNERS) {
            return false;
        }
        long word = word(s);
        return lockWord(s) == lockWord && runs(s, word, wait);
    }

    /**
     * Takes a free slot for this process.
     *
     * @return the slot index
     * @throws FerriteException if all {@value PoolHeaderLayout#MAX_OWNERS} slots hold live processes
     */
    int attach() {
        for (int slot = 0; slot < MAX_OWNERS; slot++) {
            if (meta.getLongVolatile(wordOffset(slot)) == 0 && claim(slot, 0)) {
                return slot;
            }
        }
        return -1;
    }

    /**
     * Takes over the slot of a dead process, when no slot is free. The caller must then recover
     * with the slot treated as dead: whatever it still owns belonged to the dead process.
     *
     * @return the slot index, or -1 if every slot holds a live process
     */
    int takeOverDead() {
        for (int slot = 0; slot < MAX_OWNERS; slot++) {
            long word = word(slot);
            if (word != 0 && !runs(slot, word) && claim(slot, word)) {
                long exclusive = meta.getLongVolatile(EXCLUSIVE_OFFSET);
                if ((int) exclusive == slot + 1 && exclusive != lockWord(slot)) {
                    // The dead process held allocators out: let them back in.
                    meta.compareAndSetLong(EXCLUSIVE_OFFSET, exclusive, 0);
                }
                return slot;
            }
        }
        return -1;
    }

    /**
     * Gives a slot back.
     *
     * @param slot this pool's slot
     */
    void detach(int slot) {
        meta.putIntVolatile(busyOffset(slot), 0);
        meta.putLongVolatile(ownerSlotOffset(slot) + OWNER_ATTACHED_MILLIS, 0);
        // The record stays: the next claimant overwrites it before its claim becomes visible.
        ProcessSlot.release(meta, wordOffset(slot));
    }

    /**
     * @param slot a slot index
     * @return the owner word there, 0 if free
     */
    long word(int slot) {
        return meta.getLongVolatile(wordOffset(slot));
    }

    /**
     * @param slot a slot index
     * @return whether a live process holds it
     */
    boolean isLive(int slot) {
        return runs(slot, word(slot));
    }

    /**
     * Judges the owner word a caller read from a slot (and may go on to CAS from): not the slot's
     * word of a later moment, which a process closing and reopening the pool sets to the same value.
     *
     * @param slot a slot index
     * @param word the owner word read there
     * @return whether the process it names may still run (false for 0)
     */
    boolean runs(int slot, long word) {
        return ProcessSlot.runs(meta, word, recordOffset(slot));
    }

    /**
     * As {@link #runs(int, long)} during a wait; once the wait outlasts the liveness timeout, a slot
     * whose record does not name its owner (damage: a claim writes it within microseconds) is dead,
     * so a corrupt owner table cannot make a waiter wait forever.
     */
    private boolean runs(int slot, long word, Backoff wait) {
        return wait.pastLivenessTimeout()
                ? ProcessSlot.runsAfterTimeout(meta, word, recordOffset(slot))
                : runs(slot, word);
    }

    /**
     * Frees the slot of a dead process, if it still holds the word seen.
     *
     * @param slot the slot
     * @param word the dead process's word
     */
    void clearDead(int slot, long word) {
        if (meta.compareAndSetLong(wordOffset(slot), word, 0)) {
            meta.putIntVolatile(busyOffset(slot), 0);
        }
    }

    /**
     * Enters a lock-free free-list operation, waiting while another process holds allocators out.
     *
     * @param slot this pool's slot
     */
    void enterBusy(int slot) {
        long busy = busyOffset(slot);
        while (true) {
            addBusy(busy, 1);
            if (meta.getLongVolatile(EXCLUSIVE_OFFSET) == 0) {
                return;
            }
            addBusy(busy, -1);
            awaitNoExclusive();
        }
    }

    /**
     * Leaves a lock-free free-list operation.
     *
     * @param slot this pool's slot
     */
    void exitBusy(int slot) {
        addBusy(busyOffset(slot), -1);
    }

    private void addBusy(long off, int delta) {
        // Threads of one process share the slot, so BUSY counts them.
        meta.getAndAddInt(off, delta);
    }

    private void awaitNoExclusive() {
        Backoff backoff = new Backoff();
        while (true) {
            long holder = meta.getLongVolatile(EXCLUSIVE_OFFSET);
            if (holder == 0) {
                return;
            }
            if (backoff.checkLiveness() && !holderAlive(holder, backoff)) {
                meta.compareAndSetLong(EXCLUSIVE_OFFSET, holder, 0);
            }
            backoff.idle();
        }
    }

    /**
     * Holds every allocator out and waits until none is inside a lock-free operation. Call with
     * the meta lock held, and not from inside a busy section.
     *
     * @param slot this pool's slot
     */
    void beginExclusive(int slot) {
        meta.putLongVolatile(EXCLUSIVE_OFFSET, lockWord(slot));
        for (int s = 0; s < MAX_OWNERS; s++) {
            long word = word(s);
            if (word == 0) {
                continue;
            }
            Backoff backoff = new Backoff();
            while (meta.getIntVolatile(busyOffset(s)) > 0) {
                if (backoff.checkLiveness() && !runs(s, word(s), backoff)) {
                    break;
                }
                backoff.idle();
            }
        }
    }

    /** Lets allocators back in. */
    void endExclusive() {
        meta.putLongVolatile(EXCLUSIVE_OFFSET, 0);
    }

    @Override
    public String toString() {
        return "OwnerTable[" + where + "]";
    }
}
