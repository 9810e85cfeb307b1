package dev.ferrite.kv.server;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;

/**
 * Netty's request decoder, but a request that has both {@code Content-Length} and
 * {@code Transfer-Encoding: chunked} fails instead of having its {@code Content-Length} dropped:
 * two framings are the mark of request smuggling, and RFC 9112 (6.3) lets a server refuse them.
 * {@link HttpApi} answers a failed request 400 and closes the connection. One per connection.
 */
final class StrictHttpRequestDecoder extends HttpRequestDecoder {

    StrictHttpRequestDecoder(int maxInitialLineLength, int maxHeaderSize, int maxChunkSize) {
        super(new HttpDecoderConfig().setMaxInitialLineLength(maxInitialLineLength).setMaxHeaderSize(maxHeaderSize)
                .setMaxChunkSize(maxChunkSize));
    }

    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
        super.handleTransferEncodingChunkedWithContentLength(message);
        message.setDecoderResult(DecoderResult.failure(new IllegalArgumentException(
                "the request has both Content-Length and Transfer-Encoding (RFC 9112, 6.3)")));
    }
}
