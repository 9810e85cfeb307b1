package dev.ferrite.kv.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ByteProcessor;

import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Splits a client's bytes into requests, each a {@code byte[][]} of arguments (the command name
 * first): RESP arrays of bulk strings ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) and inline commands
 * ({@code PING\r\n}, as telnet and {@code redis-benchmark}'s PING_INLINE send them), pipelined or
 * not, in any fragmentation. Follows Redis's own request parser ({@code processMultibulkBuffer},
 * {@code processInlineBuffer}): its error messages, its limits (see {@link ServerLimits}), and an
 * empty array or blank line is no request. Byte for byte as Redis reads: a count or length line
 * ends at its first CR, whatever byte follows it; the two bytes after a bulk string's data are
 * skipped unread; a line that has a NUL byte before its end is never complete (Redis looks for the
 * end with {@code strchr}), so such a request waits until it is too long; numbers are read as
 * {@code string2ll} reads them (no leading zero, no plus sign). While a connection must still log
 * in, an array may declare at most 10 arguments and a bulk string at most 16,384 bytes (Redis's
 * "unauthenticated" limits), and requests are decoded one at a time, so that an {@code AUTH}
 * takes effect before the next request is read.
 *
 * <p>A declared length is checked against its limit before a byte of the data is waited for, so a
 * client announcing 2 GiB is refused at once and memory stays bounded. A bulk string of
 * {@value #STREAM_MIN_BYTES} bytes or more is copied into its argument as its bytes arrive, so it is
 * held once, not in the read buffer and again in the argument; what a connection's unfinished
 * request holds counts against all clients' limit ({@link RequestMemory}), checked before an
 * argument is allocated: a request that does not fit closes its connection. Not thread-safe: one
 * per channel.
 */
final class RespRequestDecoder extends ByteToMessageDecoder {

    private static final byte[][] NO_ARGS = new byte[0][];
    /** Redis's {@code INT_MAX} bound on an array's declared count. */
    private static final long MAX_COUNT = Integer.MAX_VALUE;
    /** Redis's bound on an array's declared count while the connection must still log in. */
    private static final int UNAUTHENTICATED_MAX_COUNT = 10;
    /** Redis's bound on a bulk string's declared length while the connection must still log in. */
    private static final int UNAUTHENTICATED_MAX_BULK = 16384;
    /** Stops at the CR that ends a count or length line, or at a NUL (where Redis's {@code strchr} stops). */
    private static final ByteProcessor FIND_CR_OR_NUL = b -> b != '\r' && b != 0;
    /** Stops at the LF that ends an inline line, or at a NUL. */
    private static final ByteProcessor FIND_LF_OR_NUL = b -> b != '\n' && b != 0;

    /** Bulk strings this long or longer are copied into their argument as they arrive. */
    static final int STREAM_MIN_BYTES = 16 << 10;

    private final ServerLimits limits;
    private final BooleanSupplier unauthenticated;
    /** All clients' unfinished requests, or null for no bound. */
    private final RequestMemory memory;
    /** Bytes this connection's unfinished request holds, as counted in {@link #memory}. */
    private long held;
    /** A long bulk string being filled as its bytes arrive, or null. */
    private byte[] partial;
    private int partialFilled;
    /** Arguments of the array being read (grown as they arrive, not to the declared count at once). */
    private byte[][] args;
    private int argsRead;
    private int declared;
    private long requestBytes;
    private boolean failed;

    /** @param limits the bounds requests must keep; the connection needs no login */
    RespRequestDecoder(ServerLimits limits) {
        this(limits, () -> false, null);
    }

    /**
     * @param limits          the bounds requests must keep
     * @param unauthenticated whether the connection must still log in before its commands run
     */
    RespRequestDecoder(ServerLimits limits, BooleanSupplier unauthenticated) {
        this(limits, unauthenticated, null);
    }

    /**
     * @param limits          the bounds requests must keep
     * @param unauthenticated whether the connection must still log in before its commands run
     * @param memory          all clients' unfinished requests, or null for no bound
     */
    RespRequestDecoder(ServerLimits limits, BooleanSupplier unauthenticated, RequestMemory memory) {
        this.limits = limits;
        this.unauthenticated = unauthenticated;
        this.memory = memory;
    }

    /** Thrown where a request's memory does not fit the clients' limit. */
    private static final class Evicted extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final long wanted;

        Evicted(long wanted) {
            super(null, null, false, false);
            this.wanted = wanted;
        }
    }

    /**
     * Counts what the unfinished request holds now.
     *
     * @throws Evicted if it does not fit
     */
    private void hold(long bytes) {
        if (memory != null && bytes != held) {
            if (!memory.change(held, bytes)) {
                throw new Evicted(bytes);
            }
            held = bytes;
        }
    }

    /** @return what the unfinished request holds: its arguments so far, a long one being filled, unread bytes */
    private long holding(ByteBuf in) {
        return (args != null ? requestBytes : 0) + (partial != null ? partial.length : 0) + in.readableBytes();
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (memory != null) {
            memory.change(held, 0);
        }
        held = 0;
        partial = null;
        args = null;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes()); // the connection is being closed: read nothing more
            return;
        }
        try {
            decodeRequests(in, out);
            hold(holding(in));
        } catch (RespProtocolException e) {
            dropAll(in);
            throw e;
        } catch (Evicted e) {
            dropAll(in);
            memory.evicted(ctx.channel().remoteAddress(), e.wanted);
            ctx.close();
        }
    }

    /** Reads nothing more: the connection is being closed. */
    private void dropAll(ByteBuf in) {
        failed = true;
        args = null;
        partial = null;
        in.skipBytes(in.readableBytes());
        if (memory != null) {
            memory.change(held, 0);
        }
        held = 0;
    }

    private void decodeRequests(ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            byte[][] request = args != null || in.getByte(in.readerIndex()) == '*' ? readArray(in) : readInline(in);
            if (request == null) {
                break; // incomplete: wait for more bytes
            }
            if (request.length > 0) {
                out.add(request);
                if (unauthenticated.getAsBoolean()) {
                    break; // run it (an AUTH, perhaps) before the next one is read under its limits
                }
            }
        }
    }

    /** @return the request, an empty one for "*0" or "*-1", or null if more bytes are needed */
    private byte[][] readArray(ByteBuf in) {
        if (args == null) {
            int cr = lineEnd(in, "too big mbulk count string");
            if (cr < 0) {
                return null;
            }
            long count = parseNumber(in, in.readerIndex() + 1, cr, "invalid multibulk length");
            if (count > MAX_COUNT) {
                throw new RespProtocolException("invalid multibulk length");
            }
            if (count > UNAUTHENTICATED_MAX_COUNT && unauthenticated.getAsBoolean()) {
                throw new RespProtocolException("unauthenticated multibulk length");
            }
            if (count > limits.maxArguments()) {
                throw new RespProtocolException("invalid multibulk length");
            }
            in.readerIndex(cr + 2);
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
        if (partial != null) {
            return fillPartial(in);
        }
        if (!in.isReadable()) {
            return null;
        }
        int cr = lineEnd(in, "too big bulk count string");
        if (cr < 0) {
            return null;
        }
        int start = in.readerIndex();
        byte first = in.getByte(start);
        if (first != '$') {
            // The byte as it came, one char per byte: the error line writes it back as that byte.
            throw new RespProtocolException("expected '$', got '" + (char) (first & 0xFF) + "'");
        }
        long length = parseNumber(in, start + 1, cr, "invalid bulk length");
        if (length < 0 || length > limits.maxBulkBytes()) {
            throw new RespProtocolException("invalid bulk length");
        }
        if (length > UNAUTHENTICATED_MAX_BULK && unauthenticated.getAsBoolean()) {
            throw new RespProtocolException("unauthenticated bulk length");
        }
        int dataStart = cr + 2;
        if (in.writerIndex() - dataStart < length + 2) {
            if (length < STREAM_MIN_BYTES) {
                return null;
            }
            // A long one: hold it once, in its argument, filled as its bytes arrive.
            hold(requestBytes + length + in.writerIndex() - dataStart);
            in.readerIndex(dataStart);
            partial = new byte[(int) length];
            partialFilled = 0;
            return fillPartial(in);
        }
        byte[] data = new byte[(int) length];
        in.getBytes(dataStart, data);
        in.readerIndex(dataStart + (int) length + 2); // the two bytes after the data are not looked at
        return data;
    }

    /** @return the long bulk string being filled, once it and the two bytes after it are in, else null */
    private byte[] fillPartial(ByteBuf in) {
        int n = Math.min(in.readableBytes(), partial.length - partialFilled);
        in.readBytes(partial, partialFilled, n);
        partialFilled += n;
        if (partialFilled < partial.length || in.readableBytes() < 2) {
            return null;
        }
        in.skipBytes(2); // the two bytes after the data are not looked at
        byte[] done = partial;
        partial = null;
        return done;
    }

    /** @return an inline request's arguments, or null if its line is not complete */
    private byte[][] readInline(ByteBuf in) {
        int start = in.readerIndex();
        int lf = in.forEachByte(FIND_LF_OR_NUL);
        if (lf < 0 || in.getByte(lf) == 0) {
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

    /**
     * Finds the end of the count or length line at the reader index as Redis does: its first CR,
     * with one more byte (any) after it.
     *
     * @param tooBig the error when no CR is in sight and more than an inline line's bytes wait
     * @return the index of the CR, or -1 if more bytes are needed
     */
    private int lineEnd(ByteBuf in, String tooBig) {
        int cr = in.forEachByte(FIND_CR_OR_NUL);
        if (cr < 0 || in.getByte(cr) == 0) {
            if (in.readableBytes() > limits.maxInlineBytes()) {
                throw new RespProtocolException(tooBig);
            }
            return -1;
        }
        return cr + 1 < in.writerIndex() ? cr : -1;
    }

    /**
     * Parses the decimal integer in [from, to) as Redis's {@code string2ll} does: an optional minus,
     * then digits with no leading zero ("0" alone excepted, "-0" refused).
     */
    private static long parseNumber(ByteBuf in, int from, int to, String error) {
        int length = to - from;
        if (length < 1 || length > 20) {
            throw new RespProtocolException(error);
        }
        boolean negative = in.getByte(from) == '-';
        int i = negative ? from + 1 : from;
        if (i == to || in.getByte(i) == '0' && (to - i > 1 || negative)) {
            throw new RespProtocolException(error);
        }
        long v = 0; // accumulated negatively, so that Long.MIN_VALUE parses
        for (; i < to; i++) {
            int d = in.getByte(i) - '0';
            if (d < 0 || d > 9 || v < (Long.MIN_VALUE + d) / 10) {
                throw new RespProtocolException(error);
            }
            v = v * 10 - d;
        }
        if (!negative && v == Long.MIN_VALUE) {
            throw new RespProtocolException(error);
        }
        return negative ? v : -v;
    }
}
