package dev.ferrite.kv.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;

/**
 * First handler of every connection: refuses a connection over {@code maxclients} with Redis's
 * error, closes one idle longer than the timeout, stops reading from a client that does not read
 * its replies (backpressure at the write-buffer high-water mark) and counts connections and bytes.
 * One instance per connection.
 */
final class ConnectionGuard extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
    private static final byte[] TOO_MANY = "-ERR max number of clients reached\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerStats stats;
    private final int maxClients;
    private boolean counted;

    ConnectionGuard(ServerStats stats, int maxClients) {
        this.stats = stats;
        this.maxClients = maxClients;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        stats.connectionsReceived.increment();
        if (stats.connectedClients.incrementAndGet() > maxClients) {
            stats.connectedClients.decrementAndGet();
            stats.rejectedConnections.increment();
            ctx.channel().config().setAutoRead(false);
            ctx.writeAndFlush(Unpooled.wrappedBuffer(TOO_MANY)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        counted = true;
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (counted) {
            counted = false;
            stats.connectedClients.decrementAndGet();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!counted) {
            if (msg instanceof ByteBuf b) {
                b.release(); // a refused connection: nothing it sends is read
            }
            return;
        }
        if (msg instanceof ByteBuf b) {
            stats.bytesIn.add(b.readableBytes());
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof ByteBuf b) {
            stats.bytesOut.add(b.readableBytes());
        }
        super.write(ctx, msg, promise);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        // Backpressure: read no more requests while the client leaves its replies unread.
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            stats.idleClosed.increment();
            LOG.debug("closing {}: idle longer than the timeout", ctx.channel().remoteAddress());
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }
}
