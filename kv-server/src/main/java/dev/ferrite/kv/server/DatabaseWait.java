package dev.ferrite.kv.server;

import io.netty.channel.ChannelHandlerContext;

import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The requests of one connection that wait, in order, for a database being created off the event
 * loop ({@link DatabaseCreating}) or for a list a blocking command waits on ({@link Blocked}): the
 * first one, which wrote nothing, and every one decoded after it. Reading from the connection stops meanwhile; the event loop's other connections go on being
 * served. Used by one channel's handler on its event loop only: not thread-safe.
 *
 * @param <T> a request
 */
final class DatabaseWait<T> {

    private ArrayDeque<T> waiting;

    /** @return whether requests wait: a new one must queue behind them */
    boolean holds() {
        return waiting != null;
    }

    /** Queues a request behind the waiting ones. */
    void add(T request) {
        waiting.add(request);
    }

    /**
     * Starts waiting with {@code first}, stops reading, and once {@code ready} completes runs
     * {@code resume} on the channel's event loop with whether it failed.
     */
    void begin(ChannelHandlerContext ctx, T first, java.util.concurrent.CompletableFuture<?> ready, Consumer<Boolean> resume) {
        waiting = new ArrayDeque<>();
        waiting.add(first);
        ctx.channel().config().setAutoRead(false);
        ready.whenComplete((done, failure) -> {
            try {
                ctx.executor().execute(() -> resume.accept(failure != null));
            } catch (RejectedExecutionException shuttingDown) {
                // the server is stopping: the connection closes with its event loop
            }
        });
    }

    /**
     * Runs the waiting requests in order. If the creation failed, the first runs with
     * {@code inline} set, so that it creates the database itself and answers the failure; a
     * request that meets another database being created starts a new wait, with the rest behind it.
     * Once every request ran, reading resumes (as far as the channel's writability allows).
     */
    void resume(ChannelHandlerContext ctx, boolean failed, Consumer<Boolean> inline, Consumer<T> run) {
        ArrayDeque<T> rest = waiting;
        waiting = null;
        if (rest == null) {
            return;
        }
        inline.accept(failed);
        try {
            run.accept(rest.poll());
        } finally {
            inline.accept(false);
        }
        while (waiting == null && !rest.isEmpty()) {
            run.accept(rest.poll());
        }
        if (waiting != null) {
            waiting.addAll(rest);
            return;
        }
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
    }

    /** Keeps reading off while requests wait, after the connection guard turned it back on. */
    void onWritabilityChanged(ChannelHandlerContext ctx) {
        if (waiting != null) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /** Drops the waiting requests (the connection is gone), each passed to {@code dispose}. */
    void clear(Consumer<T> dispose) {
        ArrayDeque<T> rest = waiting;
        waiting = null;
        if (rest != null) {
            rest.forEach(dispose);
        }
    }
}
