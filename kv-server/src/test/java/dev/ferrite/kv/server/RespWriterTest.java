package dev.ferrite.kv.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The bytes {@link RespWriter} writes for the bulk replies Ferrite makes itself ({@link Replies.Bulk}, {@link Replies.Bulks}), and for counts and integers. */
class RespWriterTest {

    private static String written(io.netty.handler.codec.redis.RedisMessage reply) {
        ByteBuf out = Unpooled.buffer();
        try {
            RespWriter.write(reply, out);
            return out.toString(StandardCharsets.ISO_8859_1);
        } finally {
            out.release();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void anArrayOfBulksIsWrittenAsAnArrayOfBulkStrings() {
        assertEquals("*0\r\n", written(Replies.bulks(List.of())));
        assertEquals("*3\r\n$1\r\na\r\n$0\r\n\r\n$-1\r\n", written(Replies.bulks(Arrays.asList(bytes("a"), bytes(""), null))));
        List<byte[]> many = new ArrayList<>();
        StringBuilder expected = new StringBuilder("*12\r\n");
        for (int i = 0; i < 12; i++) {
            String v = "v\r\n" + i; // bulk strings are binary-safe: a CRLF inside is data
            many.add(bytes(v));
            expected.append('$').append(v.length()).append("\r\n").append(v).append("\r\n");
        }
        assertEquals(expected.toString(), written(Replies.bulks(many)));
    }

    @Test
    void anArrayOfBulksWritesWhatAnArrayOfBulkRepliesWrites() {
        List<io.netty.handler.codec.redis.RedisMessage> each = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        for (String v : new String[] {"x", "", "hello world", "\u00ff\u0000"}) {
            each.add(Replies.bulk(bytes(v)));
            values.add(bytes(v));
        }
        assertEquals(written(Replies.array(each)), written(Replies.bulks(values)));
        assertEquals("$2\r\nab\r\n", written(Replies.bulk(bytes("ab"))));
        assertEquals("$-1\r\n", written(Replies.bulk((byte[]) null)));
    }

    @Test
    void countsAndIntegersAreWrittenAsTheirDecimalDigits() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        List<Long> values = new ArrayList<>(List.of(0L, 9L, 10L, 99_999L, 100_000L, -1L, -100_000L,
                Integer.MAX_VALUE + 1L, Long.MAX_VALUE, Long.MIN_VALUE));
        for (int i = 0; i < 2_000; i++) {
            values.add(random.nextLong(-1_000_000, 1_000_000));
            values.add(random.nextLong() >> random.nextInt(64));
        }
        for (long v : values) {
            ByteBuf out = Unpooled.buffer(4); // grows: a head near the end of the capacity
            try {
                out.writeByte('#');
                RespWriter.writeHead(out, ':', v);
                out.writeByte('.');
                assertEquals("#:" + v + "\r\n.", out.toString(StandardCharsets.ISO_8859_1), "value " + v);
            } finally {
                out.release();
            }
            assertEquals(":" + v + "\r\n", written(new io.netty.handler.codec.redis.IntegerRedisMessage(v)));
        }
        byte[] big = new byte[123_456];
        assertEquals("$123456\r\n", written(Replies.bulk(big)).substring(0, 9));
    }
}
