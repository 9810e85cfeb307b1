package dev.ferrite.kv;

import dev.ferrite.Segment;
import dev.ferrite.internal.pool.Backoff;

/**
 * The write locks the processes of a map share, for one handle: each a long in the map's header, 0
 * when free, else the holder's client lock value ({@link MapClients.Held#lockValue}), taken by
 * CAS. A waiter spins, then yields, then parks briefly; at each liveness check it takes the word
 * over from a holder that died (the liveness rule of its client slot) and repairs what that holder
 * left before it writes. A word naming the caller's own client slot is damage (the caller holds
 * its process's own lock on it, so no other thread of this handle can hold the word) and is taken
 * over too. The hash map's section locks and the sorted map's lock are both taken here.
 * Thread-safe; the caller excludes its own process's other threads from the same word.
 */
final class LockWords {

    private static final int SPINS = 100;
    private static final int YIELDS = 100;
    private static final long PARK_NANOS = 20_000;

    /** What the new holder of a dead holder's lock does before it writes. */
    @FunctionalInterface
    interface Repair {
        /**
         * @param which the number the caller gave for the word (a section's; 0 where there is one word)
         * @param cause why the lock was taken over, for the log ("its writer (pid 42) died holding
         *              the lock")
         */
        void repair(int which, String cause);
    }

    private final Segment header;
    private final MapClients.Held client;
    private final Runnable checkOpen;
    private final Repair repair;
    /** A lock value seen at this handle's open and its holder's pid then (0 if none or unknown). */
    private final long lockAtOpen;
    private final long pidAtOpen;

    /**
     * @param header     the map's header segment, which holds the words
     * @param client     this handle's client slot
     * @param checkOpen  throws if the map was closed while a caller waits
     * @param repair     run after a takeover from a dead holder, before the new holder writes
     * @param lockAtOpen a lock word's value read when the map was opened (0 for none)
     * @param pidAtOpen  its holder's pid read then, before dead client slots were freed (0 if unknown)
     */
    LockWords(Segment header, MapClients.Held client, Runnable checkOpen, Repair repair, long lockAtOpen, long pidAtOpen) {
        this.header = header;
        this.client = client;
        this.checkOpen = checkOpen;
        this.repair = repair;
        this.lockAtOpen = lockAtOpen;
        this.pidAtOpen = pidAtOpen;
    }

    /**
     * Takes the lock word at {@code at}, waiting while a live holder holds it; after a takeover
     * from a dead holder, the repair has run when this returns.
     *
     * @param which  the word's number, given to the repair
     * @throws dev.ferrite.SegmentClosedException if the map is closed while this waits
     * @throws RuntimeException                   what the repair threw (the word is free again)
     */
    void take(long at, int which) {
        if (!header.compareAndSetLong(at, 0, client.lockValue)) {
            await(at, which);
        }
    }

    /** {@link #take} when the word was not free: waits, taking it over from a dead holder. */
    private void await(long at, int which) {
        long mine = client.lockValue;
        Backoff backoff = null;
        while (true) {
            long cur = header.getLongVolatile(at);
            if (cur == 0) {
                if (header.compareAndSetLong(at, 0, mine)) {
                    return;
                }
                continue;
            }
            if (backoff == null) {
                backoff = new Backoff(SPINS, YIELDS, PARK_NANOS, PARK_NANOS);
            }
            backoff.idle();
            if (backoff.checkLiveness()) {
                checkOpen.run();
                if (takeOverIfDead(at, which, cur)) {
                    return;
                }
            }
        }
    }

    /**
     * Takes the lock word at {@code at} from a dead holder (or from damage naming this handle's
     * own slot) and runs the repair.
     *
     * @param which the word's number, given to the repair
     * @param lock  the word's value the caller read
     * @return whether this handle holds the word now; false if its holder may still run, or the
     *         word moved on
     * @throws RuntimeException what the repair threw (the word is free again)
     */
    boolean takeOverIfDead(long at, int which, long lock) {
        String cause;
        if (lock == client.lockValue) {
            cause = "its lock word names this process's own client slot, which does not hold it (damage)";
        } else {
            if (MapClients.lockHolderRuns(header, lock)) {
                return false;
            }
            long pid = MapClients.lockHolderPid(header, lock);
            pid = pid == 0 && lock == lockAtOpen ? pidAtOpen : pid;
            cause = "its writer (" + (pid == 0 ? "pid unknown: its client slot was taken again since" : "pid " + pid)
                    + ") died holding the lock";
        }
        if (!header.compareAndSetLong(at, lock, client.lockValue)) {
            return false;
        }
        try {
            repair.repair(which, cause);
        } catch (RuntimeException e) {
            release(at);
            throw e;
        }
        return true;
    }

    /** Frees the lock word at {@code at}, which this handle holds. */
    void release(long at) {
        header.putLongVolatile(at, 0);
    }
}
