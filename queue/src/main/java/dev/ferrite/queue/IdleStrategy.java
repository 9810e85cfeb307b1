package dev.ferrite.queue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a producer or consumer does while it waits for space or for messages. An instance keeps
 * state (how long it has been idle) and belongs to one thread; the factories return new ones.
 */
public interface IdleStrategy {

    /**
     * Called after each attempt: resets when work was done, else waits a little.
     *
     * @param workCount what the attempt achieved (messages, or 1 for a successful offer); 0 = nothing
     */
    default void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    /** Waits once, longer the longer it has been idle (depending on the strategy). */
    void idle();

    /** Forgets how long it has been idle. */
    void reset();

    /** @return a strategy that spins ({@link Thread#onSpinWait()}): lowest latency, burns a core */
    static IdleStrategy busySpin() {
        return new IdleStrategy() {
            @Override
            public void idle() {
                Thread.onSpinWait();
            }

            @Override
            public void reset() {
            }
        };
    }

    /** @return a strategy that yields the core ({@link Thread#yield()}) */
    static IdleStrategy yielding() {
        return new IdleStrategy() {
            @Override
            public void idle() {
                Thread.yield();
            }

            @Override
            public void reset() {
            }
        };
    }

    /**
     * @param nanos time to park per idle call, 1 ns to 1 s
     * @return a strategy that parks the thread a fixed time
     * @throws IllegalArgumentException if nanos is out of range
     */
    static IdleStrategy parking(long nanos) {
        if (nanos < 1 || nanos > TimeUnit.SECONDS.toNanos(1)) {
            throw new IllegalArgumentException("park time " + nanos + " ns must be from 1 ns to 1 s");
        }
        return new IdleStrategy() {
            @Override
            public void idle() {
                LockSupport.parkNanos(nanos);
            }

            @Override
            public void reset() {
            }
        };
    }

    /**
     * @return spin 100 times, then yield 10 times, then park from 1 µs doubling to 1 ms: the
     *         default, quick to react without burning a core for long
     */
    static IdleStrategy backoff() {
        return new BackoffIdleStrategy(100, 10, 1_000, 1_000_000);
    }
}
