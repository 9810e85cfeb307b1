package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

/**
 * Thrown where a command meets a key holding another type than the one it works on; the command
 * has changed nothing, and its reply is Redis's {@code WRONGTYPE} error ({@link #REPLY}).
 */
final class WrongType extends RuntimeException {

    /** Redis's reply. */
    static final RedisMessage REPLY = Replies.error("WRONGTYPE Operation against a key holding the wrong kind of value");

    private static final long serialVersionUID = 1L;

    WrongType() {
        super("WRONGTYPE", null, false, false);
    }
}
