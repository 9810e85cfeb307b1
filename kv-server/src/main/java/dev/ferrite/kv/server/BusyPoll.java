package dev.ferrite.kv.server;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import java.util.function.LongSupplier;

/**
 * How an event loop waits for work when {@code --busy-poll} is set: for that long after it runs
 * out of work it keeps polling (a non-blocking {@code epoll_wait}, or {@code selectNow} on NIO) instead of
 * going to sleep; after that it blocks as usual. A loop that sleeps between two requests costs its
 * client a wake-up, paid in the client's send; polling spares it while requests follow each other
 * within the window.
 *
 * <p>Polling is adaptive, so that it costs CPU only where it pays: a poll that outlasts its window
 * without finding work is a failed one, and after it the loop goes straight to sleep the next 1, 2,
 * 4, ... up to {@value #MAX_SKIPS} times it runs out of work; a poll that finds work ends that
 * back-off. Under a load with gaps longer than the window (or none) the loop therefore polls once
 * per {@value #MAX_SKIPS} sleeps at most; under a load whose requests follow each other within the
 * window it keeps polling and its core stays busy. An idle server sleeps.
 *
 * <p>One instance per event loop; not thread-safe.
 */
final class BusyPoll implements SelectStrategy {

    /** The longest back-off: after failed polls the loop sleeps at most this many times before polling again. */
    static final int MAX_SKIPS = 64;
    /** Pauses between two polls, to leave the cache lines the kernel shares with senders alone a while. */
    private static final int PAUSES_PER_POLL = 32;

    private final long windowNanos;
    private final LongSupplier clock;
    /** Whether the last answer handed the loop work (events or tasks, or a return from a blocking wait). */
    private boolean worked = true;
    /** When the loop last ran out of work: the window starts there. */
    private long idleSince;
    /** Whether the last answer was {@link #SELECT}: being asked again means the wait returned. */
    private boolean blocked;
    /** Whether the loop has polled without finding work since its last work. */
    private boolean polling;
    /** Times the loop runs out of work and sleeps at once before it may poll again. */
    private int skips;
    /** The next back-off after a failed poll, doubled by each failure up to {@link #MAX_SKIPS}. */
    private int backoff = 1;

    /**
     * @param windowNanos how long to keep polling after the last work, more than 0
     * @param clock       a monotonic clock in nanoseconds ({@link System#nanoTime})
     */
    BusyPoll(long windowNanos, LongSupplier clock) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("busy-poll window " + windowNanos + " ns must be more than 0");
        }
        this.windowNanos = windowNanos;
        this.clock = clock;
    }

    /**
     * @param selectNow polls for ready events without blocking and returns how many
     * @param hasTasks  whether the loop has tasks waiting
     * @return the number of ready events (the loop handles them and runs its tasks),
     *         {@link #CONTINUE} (poll again) or {@link #SELECT} (block until events or a task)
     */
    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        if (ready > 0 || hasTasks || blocked) {
            if (polling) {
                backoff = 1; // the poll found work: poll again next time
                polling = false;
            }
            blocked = false;
            worked = true;
            return ready;
        }
        long now = clock.getAsLong();
        if (worked) {
            // The work the loop was handed last time is done now: the window starts here, so a
            // pass that took longer than the window is still followed by a poll.
            worked = false;
            idleSince = now;
        }
        if (polling || skips == 0) {
            if (now - idleSince < windowNanos) {
                polling = true;
                for (int i = 0; i < PAUSES_PER_POLL; i++) {
                    Thread.onSpinWait();
                }
                return CONTINUE;
            }
            if (polling) {
                // The window passed without work: sleep at once the next `backoff` times.
                polling = false;
                skips = backoff;
                backoff = Math.min(2 * backoff, MAX_SKIPS);
            }
        } else {
            skips--;
        }
        blocked = true;
        return SELECT;
    }

    /** @return how many more times the loop sleeps at once before it may poll again (for tests) */
    int skips() {
        return skips;
    }
}
