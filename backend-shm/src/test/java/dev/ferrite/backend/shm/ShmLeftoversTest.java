package dev.ferrite.backend.shm;

import dev.ferrite.testkit.ShmLeftovers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The testkit's sweep of shm pools left by test JVMs that died: only dead processes' files go. */
class ShmLeftoversTest {

    @TempDir
    Path dir;

    @Test
    void removesTheTestPoolsOfEndedProcessesOnly() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        long deadPid = ended.pid();
        long livePid = ProcessHandle.current().pid();
        Path dead = Files.write(dir.resolve("ferrite-test-" + deadPid + "-3"), new byte[] {1});
        Path live = Files.write(dir.resolve("ferrite-test-" + livePid + "-1"), new byte[] {1});
        Path other = Files.write(dir.resolve("ferrite-demo"), new byte[] {1});
        Path odd = Files.write(dir.resolve("ferrite-test-notapid-1"), new byte[] {1});

        List<Path> removed = ShmLeftovers.sweep(dir);

        assertEquals(List.of(dead), removed);
        assertFalse(Files.exists(dead), "the ended process's pool");
        assertTrue(Files.exists(live), "a running JVM's pool stays");
        assertTrue(Files.exists(other), "a pool not named as a test's stays");
        assertTrue(Files.exists(odd), "a name without a pid stays");
    }
}
