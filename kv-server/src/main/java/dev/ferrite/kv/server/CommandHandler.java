package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.redis.RedisMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each decoded request of one connection in order and writes its reply; replies of a pipeline
 * are flushed together when the read completes. A protocol error is answered with
 * {@code -ERR Protocol error: ...} and the connection closed, as Redis does; a failing command
 * (a full pool, say) gets {@code -ERR} with the reason and the connection stays.
 */
final class CommandHandler extends SimpleChannelInboundHandler<byte[][]> {

    private static final Logger LOG = LoggerFactory.getLogger(CommandHandler.class);

    private final Commands commands;
    private final ClientSession session = new ClientSession();

    CommandHandler(Commands commands) {
        this.commands = commands;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, byte[][] args) {
        if (session.quit) {
            return; // QUIT was sent: ignore what follows it in the pipeline
        }
        RedisMessage reply;
        try {
            reply = commands.execute(session, args);
        } catch (FerriteException e) {
            reply = Replies.error("ERR " + String.valueOf(e.getMessage()).replace('\r', ' ').replace('\n', ' '));
        }
        if (session.quit) {
            ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.write(reply);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof RespProtocolException) {
            ctx.writeAndFlush(Replies.error("ERR Protocol error: " + cause.getMessage()))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        LOG.warn("closing connection {} after an unexpected error", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }
}
