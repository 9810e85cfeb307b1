package dev.ferrite.kv.server;

import io.netty.handler.codec.DecoderException;

/**
 * A request that breaks the Redis protocol or a server limit. The client gets
 * {@code -ERR Protocol error: <message>} and its connection is closed, as Redis does; other
 * clients and the data are not affected. A {@link DecoderException}, so Netty passes it on as it is.
 */
final class RespProtocolException extends DecoderException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message Redis's wording where Redis has one (for instance "invalid bulk length"),
     *                without the "Protocol error: " prefix
     */
    RespProtocolException(String message) {
        super(message);
    }
}
