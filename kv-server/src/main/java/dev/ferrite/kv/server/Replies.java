package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** The replies commands give, as Netty's RESP messages, with Redis's exact error strings. */
final class Replies {

    static final RedisMessage OK = new SimpleStringRedisMessage("OK");
    static final RedisMessage PONG = new SimpleStringRedisMessage("PONG");
    static final RedisMessage NIL = FullBulkStringRedisMessage.NULL_INSTANCE;
    static final RedisMessage ZERO = new IntegerRedisMessage(0);
    static final RedisMessage ONE = new IntegerRedisMessage(1);
    static final RedisMessage SYNTAX = error("ERR syntax error");
    static final RedisMessage NOT_INTEGER = error("ERR value is not an integer or out of range");
    static final RedisMessage OVERFLOW = error("ERR increment or decrement would overflow");
    static final RedisMessage DB_RANGE = error("ERR DB index is out of range");
    /**
     * Not a reply: what {@code POST} and {@code Host:} (an HTTP request sent to the RESP port) and
     * {@code SHUTDOWN} return, for the connection to be closed without an answer. Compared by identity.
     */
    static final RedisMessage CLOSE_CONNECTION = new SimpleStringRedisMessage("close the connection");

    private Replies() {
    }

    static RedisMessage error(String text) {
        return new ErrorRedisMessage(text);
    }

    static RedisMessage integer(long v) {
        return v == 0 ? ZERO : v == 1 ? ONE : new IntegerRedisMessage(v);
    }

    /** @return a bulk string reply of these bytes, not copied (the caller no longer changes them); null: nil */
    static RedisMessage bulk(byte[] bytes) {
        return bytes == null ? NIL : new Bulk(bytes);
    }

    /**
     * A bulk string reply over an array that {@link RespWriter} writes as it is: one small object
     * a reply, where Netty's message would hold a buffer wrapping the array.
     */
    record Bulk(byte[] bytes) implements RedisMessage {
    }

    /** @return an array reply of bulk strings over these arrays, not copied (the caller no longer changes them); a null one: nil */
    static RedisMessage bulks(List<byte[]> items) {
        return new Bulks(items);
    }

    /**
     * An array of bulk strings that {@link RespWriter} writes from the arrays: one object a reply,
     * where an array of {@link Bulk}s would be one an element.
     */
    record Bulks(List<byte[]> items) implements RedisMessage {
    }

    static RedisMessage bulk(String text) {
        return bulk(text.getBytes(StandardCharsets.UTF_8));
    }

    static RedisMessage array(List<RedisMessage> items) {
        return new ArrayRedisMessage(items);
    }

    /**
     * Several replies to one request, written one after the other (SUBSCRIBE answers one per
     * channel); inside EXEC's array they count as that many elements.
     */
    record Several(List<RedisMessage> replies) implements RedisMessage {
    }

    /** @return the replies as one reply of a request that gives several; one is given as itself */
    static RedisMessage several(List<RedisMessage> replies) {
        return replies.size() == 1 ? replies.get(0) : new Several(replies);
    }

    static RedisMessage simple(String text) {
        return new SimpleStringRedisMessage(text);
    }

    /** Redis's reply to a command called with the wrong number of arguments. */
    static RedisMessage arity(String command) {
        return error(ARITY_START + command + "' command");
    }

    private static final String ARITY_START = "ERR wrong number of arguments for '";

    /** @return whether the reply is {@link #arity}'s */
    static boolean isArityError(RedisMessage reply) {
        return reply instanceof ErrorRedisMessage e && e.content().startsWith(ARITY_START);
    }

    /** Redis's reply to an expiry that is not positive or overflows, for a command (lower-case name). */
    static RedisMessage invalidExpire(String command) {
        return error("ERR invalid expire time in '" + command + "' command");
    }

    /**
     * Redis 7's reply to a command it does not know, quoting up to its first arguments: the name as
     * {@code %.128s}, then {@code '%.*s' } per argument while the list is under 128 bytes, each
     * argument cut to what the list has left of them (Redis's {@code rejectCommandFormat}: line
     * breaks become spaces, none trimmed).
     */
    static RedisMessage unknown(byte[][] args) {
        ErrorLine list = new ErrorLine();
        for (int i = 1; i < args.length && list.length() < 128; i++) {
            int room = 128 - list.length();
            list.text("'").quote(args[i], room).text("' ");
        }
        return new ErrorLine().text("ERR unknown command '").quote(args[0], 128)
                .text("', with args beginning with: ").append(list).buildUntrimmed();
    }

    /**
     * Redis's reply to an unknown subcommand of a container command.
     *
     * @param container the command's name in capitals, as in "Try CLIENT HELP."
     */
    static RedisMessage unknownSubcommand(byte[] subcommand, String container) {
        return new ErrorLine().text("ERR unknown subcommand '").quote(subcommand, 128)
                .text("'. Try " + container + " HELP.").build();
    }

    /** @return whether a reply is an error (a Netty error message or an {@link ErrorLine}'s) */
    /** @return an error reply's first word ({@code ERR}, {@code WRONGTYPE}...), as Redis's errorstats name it */
    static String errorPrefix(RedisMessage reply) {
        String text = reply instanceof ErrorRedisMessage e ? e.content()
                : new String(((ErrorLine.Reply) reply).line(), StandardCharsets.ISO_8859_1);
        int space = text.indexOf(' ');
        String prefix = space < 0 ? text : text.substring(0, space);
        return prefix.length() > 32 || prefix.isEmpty() ? "ERR" : prefix;
    }

    static boolean isError(RedisMessage reply) {
        return reply instanceof ErrorRedisMessage || reply instanceof ErrorLine.Reply;
    }

    /**
     * A client's bytes as text for an exception's message (UTF-8, no CR or LF, at most {@code max}
     * characters); replies quote them with {@link ErrorLine} instead.
     */
    static String printable(byte[] bytes, int max) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        text = text.replace('\r', ' ').replace('\n', ' ');
        return text.length() > max ? text.substring(0, Math.max(0, max)) : text;
    }
}
