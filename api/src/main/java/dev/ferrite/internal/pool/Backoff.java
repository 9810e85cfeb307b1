package dev.ferrite.internal.pool;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for something another thread or process will do: spin a number of turns, then
 * yield a number of turns, then park for intervals that double from a shortest to a longest. Also
 * says when a wait should check whether the process it waits for still runs (a system call, so not
 * on every turn) and when it has lasted past the liveness timeout. Every wait of Ferrite's (pool
 * locks and handshakes, map section locks, the queue's backoff idle strategy) is one of these. Not
 * thread-safe: one per wait.
 */
public final class Backoff {

    /** Turns between two liveness checks, once the spinning is over. */
    private static final int CHECK_EVERY = 64;

    private final int spins;
    private final int yields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private long startNanos;
    private int turns;
    private long parkNanos;

    /** The waits for another process: 100 spins, 200 yields, then parks from 10 µs to 1 ms. */
    public Backoff() {
        this(100, 200, 10_000, 1_000_000);
    }

    /**
     * @param spins        turns spent in {@link Thread#onSpinWait()}, at least 0
     * @param yields       turns then spent in {@link Thread#yield()}, at least 0
     * @param minParkNanos the first park, at least 1
     * @param maxParkNanos the longest park, at least {@code minParkNanos}
     * @throws IllegalArgumentException if a value is out of its range
     */
    public Backoff(int spins, int yields, long minParkNanos, long maxParkNanos) {
        if (spins < 0 || yields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("backoff of " + spins + " spins, " + yields + " yields, parks of "
                    + minParkNanos + " to " + maxParkNanos + " ns: counts must be at least 0, parks at least 1 ns and in order");
        }
        this.spins = spins;
        this.yields = yields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        reset();
    }

    /** Waits a little longer than last time. */
    public void idle() {
        if (++turns == 1) {
            startNanos = System.nanoTime();
        }
        if (turns <= spins) {
            Thread.onSpinWait();
        } else if (turns <= spins + yields) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(maxParkNanos, parkNanos * 2);
        }
    }

    /** Starts over, as a new wait: the next {@link #idle()} spins again. */
    public void reset() {
        turns = 0;
        parkNanos = minParkNanos;
    }

    /** @return whether this turn should check the liveness of the process waited for */
    public boolean checkLiveness() {
        return turns > spins && turns % CHECK_EVERY == 0;
    }

    /**
     * @return whether this wait, counted from its first {@link #idle()}, has lasted longer than the
     *         liveness timeout: long past the microseconds a process takes to claim a slot and
     *         write its liveness record
     */
    public boolean pastLivenessTimeout() {
        return turns > 0 && System.nanoTime() - startNanos > Liveness.timeoutNanos();
    }
}
