package dev.ferrite.queue;

import dev.ferrite.internal.pool.Backoff;

/** Spins, then yields, then parks with an exponentially growing time ({@link Backoff}). One thread only. */
final class BackoffIdleStrategy implements IdleStrategy {

    private final Backoff backoff;

    BackoffIdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        this.backoff = new Backoff(maxSpins, maxYields, minParkNanos, maxParkNanos);
    }

    @Override
    public void idle() {
        backoff.idle();
    }

    @Override
    public void reset() {
        backoff.reset();
    }
}
