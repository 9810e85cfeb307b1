package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.Channel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs each decoded request of one connection in order and gathers its reply ({@link ReplyOutput}).
 * Once the connection has logged in, its requests run after the event loop has read every ready
 * connection, their keys warmed together with the other connections' (requests read before the
 * peer closed still run); the replies of a pass go out in one write ({@link PassFlush}). A protocol
 * error is answered with {@code -ERR Protocol error: ...} and the connection closed, as Redis
 * does; a failing command (a full pool, say) gets {@code -ERR} with the reason and the connection
 * stays. A client whose unsent replies pass the output-buffer limit is disconnected (Redis's
 * {@code client-output-buffer-limit}); published messages for a subscribed client go out on its
 * event loop after the replies before them, under the same limit. One instance per connection.
 */
final class CommandHandler extends SimpleChannelInboundHandler<byte[][]> {

    private static final Logger LOG = LoggerFactory.getLogger(CommandHandler.class);

    private final ServerContext server;
    private final ClientSession session;
    /** Requests read in this pass of the event loop, to run at its end ({@link #runDeferred()}). */
    private final List<byte[][]> deferred = new ArrayList<>();
    /** This connection's event loop's pass, found on its first deferred request. */
    private PassFlush pass;
    /** Whether this handler closed the connection: requests still deferred are not run. */
    private boolean closing;
    private final long maxOutputBytes;
    /** The replies encoded and not yet handed to the channel. */
    private final ReplyOutput output = new ReplyOutput();
    /**
     * Requests read but not run because the client left over the high watermark of replies unread
     * (it does not read): they run, in order, once it has read enough; meanwhile nothing more is
     * read from it, so it costs the other clients at most a watermark of replies and one read.
     */
    private ArrayDeque<byte[][]> backlog;
    /** Commands waiting, in order, for a database being created off the event loop. */
    /** A blocking request a write served while it waited, and its reply (this channel's loop only). */
    private byte[][] servedFor;
    private RedisMessage servedReply;
    private final DatabaseWait<byte[][]> waiting = new DatabaseWait<>();
    /**
     * First element, by identity, of the entry {@link #exceptionCaught} queues for a protocol error
     * that comes while requests wait; the second element is the error's message.
     */
    private static final byte[] PROTOCOL_ERROR = new byte[0];
    /**
     * Most bytes of messages and replies a subscriber may leave unread (if the server's limit is not
     * lower): Redis's hard limit for its pub/sub clients, whose output grows with other clients'
     * publishing rather than with their own requests.
     */
    static final long SUBSCRIBER_OUTPUT_BYTES = 32L << 20;

    /**
     * @param maxOutputBytes most bytes of replies a client may leave unread before it is disconnected
     */
    CommandHandler(ServerContext server, long maxOutputBytes) {
        this.server = server;
        this.session = new ClientSession(!server.requiresPassword());
        this.session.subscriber = this::push;
        this.maxOutputBytes = maxOutputBytes;
    }

    /** This handler's context, once added to its channel: where published messages go. */
    private volatile ChannelHandlerContext context;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    /**
     * Sends a published message after the replies encoded so far, on the connection's event loop
     * (from another thread, as a task there: after the replies of the request that subscribed).
     */
    private void push(RedisMessage message) {
        ChannelHandlerContext ctx = context;
        if (ctx == null) {
            ReferenceCountUtil.release(message);
            return;
        }
        if (ctx.executor().inEventLoop()) {
            deliver(ctx, message);
            return;
        }
        try {
            ctx.executor().execute(() -> deliver(ctx, message));
        } catch (RejectedExecutionException e) {
            ReferenceCountUtil.release(message); // the server is stopping
        }
    }

    private void deliver(ChannelHandlerContext ctx, RedisMessage message) {
        if (closing || ctx.isRemoved() || !ctx.channel().isActive()) {
            ReferenceCountUtil.release(message);
            return;
        }
        output.add(ctx, message);
        output.writeAndFlush(ctx);
        closeIfOverOutputLimit(ctx, Math.min(maxOutputBytes, SUBSCRIBER_OUTPUT_BYTES));
    }

    /** Disconnects the client if it leaves more than {@code limit} bytes of replies unread. */
    private void closeIfOverOutputLimit(ChannelHandlerContext ctx, long limit) {
        long unsent = unsentBytes(ctx.channel());
        if (unsent > limit && !closing) {
            server.stats.outputBufferClosed.increment();
            LOG.warn("closing {}: {} bytes of replies unread, over the client output buffer limit of {}",
                    ctx.channel().remoteAddress(), unsent, limit);
            closing = true;
            ctx.close();
        }
    }

    /** @return whether this connection must still log in (its requests are held to Redis's unauthenticated limits) */
    boolean unauthenticated() {
        return !session.authenticated;
    }

    /**
     * Defers a request to the end of the event loop's pass, or runs it now: while the connection
     * must still log in (its {@code AUTH} then takes effect before the decoder reads the next
     * request under the smaller limits), and with the requests deferred before it once the pass
     * holds more than its budget ({@link PassFlush#defer}).
     */
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, byte[][] args) {
        if (!ctx.channel().isActive()) {
            return; // decoded after the connection closed
        }
        if (!session.authenticated) {
            run(ctx, args);
            return;
        }
        deferred.add(args);
        if (pass == null) {
            pass = PassFlush.ofCurrentLoop();
        }
        if (!pass.defer(args)) {
            runDeferred(ctx);
        }
    }

    /**
     * Gives the keys of the requests deferred in this pass to the pass's prefetch, if this
     * connection has logged in and its database is open.
     */
    void gatherKeys(PassPrefetch prefetch) {
        if (!deferred.isEmpty() && session.authenticated && !waiting.holds()) {
            FerriteMap<byte[], byte[]> map = server.databases.ifOpen(session.db);
            if (map != null) {
                prefetch.add(map, deferred);
            }
        }
    }

    /**
     * Runs the requests deferred in this pass of the event loop ({@link PassFlush}), in order; the
     * replies go out with {@link #flushAfterPass}. A failure closes the connection.
     */
    void runDeferred() {
        ChannelHandlerContext ctx = flushDue;
        if (ctx == null || ctx.isRemoved()) {
            return;
        }
        try {
            runDeferred(ctx);
        } catch (RuntimeException e) {
            exceptionCaught(ctx, e);
        }
    }

    /** Runs the deferred requests in order; if one throws, the rest are dropped with it (the connection closes). */
    private void runDeferred(ChannelHandlerContext ctx) {
        try {
            for (int i = 0; i < deferred.size(); i++) {
                run(ctx, deferred.get(i));
            }
        } finally {
            deferred.clear();
        }
    }

    /**
     * Runs one request and encodes its reply, or queues it: behind a command waiting for its
     * database, or while the client leaves more replies unread than the channel's high watermark
     * ({@link #backlog}).
     */
    private void run(ChannelHandlerContext ctx, byte[][] args) {
        if (waiting.holds()) {
            waiting.add(args); // behind a command that waits for its database: keep the order
            return;
        }
        if (backlog != null) {
            backlog.add(args);
            return;
        }
        if (!ctx.channel().isWritable() && ctx.channel().isActive() && !closing && !session.quit) {
            // The client does not read: run nothing more for it until it does, read nothing more.
            backlog = new ArrayDeque<>();
            backlog.add(args);
            ctx.channel().config().setAutoRead(false);
            return;
        }
        if (session.quit || closing) {
            return; // QUIT was sent, or this server closes the connection: ignore the rest of the pipeline
        }
        if (args.length == 2 && args[0] == PROTOCOL_ERROR) {
            refuse(ctx, args[1]); // a protocol error queued behind waiting requests, now due
            return;
        }
        RedisMessage reply;
        try {
            if (servedFor == args) {
                reply = servedReply; // a blocking command a write served while it waited
                servedFor = null;
                servedReply = null;
            } else {
                reply = CommandTable.execute(server, session, args);
                server.blocking.serve(); // the clients blocked on lists this command gave elements
            }
        } catch (DatabaseCreating wait) {
            server.stats.commands.decrement(); // counted again when it runs
            waiting.begin(ctx, args, wait.ready, failed -> resume(ctx, failed));
            return;
        } catch (Blocked blocked) {
            server.blocking.serve();
            ctx.channel().closeFuture().addListener(closed -> blocked.ready.complete(null)); // a closed client waits no more
            waiting.begin(ctx, args, blocked.ready, failed -> {
                if (!ctx.channel().isActive()) {
                    waiting.clear(request -> { }); // gone: it must not take an element nobody reads
                    return;
                }
                RedisMessage served = blocked.ready.getNow(null);
                if (served != null) { // a write served it: its reply stands in for running it again
                    servedFor = args;
                    servedReply = served;
                }
                resume(ctx, false);
            });
            return;
        } catch (FerriteException e) {
            server.stats.errorReplies.increment();
            reply = Replies.error("ERR " + String.valueOf(e.getMessage()).replace('\r', ' ').replace('\n', ' '));
        }
        if (reply == Replies.CLOSE_CONNECTION) {
            flushRepliesThenClose(ctx); // the replies of what came before; nothing after runs
            return;
        }
        if (session.silenced() && !PubSubCommands.isSubscriptionCommand(args[0])) {
            ReferenceCountUtil.release(reply); // CLIENT REPLY OFF or SKIP
            if (session.quit) {
                flushRepliesThenClose(ctx);
            }
            return;
        }
        int gathered = output.add(ctx, reply);
        if (session.quit) {
            flushRepliesThenClose(ctx);
            return;
        }
        if (gathered >= ReplyOutput.BATCH_BYTES) {
            output.write(ctx); // a long pipeline: hand over what is ready, flush at the end of the read
            closeIfOverOutputLimit(ctx, maxOutputBytes);
        }
    }

    /**
     * @return about how many bytes of replies wait in the channel, unsent: from its watermarks and
     *         Netty's public counts (exact once it is past the high watermark, where the limit is)
     */
    static long unsentBytes(Channel ch) {
        WriteBufferWaterMark marks = ch.config().getWriteBufferWaterMark();
        return ch.isWritable() ? marks.high() - ch.bytesBeforeUnwritable() : marks.low() + ch.bytesBeforeWritable();
    }

    /**
     * Answers a protocol error after the replies already due and closes the connection, as Redis does.
     *
     * @param message the error's message, one byte per char as {@link RespRequestDecoder} made it
     */
    private void refuse(ChannelHandlerContext ctx, byte[] message) {
        output.add(ctx, new ErrorLine().text("ERR Protocol error: ")
                .text(new String(message, StandardCharsets.ISO_8859_1)).build());
        flushRepliesThenClose(ctx);
    }

    /** Runs the commands that waited for their database, then flushes the replies they gave. */
    private void resume(ChannelHandlerContext ctx, boolean failed) {
        waiting.resume(ctx, failed, inline -> session.createInline = inline, args -> run(ctx, args));
        try {
            flushReplies(ctx); // also when a later command waits again: the earlier ones' replies go now
        } catch (RuntimeException e) {
            exceptionCaught(ctx, e);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        waiting.onWritabilityChanged(ctx);
        if (backlog != null) {
            ctx.channel().config().setAutoRead(false);
            if (ctx.channel().isWritable()) {
                runBacklog(ctx);
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    /**
     * Runs the requests held while the client did not read, in order, until it falls behind again;
     * once all ran, reading resumes.
     */
    private void runBacklog(ChannelHandlerContext ctx) {
        ArrayDeque<byte[][]> held = backlog;
        backlog = null;
        try {
            while (!held.isEmpty()) {
                run(ctx, held.poll());
                if (backlog != null) { // behind again: the rest waits after the one just held
                    backlog.addAll(held);
                    break;
                }
            }
            flushReplies(ctx);
        } catch (RuntimeException e) {
            exceptionCaught(ctx, e);
            return;
        }
        if (backlog == null && !waiting.holds()) {
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        }
    }

    /** The context to flush once the event loop's pass is over ({@link PassFlush}), or null if none is due. */
    private ChannelHandlerContext flushDue;

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (flushDue == null) {
            flushDue = ctx;
            PassFlush.request(this, ctx);
        }
    }

    /**
     * Sends the replies gathered in this pass of the event loop ({@link PassFlush}), if the
     * connection is still there; a failure (a forced write under fsync always) closes the
     * connection, as it did when the flush ran in the read.
     */
    void flushAfterPass() {
        ChannelHandlerContext ctx = flushDue;
        flushDue = null;
        if (ctx == null || ctx.isRemoved()) {
            return;
        }
        try {
            runDeferred(ctx); // none, unless an exception handler deferred more meanwhile
            flushReplies(ctx);
        } catch (RuntimeException e) {
            exceptionCaught(ctx, e);
        }
    }

    /**
     * Requests read before the peer closed still run (their replies go nowhere), as when each ran
     * as it was read: those held for a client that did not read first, then those of this pass.
     */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        try {
            if (backlog != null) {
                ArrayDeque<byte[][]> held = backlog;
                backlog = null;
                held.forEach(args -> run(ctx, args));
            }
            runDeferred(ctx);
        } catch (RuntimeException e) {
            LOG.warn("a request of closed connection {} failed", ctx.channel().remoteAddress(), e);
        } finally {
            PubSubCommands.endAll(server, session);
        }
        super.channelInactive(ctx);
    }

    /** Forces written data under fsync always, then writes and flushes the replies gathered so far. */
    private void flushReplies(ChannelHandlerContext ctx) {
        forceIfDue();
        output.writeAndFlush(ctx);
    }

    /** As {@link #flushReplies}, then closes the connection once the replies are written. */
    private void flushRepliesThenClose(ChannelHandlerContext ctx) {
        closing = true;
        forceIfDue();
        output.writeAndFlushObserved(ctx).addListener(ChannelFutureListener.CLOSE);
    }

    private void forceIfDue() {
        if (server.fsync == FsyncPolicy.ALWAYS && session.dirtyDatabases != 0) {
            forceWritten();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        PubSubCommands.endAll(server, session);
        output.release();
    }

    /** Forces the databases this client wrote to disk before their replies go out (group commit per read). */
    private void forceWritten() {
        int dirty = session.dirtyDatabases;
        session.dirtyDatabases = 0;
        if (dirty != 0) { // the elements before the keys that name them (only if a collection changed since)
            server.databases.collections().force();
        }
        for (int db = 0; db < Databases.COUNT; db++) {
            FerriteMap<byte[], byte[]> map = (dirty & (1 << db)) != 0 ? server.databases.ifOpen(db) : null;
            if (map != null) { // a write command that found no database wrote nothing
                map.pool().force();
            }
        }

    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof RespProtocolException) {
            server.stats.protocolErrors.increment();
            byte[][] refusal = {PROTOCOL_ERROR, cause.getMessage().getBytes(StandardCharsets.ISO_8859_1)};
            if (!deferred.isEmpty()) {
                deferred.add(refusal); // answered after the requests read before the bad bytes, at the pass's end
            } else if (waiting.holds()) {
                // Requests decoded before the bad bytes wait for their database: as Redis, run them
                // and answer them first.
                waiting.add(refusal);
            } else if (!session.quit) { // after QUIT Redis reads nothing more
                refuse(ctx, refusal[1]);
            }
            return;
        }
        LOG.warn("closing connection {} after an unexpected error", ctx.channel().remoteAddress(), cause);
        closing = true;
        ctx.close();
    }
}
