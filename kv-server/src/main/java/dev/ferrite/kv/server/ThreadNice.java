package dev.ferrite.kv.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Lowers a background thread's CPU priority on Linux, where Java cannot: {@code renice} (util-linux)
 * of the calling thread's own id, read from {@code /proc/thread-self}. Lowering one's own priority
 * needs no privilege. Elsewhere, or if {@code renice} is missing, nothing changes. Stateless.
 */
final class ThreadNice {

    private static final Logger LOG = LoggerFactory.getLogger(ThreadNice.class);
    /** The lowest priority a Linux thread can have under the normal scheduling policy. */
    static final int LOWEST = 19;
    private static final Path THREAD_SELF = Path.of("/proc/thread-self");

    private ThreadNice() {
    }

    /**
     * Sets the calling thread's nice value to {@link #LOWEST}: the scheduler then gives it the CPU
     * it needs only where the threads at normal priority leave some.
     *
     * @return whether it was lowered
     */
    static boolean lowerCurrentThread() {
        String name = Thread.currentThread().getName();
        if (!Files.isSymbolicLink(THREAD_SELF)) {
            LOG.debug("thread {} keeps its priority: no {} (not Linux)", name, THREAD_SELF);
            return false;
        }
        try {
            String tid = Files.readSymbolicLink(THREAD_SELF).getFileName().toString();
            Process renice = new ProcessBuilder("renice", "-n", Integer.toString(LOWEST), "-p", tid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!renice.waitFor(10, TimeUnit.SECONDS)) {
                renice.destroyForcibly();
                LOG.info("thread {} keeps its priority: renice did not finish", name);
                return false;
            }
            if (renice.exitValue() != 0) {
                LOG.info("thread {} keeps its priority: renice exited with {}", name, renice.exitValue());
                return false;
            }
            LOG.debug("thread {} (id {}) at nice {}", name, tid, LOWEST);
            return true;
        } catch (IOException e) {
            LOG.info("thread {} keeps its priority: {}", name, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
