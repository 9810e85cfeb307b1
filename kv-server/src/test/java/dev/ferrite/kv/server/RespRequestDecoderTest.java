package dev.ferrite.kv.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Request framing, whatever the fragmentation, against the requests that were encoded. */
class RespRequestDecoderTest {

    private static List<String[]> decode(byte[] bytes, Random cuts) {
        EmbeddedChannel ch = new EmbeddedChannel(new RespRequestDecoder(ServerLimits.DEFAULTS));
        int i = 0;
        while (i < bytes.length) {
            int n = Math.min(bytes.length - i, 1 + cuts.nextInt(7));
            ch.writeInbound(Unpooled.wrappedBuffer(bytes, i, n));
            i += n;
        }
        List<String[]> out = new ArrayList<>();
        byte[][] request;
        while ((request = ch.readInbound()) != null) {
            String[] args = new String[request.length];
            for (int a = 0; a < args.length; a++) {
                args[a] = new String(request[a], StandardCharsets.UTF_8);
            }
            out.add(args);
        }
        ch.finishAndReleaseAll();
        return out;
    }

    @Test
    void randomPipelinesSurviveAnyFragmentation() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            List<String[]> sent = new ArrayList<>();
            StringBuilder wire = new StringBuilder();
            int requests = 1 + random.nextInt(20);
            for (int r = 0; r < requests; r++) {
                String[] args = new String[1 + random.nextInt(5)];
                for (int a = 0; a < args.length; a++) {
                    StringBuilder arg = new StringBuilder();
                    int len = random.nextInt(40);
                    for (int k = 0; k < len; k++) {
                        arg.append((char) (random.nextBoolean() ? 'a' + random.nextInt(26) : "\r\n $*\"'\\".charAt(random.nextInt(8))));
                    }
                    args[a] = arg.toString();
                }
                sent.add(args);
                wire.append(new String(RespClient.encode(args), StandardCharsets.UTF_8));
                if (random.nextInt(5) == 0) {
                    wire.append("*0\r\n"); // an empty array is no request
                }
            }
            List<String[]> got = decode(wire.toString().getBytes(StandardCharsets.UTF_8), random);
            assertEquals(sent.size(), got.size(), "round " + round);
            for (int r = 0; r < sent.size(); r++) {
                assertArrayEquals(sent.get(r), got.get(r), "round " + round + " request " + r);
            }
        }
    }

    @Test
    void inlineCommandsSplitAsRedisSplitsThem() {
        List<String[]> got = decode(("PING\r\n\r\n  set  k   v \n"
                + "SET \"a b\\x41\\n\" 'it\\'s'\r\n").getBytes(StandardCharsets.UTF_8), new Random(1));
        assertEquals(3, got.size());
        assertArrayEquals(new String[] {"PING"}, got.get(0));
        assertArrayEquals(new String[] {"set", "k", "v"}, got.get(1));
        assertArrayEquals(new String[] {"SET", "a bA\n", "it's"}, got.get(2));
        assertNull(InlineArgs.split("\"closing quote\"followed".getBytes(StandardCharsets.UTF_8)));
        assertNull(InlineArgs.split("'open".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void limitsAreCheckedBeforeTheDataArrives() {
        ServerLimits small = new ServerLimits(10, 3, 64, 20);
        EmbeddedChannel ch = new EmbeddedChannel(new RespRequestDecoder(small));
        RespProtocolException e = assertThrows(RespProtocolException.class,
                () -> ch.writeInbound(Unpooled.copiedBuffer("*1\r\n$11\r\n", StandardCharsets.US_ASCII)));
        assertEquals("invalid bulk length", e.getMessage());
        EmbeddedChannel ch2 = new EmbeddedChannel(new RespRequestDecoder(small));
        e = assertThrows(RespProtocolException.class,
                () -> ch2.writeInbound(Unpooled.copiedBuffer("*4\r\n", StandardCharsets.US_ASCII)));
        assertEquals("invalid multibulk length", e.getMessage());
        EmbeddedChannel ch3 = new EmbeddedChannel(new RespRequestDecoder(small));
        e = assertThrows(RespProtocolException.class, () -> ch3.writeInbound(Unpooled.copiedBuffer(
                "*3\r\n$10\r\n0123456789\r\n$10\r\n0123456789\r\n$1\r\nx\r\n", StandardCharsets.US_ASCII)));
        assertEquals("request of more than 20 bytes", e.getMessage());
    }
}
