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

    /** CR and LF as one big-endian short. */
    private static final int CRLF_SHORT = '\r' << 8 | '\n';
    /** Counts below this have a head of at most 8 bytes: type, 5 digits, CRLF. */
    private static final long ONE_WORD_COUNTS = 100_000;
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
            writeHead(out, '*', bulks.items().size());
            for (byte[] b : bulks.items()) {
                writeBulk(b, out);
            }
        } else if (reply instanceof FullBulkStringRedisMessage bulk) {
            if (bulk.isNull()) {
                out.writeBytes(NIL_BULK);
                return;
            }
            ByteBuf content = bulk.content();
            writeHead(out, '$', content.readableBytes());
            out.writeBytes(content, content.readerIndex(), content.readableBytes());
            out.writeShort(CRLF_SHORT);
        } else if (reply instanceof SimpleStringRedisMessage simple) {
            out.writeByte('+');
            out.writeCharSequence(simple.content(), StandardCharsets.UTF_8);
            out.writeShort(CRLF_SHORT);
        } else if (reply instanceof ErrorRedisMessage error) {
            out.writeByte('-');
            out.writeCharSequence(error.content(), StandardCharsets.UTF_8);
            out.writeShort(CRLF_SHORT);
        } else if (reply instanceof IntegerRedisMessage integer) {
            writeHead(out, ':', integer.value());
        } else if (reply instanceof ArrayRedisMessage array) {
            if (array.isNull()) {
                out.writeBytes(NIL_ARRAY);
                return;
            }
            writeHead(out, '*', array.children().size());
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
            out.writeShort(CRLF_SHORT);
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
        writeHead(out, '$', b.length);
        out.writeBytes(b);
        out.writeShort(CRLF_SHORT);
    }

    /**
     * Writes a type byte, a count's digits and CRLF ({@code "$100\r\n"}); a count below
     * {@link #ONE_WORD_COUNTS} as one 8-byte store, the rest of the word overwritten by what follows.
     */
    static void writeHead(ByteBuf out, char type, long count) {
        if (count < 0 || count >= ONE_WORD_COUNTS) {
            out.writeByte(type);
            writeLong(out, count);
            out.writeShort(CRLF_SHORT);
            return;
        }
        long digits = 0;
        int n = 0;
        do {
            digits |= ('0' + count % 10) << (8 * n);
            count /= 10;
            n++;
        } while (count > 0);
        int bytes = n + 3; // at most 8
        long word = ((long) type << (8 * n) | digits) << 16 | CRLF_SHORT;
        int at = out.writerIndex();
        out.writeLong(word << (8 * (8 - bytes)));
        out.writerIndex(at + bytes);
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
