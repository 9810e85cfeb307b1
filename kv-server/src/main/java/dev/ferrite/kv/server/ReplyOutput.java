package dev.ferrite.kv.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.handler.codec.redis.RedisMessage;

/**
 * One connection's replies on their way out: encoded ({@link RespWriter}) into one buffer until
 * the connection's handler hands them to the channel, in one write per pass of the event loop
 * ({@link PassFlush}) or per {@value #BATCH_BYTES} bytes of a long pipeline. The buffer the
 * channel has written and released is the next one, and the writes take no promise object.
 * Confined to the connection's event loop.
 */
final class ReplyOutput {

    /** Replies are handed to the channel whenever this many bytes are gathered. */
    static final int BATCH_BYTES = 64 << 10;
    /** The size of a new reply buffer. */
    private static final int REPLY_BUFFER_BYTES = 4096;
    /** A written buffer grown past this (a large reply) goes back to the pool instead of being kept. */
    private static final int KEPT_BUFFER_BYTES = 16 << 10;

    /** Replies encoded since the last hand-over, or null. */
    private ByteBuf pending;
    /**
     * The last reply buffer handed to the channel, with one reference of ours: once the channel
     * has written and released it, it is the next {@link #pending} instead of a new buffer. An
     * unpipelined request otherwise pays a pool allocation and a release for its reply besides
     * the one for its read: Netty's {@code PoolArena.allocate} and {@code free} took 4.1% of the
     * event loop's profile under {@code redis-benchmark -t get -c 50}, and 2.5% with the reuse.
     */
    private ByteBuf written;
    /** See {@link #unobserved(ChannelHandlerContext)}; made on the first write. */
    private ChannelPromise unobserved;

    /**
     * Encodes a reply after the ones gathered (and releases the message).
     *
     * @return bytes gathered and not handed over yet, this reply's included
     */
    int add(ChannelHandlerContext ctx, RedisMessage reply) {
        if (pending == null) {
            pending = replyBuffer(ctx);
        }
        RespWriter.write(reply, pending);
        return pending.readableBytes();
    }

    /** Hands the replies gathered to the channel, unflushed (the pass's flush sends them). */
    void write(ChannelHandlerContext ctx) {
        if (hasPending()) {
            ctx.write(handOver(), unobserved(ctx));
        }
    }

    /** Hands the replies gathered to the channel and flushes it (also with none gathered: earlier writes go). */
    void writeAndFlush(ChannelHandlerContext ctx) {
        if (hasPending()) {
            ctx.writeAndFlush(handOver(), unobserved(ctx));
        } else {
            ctx.flush();
        }
    }

    /** @return a future that completes once the replies gathered (if any) are written and flushed */
    ChannelFuture writeAndFlushObserved(ChannelHandlerContext ctx) {
        return hasPending() ? ctx.writeAndFlush(handOver()) : ctx.newSucceededFuture();
    }

    private boolean hasPending() {
        return pending != null && pending.isReadable();
    }

    /** Gives back the buffers held; for a handler being removed. */
    void release() {
        if (pending != null) {
            pending.release();
            pending = null;
        }
        if (written != null) {
            written.release();
            written = null;
        }
    }

    /**
     * The promise of a reply write nobody waits for: one per connection, never completed, so a
     * flush makes no promise object and runs no completion (Netty's {@code DefaultPromise} took
     * about 1% of the event loop's profile under unpipelined {@code redis-benchmark -t incr}). A
     * failed write is dropped as an unobserved promise's was: the channel closes itself on an
     * I/O error.
     */
    private ChannelPromise unobserved(ChannelHandlerContext ctx) {
        ChannelPromise p = unobserved;
        if (p == null) {
            p = new VoidChannelPromise(ctx.channel(), false);
            unobserved = p;
        }
        return p;
    }

    /** @return an empty buffer for replies: the last written one if the channel is done with it */
    private ByteBuf replyBuffer(ChannelHandlerContext ctx) {
        ByteBuf b = written;
        written = null;
        if (b != null) {
            if (b.refCnt() == 1) {
                return b.clear(); // written and released by the channel: only our reference is left
            }
            b.release(); // still queued in the channel, which frees it once written
        }
        return ctx.alloc().buffer(REPLY_BUFFER_BYTES);
    }

    /**
     * @return {@link #pending}, for the channel to write and release, keeping a reference to reuse
     *         it ({@link #written} is null here: {@link #replyBuffer} took it when pending was made)
     */
    private ByteBuf handOver() {
        ByteBuf b = pending;
        pending = null;
        if (b.capacity() <= KEPT_BUFFER_BYTES) {
            written = b.retain();
        }
        return b;
    }
}
