package dev.ferrite.kv.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.Arrays;
import java.util.List;

/**
 * Splits a client's bytes into requests, each a {@code byte[][]} of arguments (the command name
 * first): RESP arrays of bulk strings ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) and inline commands
 * ({@code PING\r\n}, as telnet and {@code redis-benchmark}'s PING_INLINE send them), pipelined or
 * not, in any fragmentation. Follows Redis's own request parser ({@code processMultibulkBuffer},
 * {@code processInlineBuffer}): its error messages, its limits (see {@link ServerLimits}), and an
 * empty array or blank line is no request.
 *
 * <p>A declared length is checked against its limit before a byte of the data is waited for, so a
 * client announcing 2 GiB is refused at once and memory stays bounded. Not thread-safe: one per
 * channel.
 */
final class RespRequestDecoder extends ByteToMessageDecoder {

    private static final byte[][] NO_ARGS = new byte[0][];

    private final ServerLimits limits;
    private final java.util.function.Consumer<List<Object>> pipeline;
    /** Arguments of the array being read (grown as they arrive, not to the declared count at once). */
    private byte[][] args;
    private int argsRead;
    private int declared;
    private long requestBytes;
    private boolean failed;

    /** @param limits the bounds requests must keep */
    RespRequestDecoder(ServerLimits limits) {
        this(limits, requests -> { });
    }

    /**
     * @param limits   the bounds requests must keep
     * @param pipeline called with the requests decoded from one read before any of them is passed
     *                 on (each a {@code byte[][]}), to prepare for them: {@link PipelinePrefetch}
     */
    RespRequestDecoder(ServerLimits limits, java.util.function.Consumer<List<Object>> pipeline) {
        this.limits = limits;
        this.pipeline = pipeline;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes()); // the connection is being closed: read nothing more
            return;
        }
        try {
            decodeRequests(in, out);
        } catch (RespProtocolException e) {
            failed = true;
            args = null;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private void decodeRequests(ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            byte[][] request = args != null || in.getByte(in.readerIndex()) == '*' ? readArray(in) : readInline(in);
            if (request == null) {
                break; // incomplete: wait for more bytes
            }
            if (request.length > 0) {
                out.add(request);
            }
        }
        pipeline.accept(out);
    }

    /** @return the request, an empty one for "*0" or "*-1", or null if more bytes are needed */
    private byte[][] readArray(ByteBuf in) {
        if (args == null) {
            int eol = findCrLf(in, in.readerIndex() + 1);
            if (eol < 0) {
                if (in.readableBytes() > limits.maxInlineBytes()) {
                    throw new RespProtocolException("too big mbulk count string");
                }
                return null;
            }
            long count = parseNumber(in, in.readerIndex() + 1, eol, "invalid multibulk length");
            if (count > limits.maxArguments()) {
                throw new RespProtocolException("invalid multibulk length");
            }
            in.readerIndex(eol + 2);
            if (count <= 0) {
                return NO_ARGS;
            }
            declared = (int) count;
            args = new byte[Math.min(declared, 16)][];
            argsRead = 0;
            requestBytes = 0;
        }
        while (argsRead < declared) {
            byte[] arg = readBulk(in);
            if (arg == null) {
                return null;
            }
            requestBytes += arg.length;
            if (requestBytes > limits.maxRequestBytes()) {
                throw new RespProtocolException("request of more than " + limits.maxRequestBytes() + " bytes");
            }
            if (argsRead == args.length) {
                args = Arrays.copyOf(args, (int) Math.min(declared, 2L * args.length));
            }
            args[argsRead++] = arg;
        }
        byte[][] done = args;
        args = null;
        return done;
    }

    /** @return one bulk string's bytes, or null if more bytes are needed (nothing consumed then) */
    private byte[] readBulk(ByteBuf in) {
        if (!in.isReadable()) {
            return null;
        }
        int start = in.readerIndex();
        byte first = in.getByte(start);
        if (first != '$') {
            throw new RespProtocolException("expected '$', got '" + (char) (first & 0xFF) + "'");
        }
        int eol = findCrLf(in, start + 1);
        if (eol < 0) {
            if (in.readableBytes() > limits.maxInlineBytes()) {
                throw new RespProtocolException("too big bulk count string");
            }
            return null;
        }
        long length = parseNumber(in, start + 1, eol, "invalid bulk length");
        if (length < 0 || length > limits.maxBulkBytes()) {
            throw new RespProtocolException("invalid bulk length");
        }
        int dataStart = eol + 2;
        long needed = dataStart - start + length + 2;
        if (in.readableBytes() < needed) {
            return null;
        }
        int dataEnd = dataStart + (int) length;
        if (in.getByte(dataEnd) != '\r' || in.getByte(dataEnd + 1) != '\n') {
            throw new RespProtocolException("bulk string of " + length + " bytes is not followed by CRLF");
        }
        byte[] data = new byte[(int) length];
        in.getBytes(dataStart, data);
        in.readerIndex(dataEnd + 2);
        return data;
    }

    /** @return an inline request's arguments, or null if its line is not complete */
    private byte[][] readInline(ByteBuf in) {
        int start = in.readerIndex();
        int lf = in.indexOf(start, in.writerIndex(), (byte) '\n');
        if (lf < 0) {
            if (in.readableBytes() > limits.maxInlineBytes()) {
                throw new RespProtocolException("too big inline request");
            }
            return null;
        }
        int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
        byte[] line = new byte[end - start];
        in.getBytes(start, line);
        in.readerIndex(lf + 1);
        List<byte[]> split = InlineArgs.split(line);
        if (split == null) {
            throw new RespProtocolException("unbalanced quotes in request");
        }
        if (split.size() > limits.maxArguments()) {
            throw new RespProtocolException("invalid multibulk length");
        }
        return split.toArray(NO_ARGS);
    }

    /** @return the index of the CR of the first CRLF at or after {@code from}, or -1 */
    private static int findCrLf(ByteBuf in, int from) {
        int lf = in.indexOf(from, in.writerIndex(), (byte) '\n');
        if (lf < 0) {
            return -1;
        }
        if (lf == from || in.getByte(lf - 1) != '\r') {
            throw new RespProtocolException("expected CRLF after a length");
        }
        return lf - 1;
    }

    /** Parses the decimal integer in [from, to) as Redis's {@code string2ll} does. */
    private static long parseNumber(ByteBuf in, int from, int to, String error) {
        int length = to - from;
        if (length < 1 || length > 20) {
            throw new RespProtocolException(error);
        }
        boolean negative = in.getByte(from) == '-';
        int i = negative ? from + 1 : from;
        if (i == to) {
            throw new RespProtocolException(error);
        }
        long v = 0;
        for (; i < to; i++) {
            int d = in.getByte(i) - '0';
            if (d < 0 || d > 9 || v > (Long.MAX_VALUE - d) / 10) {
                throw new RespProtocolException(error);
            }
            v = v * 10 + d;
        }
        return negative ? -v : v;
    }
}
