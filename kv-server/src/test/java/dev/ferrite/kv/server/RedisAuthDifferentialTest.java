package dev.ferrite.kv.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Logging in, compared with a real {@code redis-server} that requires the same password: what a
 * client gets before AUTH (unknown commands and wrong argument counts are answered as such, the
 * rest with NOAUTH), AUTH and HELLO ... AUTH with wrong and right passwords, with and without a user
 * name, and what works afterwards. Each sequence runs on a fresh connection to each server.
 */
class RedisAuthDifferentialTest {

    private static final String PASSWORD = "s3cret pass";

    @TempDir
    static Path dir;

    private static ReferencePair servers;

    @BeforeAll
    static void start() throws Exception {
        servers = ReferencePair.start(dir, PASSWORD);
    }

    @AfterAll
    static void stop() throws Exception {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void loggingInAnswersAsRedisDoes() throws Exception {
        String[][][] sequences = {
                {{"GET", "a"}, {"PING"}, {"ECHO", "x"}, {"SELECT", "1"}, {"CLIENT", "ID"}, {"AUTH"}, {"AUTH", "wrong"},
                        {"AUTH", "default", "wrong"}, {"AUTH", PASSWORD}, {"SET", "a", "1"}, {"GET", "a"}, {"PING"}},
                {{"HELLO"}, {"HELLO", "2", "AUTH", "default", "wrong"}, {"HELLO", "2", "AUTH", "default"},
                        {"HELLO", "2", "SETNAME", "x"}, {"HELLO", "4"}, {"HELLO", "abc"}, {"HELLO", "2", "FOO"},
                        {"CLIENT", "GETNAME"}},
                {{"GET"}, {"GET", "a", "b"}, {"NOSUCH", "a"}, {"SET", "a"}, {"MSET", "a"}, {"AUTH", "a", "b", "c"}},
                {{"AUTH", "user", PASSWORD}, {"AUTH", "DEFAULT", PASSWORD}, {"GET", "a"}},
                {{"AUTH", PASSWORD.toUpperCase()}, {"AUTH", PASSWORD, "extra"}, {"QUIT", "x"}},
                {{"AUTH", ""}, {"AUTH", PASSWORD + " "}, {"DBSIZE"}},
        };
        for (String[][] sequence : sequences) {
            try (RespClient r = new RespClient(servers.redisPort()); RespClient f = new RespClient(servers.ferritePort())) {
                List<String> done = new ArrayList<>();
                for (String[] command : sequence) {
                    done.add(String.join(" ", command));
                    assertEquals(r.call(command), f.call(command), "after " + done);
                }
            }
        }
    }
}
