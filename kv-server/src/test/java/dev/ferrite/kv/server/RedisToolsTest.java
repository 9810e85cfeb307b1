package dev.ferrite.kv.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's own tools against the server: a scripted {@code redis-cli} session (which prints an
 * empty line after an error reply when its output is not a terminal) and a
 * {@code redis-benchmark} run (pipelined, every command it sends checked afterwards). Both come from
 * Debian's {@code redis-tools}, which {@code .ci/run} installs; in CI a missing tool fails the test,
 * elsewhere it is skipped with a message.
 */
class RedisToolsTest extends ServerFixture {

    @BeforeEach
    void start() {
        startServer();
    }

    private static String tool(String name) {
        return ExternalTools.require(name, "redis-tools");
    }

    private static List<String> run(Path stdin, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (stdin != null) {
            pb.redirectInput(stdin.toFile());
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " finished");
        assertEquals(0, p.exitValue(), String.join(" ", command) + " exit code; output:\n" + out);
        List<String> lines = new ArrayList<>();
        for (String line : out.split("\n")) {
            lines.add(line);
        }
        return lines;
    }

    @Test
    void aScriptedRedisCliSession(@TempDir Path dir) throws Exception {
        String cli = tool("redis-cli");
        Path script = dir.resolve("session.txt");
        Files.writeString(script, String.join("\n",
                "SET a 1", "INCR a", "GET a", "GET missing", "MGET a missing", "TTL a", "EXPIRE a 100", "TTL a",
                "NOPE x", "SET \"b c\" \"d e\"", "GET \"b c\"", "DEL a \"b c\"", "DBSIZE", "PING") + "\n");
        List<String> out = run(script, cli, "-p", Integer.toString(server.port()));
        assertEquals(List.of("OK", "2", "2", "", "2", "", "-1", "1", "100",
                "ERR unknown command 'NOPE', with args beginning with: 'x' ", "", "OK", "d e", "2", "0", "PONG"), out);
    }

    @Test
    void redisBenchmarkRunsPipelinedAndItsWritesAreThere() throws Exception {
        String benchmark = tool("redis-benchmark");
        String cli = tool("redis-cli");
        String port = Integer.toString(server.port());
        List<String> out = run(null, benchmark, "-p", port, "-t", "ping,set,get,incr,mset", "-n", "2000", "-P", "16",
                "-c", "10", "-q");
        String all = String.join("\n", out);
        for (String test : List.of("PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "MSET")) {
            assertTrue(all.contains(test + ": ") || all.contains(test + " (10 keys): "),
                    test + " ran; output:\n" + all);
        }
        assertEquals(List.of("3"), run(null, cli, "-p", port, "STRLEN", "key:__rand_int__"),
                "the SETs stored redis-benchmark's 3-byte value");
        assertEquals(List.of("2000"), run(null, cli, "-p", port, "GET", "counter:__rand_int__"),
                "2,000 INCRs from 10 pipelined connections, none lost");
    }
}
