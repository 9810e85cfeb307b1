package dev.ferrite.kv.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Gathers a request's body up to a limit, as Netty's aggregator; a body over it is answered 413
 * and the connection closed, keep-alive or not (Netty keeps a keep-alive connection open and
 * drops the body's bytes as they come, which a client can keep sending forever). One per connection.
 */
final class ClosingHttpAggregator extends HttpObjectAggregator {

    private final ServerStats stats;

    /** @param maxContentLength most bytes of a request's body */
    ClosingHttpAggregator(int maxContentLength, ServerStats stats) {
        super(maxContentLength);
        this.stats = stats;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        stats.httpResponses[4].increment();
        FullHttpResponse tooLarge = HttpApi.error(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "the body is longer than " + maxContentLength() + " bytes, the server's proto-max-bulk-len");
        HttpUtil.setContentLength(tooLarge, tooLarge.content().readableBytes());
        tooLarge.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        LingeringClose.respondAndClose(ctx, tooLarge);
    }
}
