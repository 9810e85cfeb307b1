package dev.ferrite.bench;

import dev.ferrite.testkit.ChildJvm;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bench JVM stopped with SIGTERM (as Ctrl-C or {@code kill} stop a {@code --redis} run) takes the
 * processes it started with it, instead of leaving them running (a server on its port, spinning on
 * its core).
 */
class ChildProcessesTest {

    /** A bench-like JVM: starts a long {@code sleep} as its child, prints its pid, then waits. */
    public static final class Parent {
        public static void main(String[] args) throws Exception {
            Process child = ChildProcesses.start(new ProcessBuilder("sleep", "600"));
            System.out.println(child.pid());
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(10));
        }
    }

    @Test
    void aJvmStoppedWithSigtermEndsTheProcessesItStarted() throws Exception {
        Process parent = ChildJvm.start(List.of(), Parent.class);
        long childPid;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8));
            childPid = Long.parseLong(out.readLine().strip());
            Optional<ProcessHandle> child = ProcessHandle.of(childPid);
            assertTrue(child.isPresent() && child.get().isAlive(), "the child runs while its parent does");
            parent.destroy(); // SIGTERM
            assertTrue(parent.waitFor(30, TimeUnit.SECONDS), "the parent ends on SIGTERM");
            assertEquals(143, parent.exitValue(), "ended by SIGTERM (128 + 15)");
        } finally {
            parent.destroyForcibly();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (alive(childPid) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        boolean orphan = alive(childPid);
        ProcessHandle.of(childPid).ifPresent(ProcessHandle::destroyForcibly);
        assertFalse(orphan, "the child the parent started is gone with it");
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
