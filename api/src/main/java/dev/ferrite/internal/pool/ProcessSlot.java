package dev.ferrite.internal.pool;

import dev.ferrite.Segment;

/**
 * A place in shared memory that one process at a time holds: an identity word beside a liveness
 * record ({@link LivenessLayout}). A pool's owner slots, a queue's producer and consumer slots and
 * a map's client slots are all claimed, judged and given back here; what each keeps beside the
 * slot (a generation, a busy count, a heartbeat in milliseconds) is its own.
 *
 * <p>Invariants:
 * <ul>
 *   <li>A claim is a CAS of the identity word from the value the claimant saw (0, or a holder
 *       {@link Liveness} judged dead) to the claimant's {@link Liveness#self() identity}: two
 *       processes never hold one slot, and a slot another claimant took meanwhile is not taken.</li>
 *   <li>The liveness record is complete before the claim is visible, and written again once the
 *       claim is won (a claimant that lost the race may have written its own in between): whoever
 *       sees the identity word finds a record that names its holder, but for the microseconds of a
 *       claim, which {@link Liveness} counts as alive.</li>
 *   <li>A running process is never judged dead ({@link Liveness}); a holder whose record does not
 *       name it is judged dead only by a waiter that has waited past the liveness timeout (damage,
 *       not a claim in progress).</li>
 *   <li>A release is a CAS from the releaser's identity to 0: a slot that was taken over is left
 *       to its new holder.</li>
 * </ul>
 * Stateless and thread-safe; threads of one process share its identity, so a process that needs to
 * tell its own slots apart keeps that in memory of its own.
 */
public final class ProcessSlot {

    private ProcessSlot() {
    }

    /** The shared memory a slot lives in: volatile loads and stores, and a CAS, of longs. */
    public interface Memory extends Liveness.LongReader, Liveness.LongWriter {
        /**
         * @param off    byte offset, 8-aligned
         * @param expect the value expected there
         * @param update the value to store if it is there
         * @return whether the value was there and has been replaced
         */
        boolean compareAndSet(long off, long expect, long update);
    }

    /**
     * @param segment a segment of shared memory
     * @return the segment as slot memory
     */
    public static Memory of(Segment segment) {
        return new Memory() {
            @Override
            public long get(long off) {
                return segment.getLongVolatile(off);
            }

            @Override
            public void put(long off, long value) {
                segment.putLongVolatile(off, value);
            }

            @Override
            public boolean compareAndSet(long off, long expect, long update) {
                return segment.compareAndSetLong(off, expect, update);
            }
        };
    }

    /**
     * Claims a slot for this process if its identity word still holds {@code expected}.
     *
     * @param memory   where the slot is
     * @param identity offset of the identity word
     * @param record   offset of the liveness record
     * @param expected the identity word seen: 0 (free) or a holder judged dead
     * @return whether this process now holds the slot
     */
    public static boolean claim(Memory memory, long identity, long record, long expected) {
        Liveness.writeRecord(memory, record);
        if (!memory.compareAndSet(identity, expected, Liveness.self())) {
            return false;
        }
        Liveness.writeRecord(memory, record);
        return true;
    }

    /**
     * Claims a slot that is free or whose holder is dead.
     *
     * @param memory   where the slot is
     * @param identity offset of the identity word
     * @param record   offset of the liveness record
     * @return the identity word of the holder the slot was taken from (0 if it was free), or -1
     *         (never an identity word: no pid is 2^32 - 1) if a running process holds it, this
     *         process included, or another claimant won it
     */
    public static long claimIfFreeOrDead(Memory memory, long identity, long record) {
        long holder = memory.get(identity);
        if (holder != 0 && runs(memory, holder, record)) {
            return -1;
        }
        return claim(memory, identity, record, holder) ? holder : -1;
    }

    /**
     * @param memory   where the slot is
     * @param identity offset of the identity word
     * @param record   offset of the liveness record
     * @return whether the slot is held by a process that may still run
     */
    public static boolean holderRuns(Memory memory, long identity, long record) {
        return Liveness.isAlive(memory, identity, record);
    }

    /**
     * Judges the holder an identity word names, the word as the caller read it from the slot. A
     * caller that goes on to act on that word (a CAS from it) must judge it, not the slot's word of
     * a later moment: a process that gives the slot back and claims it again has the same word.
     *
     * @param memory where the slot is
     * @param word   the identity word read from the slot
     * @param record offset of the slot's liveness record
     * @return whether the process the word names may still run (false for 0)
     */
    public static boolean runs(Memory memory, long word, long record) {
        return Liveness.runs(word, memory, record);
    }

    /**
     * As {@link #runs}, for a waiter that has waited past the liveness timeout: a holder whose
     * record does not name it is then judged dead.
     *
     * @param memory where the slot is
     * @param word   the identity word read from the slot
     * @param record offset of the slot's liveness record
     * @return whether the process the word names may still run
     */
    public static boolean runsAfterTimeout(Memory memory, long word, long record) {
        return Liveness.runsAfterTimeout(word, memory, record);
    }

    /**
     * @param memory   where the slot is
     * @param identity offset of the identity word
     * @return the pid of the slot's holder in its own PID namespace, 0 if the slot is free
     */
    public static long holderPid(Memory memory, long identity) {
        return Liveness.pid(memory.get(identity));
    }

    /**
     * Gives a slot this process holds back.
     *
     * @param memory   where the slot is
     * @param identity offset of the identity word
     * @return whether this process held it (false: it was free, or taken over)
     */
    public static boolean release(Memory memory, long identity) {
        return memory.compareAndSet(identity, Liveness.self(), 0);
    }
}
