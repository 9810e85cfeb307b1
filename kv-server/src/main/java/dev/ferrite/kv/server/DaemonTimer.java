package dev.ferrite.kv.server;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** The scheduler of the server's background work (active expiry, periodic fsync). */
final class DaemonTimer {

    private DaemonTimer() {
    }

    /** @return a one-thread scheduler on a daemon thread of that name (it never keeps the JVM alive) */
    static ScheduledExecutorService create(String threadName) {
        return Executors.newSingleThreadScheduledExecutor(daemons(threadName));
    }

    /** @return a factory of daemon threads of that name (they never keep the JVM alive) */
    static ThreadFactory daemons(String threadName) {
        return r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        };
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
