package dev.ferrite.internal.pool;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for another process: spin briefly, then yield, then park for growing
 * intervals up to a millisecond. Also says when it is time to check whether the process waited
 * for is still alive (a system call, so not on every turn). Not thread-safe: one per wait.
 */
final class Backoff {

    private static final int SPINS = 100;
    private static final int YIELDS = 200;
    private static final long MAX_PARK_NANOS = 1_000_000;

    private final long startNanos = System.nanoTime();
    private int turns;
    private long parkNanos = 10_000;

    /** Waits a little longer than last time. */
    void idle() {
        turns++;
        if (turns < SPINS) {
            Thread.onSpinWait();
        } else if (turns < SPINS + YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(MAX_PARK_NANOS, parkNanos * 2);
        }
    }

    /** @return whether this turn should check the liveness of the process waited for */
    boolean checkLiveness() {
        return turns > SPINS && turns % 64 == 0;
    }

    /**
     * @return whether this wait has lasted longer than the liveness timeout: long past the
     *         microseconds a process takes to claim a slot and write its liveness record
     */
    boolean pastLivenessTimeout() {
        return System.nanoTime() - startNanos > Liveness.timeoutNanos();
    }
}
