package dev.ferrite.kv.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server against a real {@code redis-server}, the reference its replies must match: the same
 * requests go to both, and every reply must be the same (errors to the letter). The requests: a
 * catalogue of edge cases ({@code redis-edge-cases.txt}: arity, options and their conflicts,
 * overflows, floats, ranges, expiry options); seeded random sequences over a few keys that mix
 * every string, expiry and key command with valid and invalid arguments, one by one and in
 * pipelines, after which the keyspaces must be the same too; KEYS with random glob patterns; and
 * raw bytes (inline commands, malformed frames). Only what Redis leaves open is compared loosely:
 * the order of {@code KEYS} and {@code SCAN}, and a remaining time to live, which may differ by the
 * time between the two calls.
 *
 * <p>Relative expiries in the random sequences are either at most 0 (the key goes at once) or at
 * least 1,000 seconds, so no key expires between the two servers' calls. Run with
 * {@code -Dferrite.test.redisSeeds=N} to try N sequences of each kind instead of 16 (and
 * {@code -Dferrite.test.redisSeedFrom=S} to start at seed S instead of 1).
 */
class RedisDifferentialTest {

    @TempDir
    static Path dir;

    private static ReferencePair servers;

    @BeforeAll
    static void start() throws Exception {
        servers = ReferencePair.start(dir, null);
    }

    @AfterAll
    static void stop() throws Exception {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void edgeCasesAnswerAsRedisDoes() throws Exception {
        List<String> mismatches = new ArrayList<>();
        int lines = 0;
        try (RespClient r = new RespClient(servers.redisPort()); RespClient f = new RespClient(servers.ferritePort());
             BufferedReader catalogue = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                     getClass().getResourceAsStream("redis-edge-cases.txt"), "redis-edge-cases.txt"),
                     StandardCharsets.UTF_8))) {
            r.call("FLUSHALL");
            f.call("FLUSHALL");
            for (String line; (line = catalogue.readLine()) != null; ) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                lines++;
                String[] command = split(line);
                Object expected = normalized(command, r.call(command));
                Object actual = normalized(command, f.call(command));
                if (!sameReply(command, expected, actual)) {
                    mismatches.add(line + "\n    redis:   " + expected + "\n    ferrite: " + actual);
                }
            }
        }
        assertTrue(lines > 200, "the catalogue was read: " + lines + " commands");
        assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + lines + " replies differ from Redis's:\n"
                + String.join("\n", mismatches));
    }

    static LongStream seeds() {
        return ReferencePair.seeds("redis", 16);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomCommandSequencesAnswerAsRedisDoes(long seed) throws Exception {
        Commands commands = new Commands(new Random(seed));
        Deque<String> recent = new ArrayDeque<>();
        try (RespClient r = new RespClient(servers.redisPort()); RespClient f = new RespClient(servers.ferritePort())) {
            r.call("FLUSHALL");
            f.call("FLUSHALL");
            for (int i = 0; i < 2_000; i++) {
                String[] command = commands.next();
                Object expected = normalized(command, call(r, command));
                Object actual = normalized(command, call(f, command));
                recent.addLast(shortened(String.join(" ", quoted(command)) + "  ->  " + expected));
                if (recent.size() > 12) {
                    recent.removeFirst();
                }
                assertTrue(sameReply(command, expected, actual), () -> "seed " + seed + ": Ferrite answered "
                        + shortened(String.valueOf(actual)) + " where Redis answered "
                        + shortened(String.valueOf(expected)) + "; the last commands and Redis's replies:\n"
                        + String.join("\n", recent));
            }
            assertKeyspacesAlike(r, f, "seed " + seed);
        }
    }

    /**
     * The same random commands sent in pipelines of 1 to 64 (the server's pipeline path: keys
     * prefetched before the first command runs, replies gathered per pass), each reply compared
     * with Redis's for the same pipeline.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomPipelinesAnswerAsRedisDoes(long seed) throws Exception {
        Random rng = new Random(-seed);
        Commands commands = new Commands(rng);
        try (RespClient r = new RespClient(servers.redisPort()); RespClient f = new RespClient(servers.ferritePort())) {
            r.call("FLUSHALL");
            f.call("FLUSHALL");
            for (int sent = 0; sent < 2_000; ) {
                List<String[]> pipeline = new ArrayList<>();
                int size = 1 + rng.nextInt(64);
                while (pipeline.size() < size) {
                    String[] command = commands.next();
                    if (!command[0].equals("SCAN*")) { // a whole iteration: not one request
                        pipeline.add(command);
                    }
                }
                for (String[] command : pipeline) {
                    r.send(command);
                }
                List<Object> expected = new ArrayList<>();
                for (String[] command : pipeline) {
                    expected.add(normalized(command, r.read()));
                }
                for (String[] command : pipeline) {
                    f.send(command);
                }
                for (int i = 0; i < pipeline.size(); i++) {
                    String[] command = pipeline.get(i);
                    Object actual = normalized(command, f.read());
                    Object want = expected.get(i);
                    int at = i;
                    assertTrue(sameReply(command, want, actual), () -> "seed " + seed + ", command " + at
                            + " of a pipeline of " + pipeline.size() + " (" + String.join(" ", quoted(command))
                            + "): Ferrite answered " + shortened(String.valueOf(actual)) + " where Redis answered "
                            + shortened(String.valueOf(want)));
                }
                sent += pipeline.size();
            }
            assertKeyspacesAlike(r, f, "pipelines, seed " + seed);
        }
    }

    /**
     * Keyspace notifications: with every class of event on ({@code KEAn}), the same random commands
     * publish the same events in the same order on both servers, read by a subscriber of each up
     * to a marker published after every command (a whole SCAN's expired keys in any order).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomCommandsPublishTheKeyspaceEventsRedisDoes(long seed) throws Exception {
        Commands commands = new Commands(new Random(seed * 31 + 7));
        try (RespClient r = new RespClient(servers.redisPort()); RespClient f = new RespClient(servers.ferritePort());
             RespClient rs = new RespClient(servers.redisPort()); RespClient fs = new RespClient(servers.ferritePort())) {
            listenToKeyspaceEvents(r, f, rs, fs);
            try {
                for (int i = 0; i < 500; i++) {
                    String[] command = commands.next();
                    call(r, command);
                    call(f, command);
                    List<String> expected = eventsOf(r, rs, command);
                    List<String> actual = eventsOf(f, fs, command);
                    assertEquals(expected, actual, "seed " + seed + ", command " + i + ": "
                            + String.join(" ", quoted(command)));
                }
            } finally {
                stopKeyspaceEvents(r, f);
            }
        }
    }

    /**
     * Keyspace notifications of keys that have expired but are still stored (set with a time long
     * past), met by every kind of command: each publishes what Redis publishes, in Redis's order.
     */
    @Test
    void expiredKeysMetByCommandsPublishTheEventsRedisDoes() throws Exception {
        String[] verbs = {"GET e", "INCR e", "INCRBYFLOAT e 1.5", "APPEND e x", "SETRANGE e 2 x", "SETBIT e 3 1",
            "SET e w", "SET e w NX", "SET e w XX", "SET e w GET", "SET e w KEEPTTL", "SETNX e w", "GETSET e w",
            "GETDEL e", "GETEX e PERSIST", "GETEX e EX 100", "MSET e w", "MSETNX e w", "DEL e", "EXISTS e", "TYPE e",
            "TTL e", "PERSIST e", "EXPIRE e 100", "EXPIRE e 100 NX", "RENAME e q", "RENAME a e", "RENAMENX a e",
            "COPY a e", "COPY a e REPLACE", "COPY e q", "MOVE e 1", "MOVE a 1", "STRLEN e", "GETRANGE e 0 1",
            "SCAN* MATCH e", "KEYS e", "EXPIRE e 0", "SET e w PXAT 1", "SETEX e 100 w"};
        try (RespClient r = new RespClient(servers.redisPort()); RespClient f = new RespClient(servers.ferritePort());
             RespClient rs = new RespClient(servers.redisPort()); RespClient fs = new RespClient(servers.ferritePort())) {
            listenToKeyspaceEvents(r, f, rs, fs);
            // Only the commands expire keys here: no active expiry on either side.
            assertEquals("OK", r.call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
            servers.ferrite().expiryReaper().pause(true);
            try {
                for (String verb : verbs) {
                    for (String setup : new String[] {"SET e v PXAT 1", "SET a v", "SELECT 1", "SET e v PXAT 1", "SET a v PXAT 1",
                        "SELECT 0"}) {
                        r.call(split(setup));
                        f.call(split(setup));
                    }
                    eventsOf(r, rs, new String[] {"setup"});
                    eventsOf(f, fs, new String[] {"setup"});
                    String[] command = split(verb);
                    Object expectedReply = call(r, command);
                    Object actualReply = call(f, command);
                    assertEquals(expectedReply, actualReply, verb);
                    assertEquals(eventsOf(r, rs, command), eventsOf(f, fs, command), verb);
                    for (RespClient c : List.of(r, f)) {
                        c.call("FLUSHALL");
                    }
                }
            } finally {
                r.call("DEBUG", "SET-ACTIVE-EXPIRE", "1");
                servers.ferrite().expiryReaper().pause(false);
                stopKeyspaceEvents(r, f);
            }
        }
    }

    /** Empties both servers, turns every keyspace event on and subscribes {@code rs} and {@code fs} to them all. */
    private static void listenToKeyspaceEvents(RespClient r, RespClient f, RespClient rs, RespClient fs)
            throws Exception {
        for (RespClient c : List.of(r, f)) {
            c.call("FLUSHALL");
            assertEquals("OK", c.call("CONFIG", "SET", "notify-keyspace-events", "KEAn"));
        }
        for (RespClient sub : List.of(rs, fs)) {
            assertEquals(List.of("psubscribe", "__key*", 1L), sub.call("PSUBSCRIBE", "__key*"));
        }
    }

    /** Turns keyspace events off on both servers, as the other tests expect them. */
    private static void stopKeyspaceEvents(RespClient r, RespClient f) throws Exception {
        for (RespClient c : List.of(r, f)) {
            c.call("CONFIG", "SET", "notify-keyspace-events", "");
        }
    }

    /** @return the events a subscriber got for the command just run, up to a marker published now */
    private static List<String> eventsOf(RespClient client, RespClient subscriber, String[] command) throws Exception {
        client.call("PUBLISH", "__key-marker__", "end");
        List<String> events = new ArrayList<>();
        while (true) {
            List<?> m = (List<?>) subscriber.read();
            if (m.get(2).equals("__key-marker__")) {
                break;
            }
            events.add(m.get(2) + " " + m.get(3));
        }
        if (command[0].equals("SCAN*")) {
            events.sort(null); // the expired keys a scan met, in each server's own order
        }
        return events;
    }

    /** Every database a sequence used holds the same keys and values on both servers. */
    private static void assertKeyspacesAlike(RespClient r, RespClient f, String what) throws Exception {
        String[] keys = {"KEYS", "*"};
        for (String db : Commands.DATABASES) {
            assertEquals(r.call("SELECT", db), f.call("SELECT", db));
            assertEquals(normalized(keys, r.call(keys)), normalized(keys, f.call(keys)), what + ", db " + db);
            for (String key : Commands.KEYS) {
                assertEquals(r.call("GET", key), f.call("GET", key), what + ", db " + db + ", key " + key);
            }
        }
    }

    /**
     * Sends a command; {@code SCAN*}, {@code HSCAN*}, {@code SSCAN*} and {@code ZSCAN*} (not Redis
     * commands) run a whole iteration with the given options instead and answer the keys (members,
     * field=value or member=score pairs) it returned, sorted, since cursors are each server's own.
     */
    private static Object call(RespClient client, String[] command) throws Exception {
        if (!List.of("SCAN*", "HSCAN*", "SSCAN*", "ZSCAN*").contains(command[0])) {
            return client.call(command);
        }
        boolean hash = command[0].equals("HSCAN*") || command[0].equals("ZSCAN*");
        boolean set = command[0].equals("SSCAN*");
        int fixed = hash || set ? 2 : 1; // the name, and HSCAN's or SSCAN's key
        List<String> found = new ArrayList<>();
        String cursor = "0";
        do {
            String[] scan = new String[command.length + 1];
            scan[0] = command[0].substring(0, command[0].length() - 1);
            if (hash || set) {
                scan[1] = command[1];
            }
            scan[fixed] = cursor;
            System.arraycopy(command, fixed, scan, fixed + 1, command.length - fixed);
            Object reply = client.call(scan);
            if (!(reply instanceof List<?> page)) {
                return reply; // an error
            }
            cursor = (String) page.get(0);
            List<?> items = (List<?>) page.get(1);
            for (int i = 0; i < items.size(); i += hash ? 2 : 1) {
                String item = hash ? items.get(i) + "=" + items.get(i + 1) : (String) items.get(i);
                if (!(hash || set) || !found.contains(item)) { // a collection's scan may return an element twice
                    found.add(item);
                }
            }
        } while (!cursor.equals("0"));
        found.sort(null);
        return found;
    }

    /**
     * KEYS with random glob patterns (stars, question marks, classes with ranges, negation and
     * escapes, unclosed ones) over keys full of the same characters, bytes over 0x7F included.
     */
    @Test
    void keysPatternsMatchAsRedisDoes() throws Exception {
        String[] keys = {"", "a", "b", "ab", "abc", "abd", "aXc", "a*b", "a?b", "a[b", "a]b", "a\\b", "a-b", "a^b",
                "a!b", "]", "[", "-", "^", "\\", "*", "?", "a\u00e9b", "\u00ff", "a]", "[a]", "^a", "a-", "b-a", "zz"};
        String alphabet = "ab*?[]^-\\z\u00e9X";
        Random rng = new Random(42);
        try (RespClient r = new RespClient(servers.redisPort()); RespClient f = new RespClient(servers.ferritePort())) {
            r.call("FLUSHALL");
            f.call("FLUSHALL");
            for (String key : keys) {
                assertEquals(r.call("SET", key, "1"), f.call("SET", key, "1"));
            }
            for (int i = 0; i < 3_000; i++) {
                StringBuilder pattern = new StringBuilder();
                int length = rng.nextInt(7);
                for (int j = 0; j < length; j++) {
                    pattern.append(alphabet.charAt(rng.nextInt(alphabet.length())));
                }
                String[] command = {"KEYS", pattern.toString()};
                assertEquals(normalized(command, r.call(command)), normalized(command, f.call(command)),
                        "KEYS " + pattern);
            }
        }
    }

    /**
     * Requests as raw bytes: inline commands (quoting and escapes as redis-cli and telnet send
     * them), empty lines, and malformed frames that must get Redis's protocol error and a closed
     * connection. Each case is followed by an ECHO, so the comparison covers everything a server
     * answers up to it, or up to the close. Left out, as Ferrite is stricter on purpose: a bulk
     * string not followed by CRLF (Redis skips two bytes unread) and more arguments than the
     * server's limit (Redis takes up to 2^31).
     */
    @Test
    void rawRequestsAnswerAsRedisDoes() throws Exception {
        String[] cases = {"PING\r\n", "ping\n", "  PING   \r\n", "\r\n", "\n", "set raw1 \"b c\"\r\nget raw1\r\n",
                "set raw1 'x y'\r\nget raw1\r\n", "set raw1 \"\\x41\\n\\t\"\r\nget raw1\r\n", "set raw1 \"unbalanced\r\n",
                "set raw1 'unb\r\n", "set raw1 \"b\"c\r\n", "echo \"a\\\"b\"\r\n", "echo 'a\\'b'\r\n", "echo \"\\xZZ\"\r\n",
                "echo ''\r\n", "*1\r\n$4\r\nPING\r\n", "*abc\r\n", "*-1\r\n", "*0\r\n", "*1\r\n:5\r\n",
                "*1\r\n$abc\r\n", "*1\r\n$-1\r\n", "*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n", "*1\r\n$536870913\r\n",
                "*3\r\n$3\r\nSET\r\n$4\r\nraw2\r\n$0\r\n\r\nGET raw2\r\n", "*1\r\n$4\r\nping\r\nping\r\n", "ECHO\r\n",
                "*1\r\n$0\r\n\r\n", "\"\"\r\n", "'' a\r\n", "GET raw3 \r\n", "\tGET\traw3\r\n", "get raw1 raw2\r\n",
                // CLIENT REPLY: silenced replies, and the notices a subscription still gets
                "CLIENT REPLY OFF\r\nSET raw4 1\r\nGET raw4\r\nNOSUCH\r\nCLIENT REPLY ON\r\nGET raw4\r\n",
                "CLIENT REPLY SKIP\r\nGET raw4\r\nPING\r\n", "CLIENT REPLY SKIP\r\nCLIENT REPLY SKIP\r\nPING\r\nPING\r\n",
                "CLIENT REPLY OFF\r\nCLIENT REPLY SKIP\r\nPING\r\nCLIENT REPLY ON\r\nPING\r\n",
                "CLIENT REPLY OFF\r\nSUBSCRIBE rc\r\nPING\r\nUNSUBSCRIBE rc\r\nCLIENT REPLY ON\r\n",
                "CLIENT REPLY maybe\r\nCLIENT REPLY\r\nCLIENT REPLY ON extra\r\n"};
        for (String request : cases) {
            byte[] bytes = request.getBytes(StandardCharsets.ISO_8859_1);
            assertEquals(ReferencePair.exchange(servers.redisPort(), bytes, 10_000),
                    ReferencePair.exchange(servers.ferritePort(), bytes, 10_000), request);
        }
    }

    /**
     * Replies whose order Redis does not promise, sorted: KEYS, HKEYS, HVALS, SMEMBERS, SINTER,
     * SUNION, SDIFF, whole-set SRANDMEMBER and SPOP, and HGETALL, HRANDFIELD ... WITHVALUES and
     * ZRANDMEMBER ... WITHSCORES by pair.
     */
    private static Object normalized(String[] command, Object reply) {
        String name = command[0].toLowerCase();
        if (!(reply instanceof List<?> list)) {
            return reply;
        }
        boolean pairs = name.equals("hgetall") || name.equals("hrandfield") && command.length == 4 || name.equals("zrandmember");
        if (pairs) {
            List<String> sorted = new ArrayList<>();
            for (int i = 0; i + 1 < list.size(); i += 2) {
                sorted.add(list.get(i) + "=" + list.get(i + 1));
            }
            sorted.sort(null);
            return sorted;
        }
        if (List.of("keys", "hkeys", "hvals", "hrandfield", "smembers", "sinter", "sunion", "sdiff", "srandmember")
                .contains(name) || name.equals("spop") && command.length == 3) {
            List<String> sorted = new ArrayList<>();
            for (Object o : list) {
                sorted.add((String) o);
            }
            sorted.sort(null);
            return sorted;
        }
        return reply;
    }

    /** Equal, or, for a remaining time to live, equal within what the time between the calls allows. */
    private static boolean sameReply(String[] command, Object expected, Object actual) {
        String name = command[0].toLowerCase();
        if ((name.equals("ttl") || name.equals("pttl")) && expected instanceof Long e && actual instanceof Long a
                && e >= 0 && a >= 0) {
            return Math.abs(e - a) <= (name.equals("ttl") ? 1 : 1_000);
        }
        return Objects.equals(expected, actual);
    }

    /** Splits a catalogue line at spaces; double quotes group (and may be empty), as redis-cli reads. */
    static String[] split(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder word = null;
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"') {
                    quoted = false;
                } else {
                    word.append(c);
                }
            } else if (c == '"') {
                quoted = true;
                word = word == null ? new StringBuilder() : word;
            } else if (c == ' ') {
                if (word != null) {
                    out.add(word.toString());
                    word = null;
                }
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(c);
            }
        }
        assertTrue(!quoted, "unclosed quote in: " + line);
        if (word != null) {
            out.add(word.toString());
        }
        assertTrue(!out.isEmpty(), "no command in: " + line);
        return out.toArray(new String[0]);
    }

    /** @return the text, cut to 300 characters (values in the sequences reach 200 KB) */
    private static String shortened(String text) {
        return text.length() <= 300 ? text : text.substring(0, 300) + "... (" + text.length() + " characters)";
    }

    private static List<String> quoted(String[] command) {
        List<String> out = new ArrayList<>();
        for (String a : command) {
            out.add(a.isEmpty() || a.contains(" ") ? '"' + a + '"' : a);
        }
        return out;
    }

    /** Random commands over a few keys: every string and expiry command, valid and invalid arguments. */
    private static final class Commands {
        static final String[] KEYS = {"k1", "k2", "k3", "n", "f", "{tag}x", ""};
        /** The databases the sequences SELECT (and invalid indexes). */
        static final String[] DATABASES = {"0", "1", "2"};
        private static final String[] VALUES = {"0", "1", "-1", "10", "abc", "", "9223372036854775807",
                "-9223372036854775808", "3.5", "1e3", " 1", "007", "hello world", "0.1", "-0", "+5", "1.", ".5",
                "inf", "0x1f", "2.5e-3", "-7.25", "18446744073709551616"};
        private static final String[] INTEGERS = {"0", "1", "-1", "5", "100", "-100", "9223372036854775807",
                "-9223372036854775808", "abc", "1.5", "", "2147483648", "-2147483649", "99999999999", "+3", "007",
                "65536", "-70000", "150000"};
        private static final String[] FLOATS = {"0.1", "1.5", "-2.25", "1e2", "abc", "3", "-0.1", "1e-3", "5.0e3",
                "0x10", "inf", "-inf", "1e400", ".5", "+1", "1.", " 1", "1e", "nan", "0.30000000000000004", "1e308",
                "123456789.123456789"};
        /** Relative expiries: at most 0 (the key goes at once), or far enough not to pass during a test. */
        private static final String[] RELATIVE = {"100000", "0", "-5", "abc", "5000000", "9223372036854775807",
                "-9223372036854775808", "1.5", "2000000000"};
        /** Absolute expiries (seconds or milliseconds): long past, or in the year 2100. */
        private static final String[] ABSOLUTE = {"1", "0", "-1", "4102444800", "4102444800000", "abc"};
        /**
         * SET's absolute expiries: none in the past that SET accepts (4102444800000 is the year 2100
         * in milliseconds and later in seconds), since SET stores such a key
         * and each server drops it at a moment of its own (Redis when its expiry cycle samples
         * it), so that DBSIZE would differ for a while.
         */
        private static final String[] SET_ABSOLUTE = {"0", "-1", "4102444800000", "abc", "99999999999999999"};
        private static final String[] SET_OPTIONS = {"NX", "XX", "GET", "EX", "PX", "EXAT", "PXAT", "KEEPTTL",
                "nx", "ex", "get", "FOO"};
        private static final String[][] EXPIRE_OPTIONS = {{}, {}, {}, {"NX"}, {"XX"}, {"GT"}, {"LT"}, {"nx", "xx"},
                {"GT", "LT"}, {"FOO"}, {"xx", "gt"}, {"lt", "lt"}};
        /**
         * The options of a relative EXPIRE: no GT or LT that can hold, since the same relative time
         * given twice compares equal or not depending on whether a millisecond passed in between.
         */
        private static final String[][] RELATIVE_EXPIRE_OPTIONS = {{}, {}, {}, {"NX"}, {"XX"}, {"nx", "xx"},
                {"GT", "LT"}, {"FOO"}, {"nx", "gt"}, {"xx", "xx"}};

        private final Random rng;
        private final List<Supplier<String[]>> generators = new ArrayList<>();

        Commands(Random rng) {
            this.rng = rng;
            add(() -> concat(of("SET", key(), value()), setOptions()));
            add(() -> of("GET", key()));
            add(() -> of("INCR", key()));
            add(() -> of("DECR", key()));
            add(() -> of("INCRBY", key(), pick(INTEGERS)));
            add(() -> of("DECRBY", key(), pick(INTEGERS)));
            add(() -> of("INCRBYFLOAT", key(), pick(FLOATS)));
            add(() -> of("INCRBYFLOAT", key(), pick(FLOATS)));
            add(() -> of("APPEND", key(), value()));
            add(() -> of("STRLEN", key()));
            add(() -> of("GETRANGE", key(), pick(INTEGERS), pick(INTEGERS)));
            add(() -> of("SETRANGE", key(), pick(new String[] {"0", "1", "5", "-1", "abc", "20", "4095", "70000"}),
                    value()));
            add(() -> of("SETNX", key(), value()));
            add(() -> of("SETEX", key(), pick(RELATIVE), value()));
            add(() -> of("PSETEX", key(), pick(RELATIVE), value()));
            add(() -> of("GETSET", key(), value()));
            add(() -> of("GETDEL", key()));
            add(() -> concat(of("GETEX", key()), pick(new String[][] {{}, {"PERSIST"}, {"EX", pick(RELATIVE)},
                    {"PX", pick(RELATIVE)}, {"EXAT", pick(ABSOLUTE)}, {"PXAT", pick(ABSOLUTE)}, {"FOO"}, {"EX"},
                    {"persist", "persist"}, {"EX", "100000", "PERSIST"}})));
            add(() -> concat(of("MGET"), keys(1 + rng.nextInt(4))));
            add(() -> mset("MSET"));
            add(() -> mset("MSETNX"));
            add(() -> concat(of("DEL"), keys(1 + rng.nextInt(3))));
            add(() -> concat(of("UNLINK"), keys(1 + rng.nextInt(3))));
            add(() -> concat(of("EXISTS"), keys(1 + rng.nextInt(3))));
            add(() -> of("TYPE", key()));
            add(() -> concat(of(pick(new String[] {"EXPIRE", "PEXPIRE"}), key(), pick(RELATIVE)),
                    pick(RELATIVE_EXPIRE_OPTIONS)));
            add(() -> concat(of(pick(new String[] {"EXPIREAT", "PEXPIREAT"}), key(), pick(ABSOLUTE)),
                    pick(EXPIRE_OPTIONS)));
            add(() -> of("TTL", key()));
            add(() -> of("PTTL", key()));
            add(() -> of("PERSIST", key()));
            add(() -> of("RENAME", key(), key()));
            add(() -> of("RENAMENX", key(), key()));
            add(() -> of("DBSIZE"));
            add(() -> of("KEYS", pick(new String[] {"*", "k*", "?", "[kn]*", "{tag}*", "*\\**"})));
            add(() -> of("ECHO", value()));
            add(() -> of("SELECT", pick(new String[] {"0", "1", "2", "0", "16", "-1", "abc"})));
            add(() -> concat(of("SCAN*"), pick(new String[][] {{}, {"MATCH", "k*"}, {"COUNT", "1"},
                    {"MATCH", "*", "COUNT", "3"}, {"TYPE", "string"}, {"TYPE", "list"}, {"TYPE", "hash"},
                    {"COUNT", "0"}, {"MATCH"}, {"FOO", "bar"}})));
            // hashes: fields of a few names over the same keys, so types meet (WRONGTYPE both ways)
            add(() -> concat(of(pick(new String[] {"HSET", "HMSET"}), key()), pairs()));
            add(() -> concat(of(pick(new String[] {"HSET", "HMSET"}), key()), pairs()));
            add(() -> of("HSETNX", key(), field(), value()));
            add(() -> of("HGET", key(), field()));
            add(() -> concat(of("HMGET", key()), fields()));
            add(() -> concat(of("HDEL", key()), fields()));
            add(() -> of("HEXISTS", key(), field()));
            add(() -> of("HLEN", key()));
            add(() -> of("HSTRLEN", key(), field()));
            add(() -> of("HINCRBY", key(), field(), pick(INTEGERS)));
            add(() -> of("HINCRBYFLOAT", key(), field(), pick(FLOATS)));
            add(() -> of(pick(new String[] {"HGETALL", "HKEYS", "HVALS"}), key()));
            add(() -> concat(of("HRANDFIELD", key()), pick(new String[][] {{"1000"}, {"1000", "WITHVALUES"}, {"0"},
                    {"abc"}, {"5", "FOO"}, {"-9223372036854775808"}})));
            add(() -> concat(of("HSCAN*", key()), pick(new String[][] {{}, {"MATCH", "f*"}, {"COUNT", "1"}, {"COUNT", "0"},
                    {"FOO", "bar"}})));
            // sets: members of a few names, integers among them (intset)
            add(() -> concat(of("SADD", key()), members()));
            add(() -> concat(of("SADD", key()), members()));
            add(() -> concat(of("SREM", key()), members()));
            add(() -> of("SISMEMBER", key(), member()));
            add(() -> concat(of("SMISMEMBER", key()), members()));
            add(() -> of(pick(new String[] {"SMEMBERS", "SCARD"}), key()));
            add(() -> concat(of("SPOP", key()), pick(new String[][] {{"1000"}, {"0"}, {"-1"}, {"abc"}, {"1", "2"}})));
            add(() -> concat(of("SRANDMEMBER", key()), pick(new String[][] {{"1000"}, {"0"}, {"abc"},
                    {"-9223372036854775808"}, {"1", "2"}})));
            add(() -> of("SMOVE", key(), key(), member()));
            add(() -> concat(of(pick(new String[] {"SINTER", "SUNION", "SDIFF"})), keys(1 + rng.nextInt(3))));
            add(() -> concat(of(pick(new String[] {"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"})), keys(2 + rng.nextInt(3))));
            add(() -> concat(concat(of("SINTERCARD", pick(new String[] {"1", "2", "0", "5", "abc"})), keys(2)),
                    pick(new String[][] {{}, {"LIMIT", "1"}, {"LIMIT", "-1"}, {"FOO"}})));
            add(() -> concat(of("SSCAN*", key()), pick(new String[][] {{}, {"MATCH", "m*"}, {"COUNT", "1"}, {"FOO", "bar"}})));
            // lists: every command is deterministic, so every reply is compared as it is
            add(() -> concat(of(pick(new String[] {"LPUSH", "RPUSH", "LPUSHX", "RPUSHX"}), key()), members()));
            add(() -> concat(of(pick(new String[] {"LPUSH", "RPUSH"}), key()), members()));
            add(() -> concat(of(pick(new String[] {"LPOP", "RPOP"}), key()), pick(new String[][] {{}, {}, {"2"}, {"0"},
                    {"-1"}, {"abc"}, {"1", "2"}})));
            add(() -> of("LLEN", key()));
            add(() -> of("LRANGE", key(), pick(LIST_INDEXES), pick(LIST_INDEXES)));
            add(() -> of("LINDEX", key(), pick(LIST_INDEXES)));
            add(() -> of("LSET", key(), pick(LIST_INDEXES), member()));
            add(() -> of("LREM", key(), pick(new String[] {"0", "1", "-1", "2", "-2", "abc"}), member()));
            add(() -> of("LTRIM", key(), pick(LIST_INDEXES), pick(LIST_INDEXES)));
            add(() -> of("LINSERT", key(), pick(new String[] {"BEFORE", "AFTER", "after", "FOO"}), member(), member()));
            add(() -> concat(of("LPOS", key(), member()), pick(new String[][] {{}, {"RANK", "2"}, {"RANK", "-1"},
                    {"RANK", "0"}, {"COUNT", "0"}, {"COUNT", "2", "RANK", "-2"}, {"MAXLEN", "3"}, {"COUNT", "-1"},
                    {"FOO", "1"}, {"RANK"}})));
            add(() -> of("LMOVE", key(), key(), pick(new String[] {"LEFT", "RIGHT", "left", "UP"}),
                    pick(new String[] {"LEFT", "RIGHT", "right"})));
            add(() -> of("RPOPLPUSH", key(), key()));
            // sorted sets: scores whose text Redis 7.0 (%.17g) and 7.2 (shortest digits) write alike
            add(() -> concat(concat(of("ZADD", key()), pick(ZADD_OPTIONS)), scorePairs()));
            add(() -> concat(of("ZADD", key()), scorePairs()));
            add(() -> of("ZINCRBY", key(), pick(SCORES), member()));
            add(() -> concat(of("ZREM", key()), members()));
            add(() -> of("ZSCORE", key(), member()));
            add(() -> concat(of("ZMSCORE", key()), members()));
            add(() -> of("ZCARD", key()));
            add(() -> of(pick(new String[] {"ZRANK", "ZREVRANK"}), key(), member()));
            add(() -> concat(of("ZRANGE", key(), pick(LIST_INDEXES), pick(LIST_INDEXES)), pick(new String[][] {{},
                    {"WITHSCORES"}, {"REV"}, {"REV", "WITHSCORES"}, {"LIMIT", "0", "1"}})));
            add(() -> concat(of("ZRANGE", key(), pick(SCORE_BOUNDS), pick(SCORE_BOUNDS), "BYSCORE"), pick(new String[][] {
                    {}, {"REV"}, {"LIMIT", "1", "2"}, {"WITHSCORES"}, {"LIMIT", "-1", "2"}, {"REV", "LIMIT", "0", "-1", "WITHSCORES"}})));
            add(() -> concat(of("ZRANGE", key(), pick(LEX_BOUNDS), pick(LEX_BOUNDS), "BYLEX"), pick(new String[][] {{},
                    {"REV"}, {"LIMIT", "1", "1"}, {"WITHSCORES"}})));
            add(() -> concat(of(pick(new String[] {"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"}), key(), pick(SCORE_BOUNDS),
                    pick(SCORE_BOUNDS)), pick(new String[][] {{}, {"WITHSCORES"}, {"LIMIT", "1", "1"}})));
            add(() -> of(pick(new String[] {"ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX"}), key(),
                    pick(LEX_BOUNDS), pick(LEX_BOUNDS)));
            add(() -> of(pick(new String[] {"ZCOUNT", "ZREMRANGEBYSCORE"}), key(), pick(SCORE_BOUNDS), pick(SCORE_BOUNDS)));
            add(() -> of("ZREMRANGEBYRANK", key(), pick(LIST_INDEXES), pick(LIST_INDEXES)));
            add(() -> concat(of("ZRANGESTORE", key(), key(), pick(LIST_INDEXES), pick(LIST_INDEXES)),
                    pick(new String[][] {{}, {"REV"}})));
            add(() -> concat(of(pick(new String[] {"ZPOPMIN", "ZPOPMAX"}), key()), pick(new String[][] {{}, {"2"}, {"0"},
                    {"-1"}, {"abc"}})));
            add(() -> concat(concat(of("ZMPOP", "2"), keys(2)), pick(new String[][] {{"MIN"}, {"MAX", "COUNT", "2"}, {"FOO"}})));
            add(() -> concat(concat(of(pick(new String[] {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}), key(), "2"), keys(2)),
                    pick(new String[][] {{}, {"WEIGHTS", "2", "0.5"}, {"AGGREGATE", "MAX"}, {"AGGREGATE", "MIN"}, {"WEIGHTS", "1"}})));
            add(() -> concat(concat(of(pick(new String[] {"ZUNION", "ZINTER", "ZDIFF"}), "2"), keys(2)),
                    pick(new String[][] {{}, {"WITHSCORES"}, {"AGGREGATE", "MIN", "WITHSCORES"}})));
            add(() -> concat(concat(of("ZINTERCARD", "2"), keys(2)), pick(new String[][] {{}, {"LIMIT", "1"}})));
            add(() -> concat(of("ZSCAN*", key()), pick(new String[][] {{}, {"MATCH", "m*"}, {"COUNT", "1"}})));
            add(() -> of("ZRANDMEMBER", key(), "1000", "WITHSCORES"));
            add(() -> concat(of("COPY", key(), key()), pick(new String[][] {{}, {"REPLACE"}, {"DB", "1"}})));
            add(() -> of("MOVE", key(), pick(DATABASES)));
        }

        private static final String[] FIELDS = {"f1", "f2", "f3", "", "x y", "f1"};
        private static final String[] MEMBERS = {"m1", "m2", "1", "2", "-3", "007", ""};
        private static final String[] LIST_INDEXES = {"0", "1", "-1", "2", "-2", "5", "-100", "100", "abc"};
        private static final String[] SCORES = {"1", "2", "-1", "0", "0.5", "2.5", "-inf", "+inf", "inf", "abc", "nan",
            "1e3", "0x10", "-0.25"};
        private static final String[][] ZADD_OPTIONS = {{}, {"NX"}, {"XX"}, {"GT"}, {"LT"}, {"CH"}, {"INCR"},
            {"XX", "CH"}, {"GT", "CH"}, {"NX", "GT"}, {"INCR", "LT"}, {"xx", "nx"}};
        private static final String[] SCORE_BOUNDS = {"-inf", "+inf", "0", "1", "(1", "2", "(2.5", "abc", "(", "-1", ""};
        private static final String[] LEX_BOUNDS = {"-", "+", "[m1", "(m1", "[2", "(", "[", "abc", "[m2", "(007"};

        /** Score-member pairs; one in ten requests has an odd count. */
        private String[] scorePairs() {
            List<String> out = new ArrayList<>();
            int n = 1 + rng.nextInt(3);
            for (int i = 0; i < n; i++) {
                out.add(pick(SCORES));
                out.add(member());
            }
            if (rng.nextInt(10) == 0) {
                out.add(pick(SCORES));
            }
            return out.toArray(new String[0]);
        }

        private String member() {
            return pick(MEMBERS);
        }

        private String[] members() {
            String[] out = new String[1 + rng.nextInt(3)];
            for (int i = 0; i < out.length; i++) {
                out[i] = member();
            }
            return out;
        }

        private String field() {
            return pick(FIELDS);
        }

        private String[] fields() {
            String[] out = new String[1 + rng.nextInt(3)];
            for (int i = 0; i < out.length; i++) {
                out[i] = field();
            }
            return out;
        }

        /** Field-value pairs; one in ten requests has an odd count. */
        private String[] pairs() {
            List<String> out = new ArrayList<>();
            int n = 1 + rng.nextInt(3);
            for (int i = 0; i < n; i++) {
                out.add(field());
                out.add(value());
            }
            if (rng.nextInt(10) == 0) {
                out.add(field());
            }
            return out.toArray(new String[0]);
        }

        private void add(Supplier<String[]> generator) {
            generators.add(generator);
        }

        String[] next() {
            return generators.get(rng.nextInt(generators.size())).get();
        }

        private String key() {
            return pick(KEYS);
        }

        private String[] keys(int n) {
            String[] out = new String[n];
            for (int i = 0; i < n; i++) {
                out[i] = key();
            }
            return out;
        }

        /** Mostly short values; one in 40 from 1 to 200 KB, so entries of every size class are written. */
        private String value() {
            int kind = rng.nextInt(40);
            if (kind == 0) {
                return Character.toString('a' + rng.nextInt(26)).repeat(1 + rng.nextInt(200_000));
            }
            return kind < 10 ? "x".repeat(rng.nextInt(40)) + rng.nextInt(100) : pick(VALUES);
        }

        private String[] setOptions() {
            List<String> out = new ArrayList<>();
            int n = rng.nextInt(4);
            for (int i = 0; i < n; i++) {
                String o = pick(SET_OPTIONS);
                out.add(o);
                String u = o.toUpperCase();
                if ((u.equals("EX") || u.equals("PX")) && rng.nextInt(10) > 0) {
                    out.add(pick(RELATIVE));
                } else if ((u.equals("EXAT") || u.equals("PXAT")) && rng.nextInt(10) > 0) {
                    out.add(pick(SET_ABSOLUTE));
                }
            }
            return out.toArray(new String[0]);
        }

        private String[] mset(String name) {
            List<String> out = new ArrayList<>(List.of(name));
            int pairs = 1 + rng.nextInt(3);
            for (int i = 0; i < pairs; i++) {
                out.add(key());
                out.add(value());
            }
            if (rng.nextInt(10) == 0) {
                out.add(key()); // an odd count
            }
            return out.toArray(new String[0]);
        }

        private <T> T pick(T[] from) {
            return from[rng.nextInt(from.length)];
        }

        private static String[] of(String... args) {
            return args;
        }

        private static String[] concat(String[] a, String[] b) {
            String[] out = new String[a.length + b.length];
            System.arraycopy(a, 0, out, 0, a.length);
            System.arraycopy(b, 0, out, a.length, b.length);
            return out;
        }
    }
}
