package dev.ferrite.kv.server;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;

/**
 * Encodes replies as RESP2 straight into one buffer, so a pipeline's replies leave in one write:
 * simple strings, errors, integers, bulk strings (nil included) and arrays (nested, nil included).
 * Netty's {@code RedisEncoder} makes three buffers and a promise per bulk reply; this makes none.
 * Stateless.
 */
final class RespWriter {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] NIL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NIL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);

    private RespWriter() {
    }

    /** Appends {@code reply} to {@code out} and releases the reply's buffers. */
    static void write(RedisMessage reply, ByteBuf out) {
        try {
            encode(reply, out);
        } finally {
            ReferenceCountUtil.release(reply);
        }
    }

    private static void encode(RedisMessage reply, ByteBuf out) {
        if (reply instanceof Replies.Bulk bulk) {
            writeBulk(bulk.bytes(), out);
        } else if (reply instanceof Replies.Bulks bulks) {
            out.writeByte('*');
            writeLong(out, bulks.items().size());
            out.writeBytes(CRLF);
            for (byte[] b : bulks.items()) {
                writeBulk(b, out);
            }
        } else if (reply instanceof FullBulkStringRedisMessage bulk) {
            if (bulk.isNull()) {
                out.writeBytes(NIL_BULK);
                return;
            }
            ByteBuf content = bulk.content();
            out.writeByte('$');
            writeLong(out, content.readableBytes());
            out.writeBytes(CRLF);
            out.writeBytes(content, content.readerIndex(), content.readableBytes());
            out.writeBytes(CRLF);
        } else if (reply instanceof SimpleStringRedisMessage simple) {
            out.writeByte('+');
            out.writeCharSequence(simple.content(), StandardCharsets.UTF_8);
            out.writeBytes(CRLF);
        } else if (reply instanceof ErrorRedisMessage error) {
            out.writeByte('-');
            out.writeCharSequence(error.content(), StandardCharsets.UTF_8);
            out.writeBytes(CRLF);
        } else if (reply instanceof IntegerRedisMessage integer) {
            out.writeByte(':');
            writeLong(out, integer.value());
            out.writeBytes(CRLF);
        } else if (reply instanceof ArrayRedisMessage array) {
            if (array.isNull()) {
                out.writeBytes(NIL_ARRAY);
                return;
            }
            out.writeByte('*');
            writeLong(out, array.children().size());
            out.writeBytes(CRLF);
            for (RedisMessage child : array.children()) {
                encode(child, out);
            }
        } else if (reply instanceof Replies.Several several) {
            for (RedisMessage each : several.replies()) {
                try {
                    encode(each, out);
                } finally {
                    ReferenceCountUtil.release(each);
                }
            }
        } else if (reply instanceof ErrorLine.Reply quoting) {
            out.writeByte('-');
            out.writeBytes(quoting.line());
            out.writeBytes(CRLF);
        } else {
            throw new IllegalArgumentException("no RESP2 encoding for " + reply.getClass().getName());
        }
    }

    /** Writes a bulk string, or nil for null. */
    private static void writeBulk(byte[] b, ByteBuf out) {
        if (b == null) {
            out.writeBytes(NIL_BULK);
            return;
        }
        out.writeByte('$');
        writeLong(out, b.length);
        out.writeBytes(CRLF);
        out.writeBytes(b);
        out.writeBytes(CRLF);
    }

    /** Writes a long's decimal digits without making a String. */
    static void writeLong(ByteBuf out, long v) {
        if (v == Long.MIN_VALUE) {
            out.writeCharSequence("-9223372036854775808", StandardCharsets.US_ASCII);
            return;
        }
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        if (v < 10) {
            out.writeByte('0' + (int) v);
            return;
        }
        int digits = 1;
        for (long t = v / 10; t > 0; t /= 10) {
            digits++;
        }
        int at = out.writerIndex() + digits;
        out.ensureWritable(digits);
        for (int i = 1; i <= digits; i++) {
            out.setByte(at - i, '0' + (int) (v % 10));
            v /= 10;
        }
        out.writerIndex(at);
    }
}
