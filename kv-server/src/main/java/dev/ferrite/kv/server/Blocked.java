package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.concurrent.CompletableFuture;

/**
 * Thrown by a blocking command (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH) that found nothing to take: it
 * changed nothing, and its connection waits, with the requests that came after it, until
 * {@link #ready} completes: with its reply (a write served it) or empty (its timeout came: it runs
 * again and answers nil). A
 * control signal, not an error: no stack trace.
 */
final class Blocked extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Completes with the command's reply when a write served it, or with null when it should run
     * again (its timeout came: it answers nil then).
     */
    final transient CompletableFuture<RedisMessage> ready;

    Blocked(CompletableFuture<RedisMessage> ready) {
        super("blocked", null, false, false);
        this.ready = ready;
    }
}
