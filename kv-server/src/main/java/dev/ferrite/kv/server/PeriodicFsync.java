package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@link FsyncPolicy#EVERYSEC}: forces every open database's pool to disk once a second, on one
 * daemon thread (at the lowest CPU priority if asked, {@link ThreadNice}), so a power loss costs about a
 * second of acknowledged writes (a second and a half when the event loops keep the cores busy).
 */
final class PeriodicFsync implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PeriodicFsync.class);

    private final Databases databases;
    private final ScheduledExecutorService timer = DaemonTimer.create("ferrite-fsync");

    /** @param lowPriority whether the thread lowers its CPU priority first ({@link ThreadNice}) */
    PeriodicFsync(Databases databases, boolean lowPriority) {
        this.databases = databases;
        // An msync writes back, in the calling thread, every page written since the last one:
        // under random writes hundreds of megabytes a second, and at normal priority the scheduler
        // shares the core half and half with an event loop while it runs (the unpipelined INCR
        // p99 rose with it).
        // At the lowest priority it runs where they leave time, a little later under full load.
        if (lowPriority) {
            timer.execute(ThreadNice::lowerCurrentThread);
        }
        timer.scheduleWithFixedDelay(this::forceAll, 1, 1, TimeUnit.SECONDS);
    }

    private void forceAll() {
        for (int db = 0; db < Databases.COUNT; db++) {
            try {
                databases.withOpen(db, map -> map.pool().force());
            } catch (FerriteException e) {
                if (!databases.isClosed()) {
                    LOG.warn("fsync of database {} failed: {}", db, e.getMessage(), e);
                }
            } catch (RuntimeException e) {
                LOG.warn("fsync of database {} failed", db, e);
            }
        }
        try {
            if (!databases.isClosed()) {
                databases.collections().force();
            }
        } catch (RuntimeException e) {
            if (!databases.isClosed()) {
                LOG.warn("fsync of the collection store failed", e);
            }
        }
    }

    /** Stops the timer, then forces once more so a clean stop loses nothing. */
    @Override
    public void close() {
        DaemonTimer.stop(timer);
        forceAll();
    }
}
