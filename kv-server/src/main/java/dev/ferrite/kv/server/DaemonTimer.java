package dev.ferrite.kv.server;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The scheduler of the server's background work (active expiry, periodic fsync). */
final class DaemonTimer {

    private DaemonTimer() {
    }

    /** @return a one-thread scheduler on a daemon thread of that name (it never keeps the JVM alive) */
    static ScheduledExecutorService create(String threadName) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Stops a scheduler: interrupts its running task and waits up to 5 seconds for it to end (a
     * task finishing a scan or an fsync). Keeps the caller's interrupt status.
     */
    static void stop(ScheduledExecutorService timer) {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
