package dev.ferrite.kv.server;

import dev.ferrite.kv.server.RespClient.Err;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where commands' keys are ({@link CommandTable.Keys}), and a pass's requests warmed by {@link PassPrefetch}. */
class PassPrefetchTest extends ServerFixture {

    private static List<String> keysOf(String... request) {
        byte[][] args = Arrays.stream(request).map(s -> s.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        CommandTable.Keys where = CommandTable.lookup(args[0]).keys();
        List<String> keys = new ArrayList<>();
        if (where != null) {
            for (int i = 0, a = where.first(); i < where.count(args); i++, a += where.step()) {
                keys.add(request[a]);
            }
        }
        return keys;
    }

    @Test
    void eachCommandNamesItsKeysAsRedisSpecifiesThem() {
        assertEquals(List.of("k"), keysOf("GET", "k"));
        assertEquals(List.of("k"), keysOf("set", "k", "v", "EX", "10"));
        assertEquals(List.of("a", "b"), keysOf("MSET", "a", "1", "b", "2"));
        assertEquals(List.of("a", "b", "c"), keysOf("MGET", "a", "b", "c"));
        assertEquals(List.of("a", "b", "c"), keysOf("DEL", "a", "b", "c"));
        assertEquals(List.of("old", "new"), keysOf("RENAME", "old", "new"));
        assertEquals(List.of("k"), keysOf("EXPIRE", "k", "10"));
        assertEquals(List.of(), keysOf("PING"));
        assertEquals(List.of(), keysOf("SCAN", "0", "MATCH", "k*"));
        assertEquals(List.of(), keysOf("SELECT", "1"));
        for (CommandTable.Command c : CommandTable.all()) {
            if (c.keys() != null) {
                assertTrue(c.keys().first() >= 1 && c.keys().step() >= 1, c.name());
            }
        }
    }

    @Test
    void oneWriteOfRequestsAcrossLoginAndDatabasesIsAnsweredInOrder() throws Exception {
        startServer(b -> b.requirePassword("pw"));
        try (RespClient c = new RespClient(server.port())) {
            // One write: GET and AUTH run as they are read, the rest at the pass's end (warmed in db 0, after SELECT).
            String[][] requests = {{"GET", "a"}, {"AUTH", "pw"}, {"MSET", "a", "1", "b", "2"}, {"MGET", "a", "b", "zz"},
                {"SELECT", "3"}, {"GET", "a"}, {"SET", "a", "three"}, {"INCR", "n"}, {"GET", "a"}, {"SELECT", "0"},
                {"GET", "b"}};
            StringBuilder pipeline = new StringBuilder();
            for (String[] r : requests) {
                pipeline.append(new String(RespClient.encode(r), StandardCharsets.UTF_8));
            }
            c.sendRaw(pipeline.toString());
            assertTrue(c.read() instanceof Err);
            assertEquals("OK", c.read());
            assertEquals("OK", c.read());
            assertEquals(Arrays.asList("1", "2", null), c.read());
            assertEquals("OK", c.read());
            assertNull(c.read());
            assertEquals("OK", c.read());
            assertEquals(1L, c.read());
            assertEquals("three", c.read());
            assertEquals("OK", c.read());
            assertEquals("2", c.read());
        }
    }
}
