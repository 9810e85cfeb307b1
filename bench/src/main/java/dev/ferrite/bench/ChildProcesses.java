package dev.ferrite.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Starts the processes the bench runs beside itself (servers under test, {@code redis-benchmark},
 * queue peers, footprint JVMs) and ends those still running when the bench's JVM ends, however it
 * ends short of SIGKILL: a run stopped with Ctrl-C or SIGTERM leaves no server holding a port or
 * spinning on a core. The bench's own process only: it installs a shutdown hook. Thread-safe.
 */
public final class ChildProcesses {

    /** How long the processes get to end on SIGTERM before they are killed. */
    private static final long GRACE_MILLIS = 5_000;

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::endAll, "ferrite-bench-children"));
    }

    private ChildProcesses() {
    }

    /**
     * Starts a process that ends with this JVM if it has not ended before.
     *
     * @param builder what to start
     * @return the running process
     * @throws IOException if it cannot start
     */
    public static Process start(ProcessBuilder builder) throws IOException {
        Process p = builder.start();
        LIVE.add(p);
        p.onExit().thenRun(() -> LIVE.remove(p));
        return p;
    }

    /** Sends SIGTERM to every process still running, then kills those alive after the grace time. */
    static void endAll() {
        List<Process> running = new ArrayList<>(LIVE);
        running.forEach(Process::destroy);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS);
        for (Process p : running) {
            try {
                p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }
}
