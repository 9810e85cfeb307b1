package dev.ferrite.kv.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random request bytes, sent to the real Redis and to Ferrite alike: inline lines with quotes,
 * escapes and stray blanks, RESP frames with odd counts and lengths, lines of random bytes, frames
 * cut short or with a byte changed, several in one write. Each case goes on a fresh connection,
 * followed by a sentinel {@code ECHO}; what each server sends back until the sentinel's reply (or
 * until it closes the connection) must be the same bytes. Each seed makes 60 cases; run with
 * {@code -Dferrite.test.rawSeeds=N} for N seeds instead of 4 (and {@code -Dferrite.test.rawSeedFrom=S}
 * to start at seed S instead of 1).
 */
class RawFrameFuzzTest {

    @TempDir
    static Path dir;

    private static ReferencePair servers;

    /**
     * How long a server may stay silent before its connection counts as waiting for more bytes
     * (a frame cut short, or a line with a NUL byte): both answer within microseconds otherwise.
     */
    private static final int WAIT_MILLIS = 1_000;
    private static final String[] COMMANDS = {"PING", "ECHO", "SET", "GET", "DEL", "EXISTS", "INCR", "APPEND",
        "MSET", "MGET", "STRLEN", "GETRANGE", "SETRANGE", "TYPE", "TTL", "EXPIRE", "SELECT", "nosuch", "set", "get"};
    private static final String[] WORDS = {"k", "k1", "v", "10", "-1", "0", "EX", "PX", "NX", "XX", "GET", "1e3",
        "9223372036854775807", "", " ", "a b"};

    @BeforeAll
    static void start() throws Exception {
        servers = ReferencePair.start(dir, null);
        // The databases the requests can select (0 and 10) made up front in both servers: a new
        // database takes Ferrite up to a second to create, which would read as waiting.
        for (int port : new int[] {servers.redisPort(), servers.ferritePort()}) {
            try (RespClient c = new RespClient(port)) {
                c.call("SET", "made", "0");
                c.call("SELECT", "10");
                c.call("SET", "made", "10");
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (servers != null) {
            servers.close();
        }
    }

    static LongStream seeds() {
        return ReferencePair.seeds("raw", 4);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomRequestBytesAnswerAsRedisDoes(long seed) throws Exception {
        Random r = new Random(seed);
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            byte[] request = request(r);
            // Both at once: a case where both servers wait for more bytes costs one wait, not two.
            CompletableFuture<String> fromRedis = CompletableFuture.supplyAsync(
                    () -> ReferencePair.exchange(servers.redisPort(), request, WAIT_MILLIS));
            String actual = ReferencePair.exchange(servers.ferritePort(), request, WAIT_MILLIS);
            String expected = fromRedis.join();
            if (!expected.equals(actual)) {
                mismatches.add(printable(request) + "\n    redis:   " + printable(expected.getBytes(StandardCharsets.ISO_8859_1))
                        + "\n    ferrite: " + printable(actual.getBytes(StandardCharsets.ISO_8859_1)));
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " replies differ:\n" + String.join("\n", mismatches));
    }

    private static byte[] request(Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int frames = 1 + r.nextInt(3);
        for (int f = 0; f < frames; f++) {
            int kind = r.nextInt(9);
            byte[] frame = kind < 4 ? inline(r) : kind < 8 ? resp(r) : garbageLine(r);
            if (r.nextInt(5) == 0 && frame.length > 0) {
                frame[r.nextInt(frame.length)] = (byte) "\r\n\"'\\ $*:-0x\t".charAt(r.nextInt(13));
            }
            if (r.nextInt(6) == 0 && frame.length > 1) {
                frame = java.util.Arrays.copyOf(frame, r.nextInt(frame.length));
            }
            out.writeBytes(frame);
        }
        return out.toByteArray();
    }

    private static byte[] inline(Random r) {
        StringBuilder s = new StringBuilder();
        if (r.nextInt(4) == 0) {
            s.append(' ');
        }
        s.append(COMMANDS[r.nextInt(COMMANDS.length)]);
        int args = r.nextInt(4);
        for (int i = 0; i < args; i++) {
            s.append(r.nextInt(5) == 0 ? "\t" : " ");
            String w = WORDS[r.nextInt(WORDS.length)];
            switch (r.nextInt(6)) {
                case 0 -> s.append('"').append(w).append('"');
                case 1 -> s.append('\'').append(w).append('\'');
                case 2 -> s.append('"').append(w).append("\\x4").append((char) ('0' + r.nextInt(10))).append("\\n\"");
                case 3 -> s.append('"').append(w).append("\\\"x\"");
                default -> s.append(w.isEmpty() ? "x" : w.replace(' ', '_'));
            }
        }
        s.append(r.nextInt(4) == 0 ? "\n" : "\r\n");
        return s.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** @return 1 to 24 random bytes (any of 256) and a CRLF: an inline line of garbage */
    private static byte[] garbageLine(Random r) {
        byte[] line = new byte[1 + r.nextInt(24) + 2];
        r.nextBytes(line);
        line[line.length - 2] = '\r';
        line[line.length - 1] = '\n';
        return line;
    }

    private static byte[] resp(Random r) {
        StringBuilder s = new StringBuilder();
        int args = r.nextInt(4) + 1;
        int declared = r.nextInt(8) == 0 ? args + r.nextInt(3) - 1 : args;
        s.append('*').append(r.nextInt(12) == 0 ? "x" : String.valueOf(declared)).append("\r\n");
        for (int i = 0; i < args; i++) {
            String w = i == 0 ? COMMANDS[r.nextInt(COMMANDS.length)] : WORDS[r.nextInt(WORDS.length)];
            int len = w.length();
            if (r.nextInt(10) == 0) {
                len += r.nextInt(3) - 1;
            }
            char prefix = r.nextInt(15) == 0 ? ':' : '$';
            s.append(prefix).append(len).append("\r\n").append(w).append("\r\n");
        }
        return s.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String printable(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        for (byte b : bytes) {
            char c = (char) (b & 0xFF);
            s.append(c == '\r' ? "\\r" : c == '\n' ? "\\n" : c == '\t' ? "\\t" : c < 32 || c > 126 ? String.format("\\x%02x", (int) c) : String.valueOf(c));
        }
        return s.toString();
    }
}
