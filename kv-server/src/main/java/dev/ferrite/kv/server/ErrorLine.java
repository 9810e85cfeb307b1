package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Builds an error reply that quotes a client's bytes the way Redis's {@code addReplyErrorFormat}
 * does: each quoted argument as C's {@code %.Ns} prints it (its bytes up to the first NUL, at
 * most N of them, raw), CR and LF trimmed from both ends of the finished line and every other CR
 * or LF turned into a space, so that the line cannot break the reply stream ({@link #buildUntrimmed}
 * leaves the ends, as Redis's {@code rejectCommandFormat} does). The bytes go back as they came,
 * not through a charset (an {@code 0xFF} byte stays one {@code 0xFF} byte). Not thread-safe; one
 * per reply.
 */
final class ErrorLine {

    /** No bound on a quoted argument: Redis's plain {@code %s}. */
    static final int WHOLE = Integer.MAX_VALUE;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);

    /**
     * Appends text, one byte per char: ASCII, or a client's bytes carried as chars 0 to 255
     * (as {@link RespRequestDecoder}'s messages carry them).
     *
     * @return this builder
     */
    ErrorLine text(String text) {
        bytes.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
        return this;
    }

    /**
     * Appends a client's bytes as {@code %.Ns} prints them.
     *
     * @param quoted the client's bytes
     * @param max    the most bytes to append (N), at least 0, or {@link #WHOLE}
     * @return this builder
     */
    ErrorLine quote(byte[] quoted, int max) {
        int n = 0;
        while (n < quoted.length && n < max && quoted[n] != 0) {
            n++;
        }
        bytes.write(quoted, 0, n);
        return this;
    }

    /** Appends what another builder holds. @return this builder */
    ErrorLine append(ErrorLine other) {
        bytes.writeBytes(other.bytes.toByteArray());
        return this;
    }

    /** @return the bytes appended so far */
    int length() {
        return bytes.size();
    }

    /** @return the error reply: the line with CR and LF trimmed from its ends, the others made spaces */
    RedisMessage build() {
        byte[] line = bytes.toByteArray();
        int from = 0;
        int to = line.length;
        while (from < to && isLineBreak(line[from])) {
            from++;
        }
        while (to > from && isLineBreak(line[to - 1])) {
            to--;
        }
        return spaced(Arrays.copyOfRange(line, from, to));
    }

    /** @return the error reply: the line with every CR and LF made a space */
    RedisMessage buildUntrimmed() {
        return spaced(bytes.toByteArray());
    }

    private static RedisMessage spaced(byte[] line) {
        for (int i = 0; i < line.length; i++) {
            if (isLineBreak(line[i])) {
                line[i] = ' ';
            }
        }
        return new Reply(line);
    }

    private static boolean isLineBreak(byte b) {
        return b == '\r' || b == '\n';
    }

    /**
     * An error reply held as bytes ({@link RespWriter} writes {@code -}, the line and CRLF).
     *
     * @param line the error's text without the leading {@code -} and the CRLF; no CR or LF in it
     */
    record Reply(byte[] line) implements RedisMessage {
    }
}
