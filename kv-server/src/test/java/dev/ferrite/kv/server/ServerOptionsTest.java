package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runnable server's flags and config file, checked on a started server through CONFIG GET. */
class ServerOptionsTest {

    @TempDir
    Path dir;

    @Test
    void aConfigFileSetsWhatFlagsDoNotAndFlagsWin() throws Exception {
        Path conf = dir.resolve("ferrite.conf");
        Files.writeString(conf, String.join("\n",
                "# Ferrite KV server settings, redis.conf style",
                "port 1",
                "http-port -1",
                "data \"" + dir.resolve("data") + "\"",
                "maxclients 77",
                "timeout 300",
                "appendfsync always",
                "proto-max-bulk-len 4096",
                ""));
        try (KvServer server = ServerOptions.parse(new String[] {"--config", conf.toString(), "--port", "0"}).start();
             RespClient c = new RespClient(server.port())) {
            assertEquals(-1, server.httpPort());
            assertEquals(List.of("maxclients", "77"), c.call("CONFIG", "GET", "maxclients"));
            assertEquals(List.of("timeout", "300"), c.call("CONFIG", "GET", "timeout"));
            assertEquals(List.of("appendfsync", "always"), c.call("CONFIG", "GET", "appendfsync"));
            assertEquals("OK", c.call("SET", "k", "v"), "a write under fsync always");
            assertEquals("v", c.call("GET", "k"));
            Object tooLong = c.call("SET", "k", "x".repeat(5000));
            assertTrue(tooLong instanceof RespClient.Err e && e.text().contains("Protocol error"), String.valueOf(tooLong));
            assertTrue(Files.exists(ServerFixture.databaseFile(dir.resolve("data"), 0)));
        }
    }

    @Test
    void theRunnableDefaultsServeHttpOn8080AndBadSettingsAreNamed() throws Exception {
        assertEquals(8080, ServerOptions.DEFAULT_HTTP_PORT);
        FerriteException unknown = assertThrows(FerriteException.class, () -> ServerOptions.parse(new String[] {"--nope", "1"}));
        assertEquals("unknown flag --nope", unknown.getMessage());
        FerriteException missing = assertThrows(FerriteException.class, () -> ServerOptions.parse(new String[] {"--port"}));
        assertEquals("missing value after --port", missing.getMessage());
        FerriteException notNumber = assertThrows(FerriteException.class,
                () -> ServerOptions.parse(new String[] {"--maxclients", "many"}));
        assertEquals("maxclients 'many' is not a whole number", notNumber.getMessage());
        FerriteException fsync = assertThrows(FerriteException.class, () -> ServerOptions.parse(new String[] {"--fsync", "sometimes"}));
        assertEquals("fsync policy 'sometimes' must be always, everysec or no", fsync.getMessage());
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, "port 6390\nsave 900 1\n");
        FerriteException line = assertThrows(FerriteException.class,
                () -> ServerOptions.parse(new String[] {"--config", conf.toString()}));
        assertEquals(conf + " line 2: unknown setting 'save'", line.getMessage());
    }

    @Test
    void helpListsEveryFlagWithItsDefault() {
        String help = ServerOptions.help();
        for (String name : ServerOptions.NAMES) {
            assertTrue(help.contains("--" + name + " "), name + " in\n" + help);
        }
        assertTrue(help.contains("--busy-poll") && help.contains("(default: " + KvServerBuilder.DEFAULT_BUSY_POLL_MICROS + ")"));
        assertEquals(ServerOptions.NAMES.size(), help.lines().filter(l -> l.startsWith("  --")).count());
    }
}
