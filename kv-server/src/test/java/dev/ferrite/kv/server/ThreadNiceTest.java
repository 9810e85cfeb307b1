package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The fsync thread's lowered priority, read back from Linux's /proc. */
class ThreadNiceTest {

    /** @return the nice value of a thread of this process, from /proc/self/task/TID/stat (field 19) */
    private static int nice(Path taskDir) throws Exception {
        String stat = Files.readString(taskDir.resolve("stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(fields[19 - 3]);
    }

    private static Set<Path> fsyncThreads() throws Exception {
        Set<Path> found = new HashSet<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals("ferrite-fsync")) {
                        found.add(task);
                    }
                } catch (java.nio.file.NoSuchFileException ended) {
                    // the thread ended while listed
                }
            }
        }
        return found;
    }

    @Test
    void aThreadLowersItsOwnPriorityAndNoOtherThreads() throws Exception {
        assumeTrue(Files.isSymbolicLink(Path.of("/proc/thread-self")), "Linux only");
        AtomicBoolean lowered = new AtomicBoolean();
        AtomicInteger niceAfter = new AtomicInteger(Integer.MIN_VALUE);
        Thread t = new Thread(() -> {
            lowered.set(ThreadNice.lowerCurrentThread());
            try {
                niceAfter.set(nice(Path.of("/proc/thread-self")));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        int callerBefore = nice(Path.of("/proc/thread-self"));
        t.start();
        t.join();
        assertTrue(lowered.get(), "renice of the thread's own id succeeded");
        assertEquals(ThreadNice.LOWEST, niceAfter.get());
        assertEquals(callerBefore, nice(Path.of("/proc/thread-self")), "the caller's own priority is unchanged");
    }

    @Test
    void theServersFsyncThreadRunsAtTheLowestPriorityWhenAsked(@TempDir Path data) throws Exception {
        assumeTrue(Files.isSymbolicLink(Path.of("/proc/thread-self")), "Linux only");
        Set<Path> before = fsyncThreads(); // of servers other tests left running, if any
        try (KvServer server = KvServer.builder().port(0).dataDirectory(data).fsync(FsyncPolicy.EVERYSEC)
                .lowPriorityFsync(true).start()) {
            assertTrue(server.port() > 0, "serving");
            Path fsync = null;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < deadline) {
                for (Path task : fsyncThreads()) {
                    if (!before.contains(task)) {
                        fsync = task;
                    }
                }
                if (fsync != null && nice(fsync) == ThreadNice.LOWEST) {
                    break;
                }
                Thread.sleep(20);
            }
            assertTrue(fsync != null, "a ferrite-fsync thread runs");
            assertEquals(ThreadNice.LOWEST, nice(fsync));
        }
    }
}
