package dev.ferrite.kv.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.TimeUnit;

/**
 * Ends an HTTP connection after a final response (a refusal, 413) so that the client gets to read
 * it: closing a socket that still has unread request bytes makes the kernel send a reset, which
 * can destroy the response before the client reads it. So the response is flushed, the sending
 * side shut, and what the client still sends is read and dropped until it closes or
 * {@link #LINGER_MILLIS} pass, whichever is first (Apache's "lingering close"). Stateless.
 */
final class LingeringClose {

    /** The longest a refused client may go on sending before its connection is closed anyway. */
    static final long LINGER_MILLIS = 2_000;

    private LingeringClose() {
    }

    /** Writes the response, then closes the connection as the class says. Call on the channel's event loop. */
    static void respondAndClose(ChannelHandlerContext ctx, Object response) {
        Channel ch = ctx.channel();
        ctx.writeAndFlush(response).addListener(written -> {
            if (!written.isSuccess() || !(ch instanceof DuplexChannel duplex) || !ch.isActive()) {
                ch.close();
                return;
            }
            ch.pipeline().addFirst(new Drop());
            duplex.shutdownOutput();
            ch.eventLoop().schedule(() -> ch.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
            ch.config().setAutoRead(true);
        });
    }

    /** First in the pipeline of a closing connection: drops what is read, keeps reading on. */
    private static final class Drop extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.channel().config().setAutoRead(true); // whatever a handler behind decided
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            // the sending side is shut: nothing to hold back
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
