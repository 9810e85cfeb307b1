package dev.ferrite.kv.server;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import java.util.function.LongSupplier;

/**
 * How an event loop waits for work when {@code --busy-poll} is set: for that long after its last
 * work it keeps polling (a non-blocking {@code epoll_wait}, or {@code selectNow} on NIO) instead of
 * going to sleep; after that it blocks as usual. A loop that sleeps between two requests costs its
 * client a wake-up: with 50 unpipelined clients on 2 cores, Ferrite's event loop slept about once per
 * 26 requests (Redis's once per 130-250), and each of those wake-ups is paid in the client's send.
 * Polling for 30 µs cut the server's context switches to about one per 400 requests.
 *
 * <p>The price is CPU: under a steady trickle of requests (one every 30 µs or less) the loop's
 * core stays busy. An idle server still sleeps. One instance per event loop; not thread-safe.
 */
final class BusyPoll implements SelectStrategy {

    /** Pauses between two polls, to leave the cache lines the kernel shares with senders alone a while. */
    private static final int PAUSES_PER_POLL = 32;

    private final long windowNanos;
    private final LongSupplier clock;
    /** When this loop last had work (events or tasks), or came back from a blocking wait. */
    private long lastWork;
    /** Whether the last answer was {@link #SELECT}: being asked again means the wait returned. */
    private boolean blocked;

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
        this.lastWork = clock.getAsLong();
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
        long now = clock.getAsLong();
        if (ready > 0 || hasTasks || blocked) {
            blocked = false;
            lastWork = now;
            return ready;
        }
        if (now - lastWork < windowNanos) {
            for (int i = 0; i < PAUSES_PER_POLL; i++) {
                Thread.onSpinWait();
            }
            return CONTINUE;
        }
        blocked = true;
        return SELECT;
    }
}
