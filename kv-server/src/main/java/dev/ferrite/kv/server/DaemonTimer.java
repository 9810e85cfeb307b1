package dev.ferrite.kv.server;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

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
}
