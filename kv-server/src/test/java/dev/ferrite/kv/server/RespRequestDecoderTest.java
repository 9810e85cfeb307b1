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

    @Test
    void framingFollowsRedisByteForByte() {
        // A count or length line ends at its first CR; the two bytes after a bulk string's data
        // are skipped unread (the "b\r" here), the LF left over is a blank inline line.
        List<String[]> got = decode("*2\r\n$4\r\nECHO\r\n$1\r\nab\r\n*1\r\n$4\rxPING\r\n"
                .getBytes(StandardCharsets.ISO_8859_1), new Random(3));
        assertEquals(2, got.size());
        assertArrayEquals(new String[] {"ECHO", "a"}, got.get(0));
        assertArrayEquals(new String[] {"PING"}, got.get(1));
        assertEquals(0, decode("*-9223372036854775808\r\n".getBytes(StandardCharsets.ISO_8859_1), new Random(4)).size());
        // Numbers as string2ll reads them, and the byte that is not '$' carried as it came.
        assertEquals("invalid multibulk length", refusal(ServerLimits.DEFAULTS, false, "*01\r\n"));
        assertEquals("invalid multibulk length", refusal(ServerLimits.DEFAULTS, false, "*2147483648\r\n"));
        assertEquals("invalid bulk length", refusal(ServerLimits.DEFAULTS, false, "*1\r\n$01\r\n"));
        assertEquals("invalid bulk length", refusal(ServerLimits.DEFAULTS, false, "*1\r\n$-0\r\n"));
        assertEquals("invalid bulk length", refusal(ServerLimits.DEFAULTS, false, "*1\r\n$5hello\r\n"));
        assertEquals("expected '$', got '\u00ff'", refusal(ServerLimits.DEFAULTS, false, "*1\r\n\u00ff\r\n"));
    }

    @Test
    void aLineWithANulByteWaitsUntilItIsTooLong() {
        ServerLimits small = new ServerLimits(10, 3, 64, 20);
        EmbeddedChannel ch = new EmbeddedChannel(new RespRequestDecoder(small));
        ch.writeInbound(Unpooled.copiedBuffer("GET a\u0000b\r\n*1\r\n$4\r\nPING\r\n", StandardCharsets.ISO_8859_1));
        assertNull(ch.readInbound(), "Redis finds a line's end with strchr, which stops at the NUL");
        assertEquals("too big inline request", refusal(small, false, "GET a\u0000" + "x".repeat(70) + "\r\n"));
        assertEquals("too big bulk count string",
                refusal(small, false, "*1\r\n$4\u0000" + "x".repeat(70) + "\r\n"));
    }

    @Test
    void aConnectionThatMustLogInHasRedisSmallerLimitsAndItsRequestsAreReadOneByOne() {
        assertEquals("unauthenticated multibulk length", refusal(ServerLimits.DEFAULTS, true, "*11\r\n"));
        assertEquals("unauthenticated bulk length", refusal(ServerLimits.DEFAULTS, true, "*1\r\n$16385\r\n"));
        // An AUTH is run before the next request of the same read is decoded: its limits no longer apply.
        boolean[] loggedIn = {false};
        EmbeddedChannel ch = new EmbeddedChannel(new RespRequestDecoder(ServerLimits.DEFAULTS, () -> !loggedIn[0]),
                new io.netty.channel.ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                        if (new String(((byte[][]) msg)[0], StandardCharsets.US_ASCII).equals("AUTH")) {
                            loggedIn[0] = true;
                        }
                        ctx.fireChannelRead(msg);
                    }
                });
        String[] eleven = new String[11];
        java.util.Arrays.fill(eleven, "x");
        byte[] wire = (new String(RespClient.encode("AUTH", "pw"), StandardCharsets.US_ASCII)
                + new String(RespClient.encode(eleven), StandardCharsets.US_ASCII)).getBytes(StandardCharsets.US_ASCII);
        ch.writeInbound(Unpooled.wrappedBuffer(wire));
        assertEquals(2, ((byte[][]) ch.readInbound()).length);
        assertEquals(11, ((byte[][]) ch.readInbound()).length);
    }

    /** @return the message of the protocol error the bytes cause, one char per byte */
    private static String refusal(ServerLimits limits, boolean unauthenticated, String wire) {
        EmbeddedChannel ch = new EmbeddedChannel(new RespRequestDecoder(limits, () -> unauthenticated));
        return assertThrows(RespProtocolException.class,
                () -> ch.writeInbound(Unpooled.copiedBuffer(wire, StandardCharsets.ISO_8859_1))).getMessage();
    }
}
