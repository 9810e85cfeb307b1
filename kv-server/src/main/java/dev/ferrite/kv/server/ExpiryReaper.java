package dev.ferrite.kv.server;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Active expiry: reclaims expired keys nobody reads, as Redis's active expire cycle does. Ten
 * times a second it goes on with an incremental {@link FerriteMap#scan} of each open database,
 * visiting up to {@value #ENTRIES_PER_TICK} entries per database, and removes each entry it finds
 * expired if it is unchanged ({@code remove(key, value)}: a concurrent write wins). A full pass
 * over N keys takes N / {@value #ENTRIES_PER_TICK} tenths of a second. One daemon thread.
 *
 * <p>A database rests after a full pass that found no entry with an expiry while no command
 * could have added one ({@link ServerContext#allExpiryWrites} did not move from the pass's start to
 * its end): a scan visits every entry present throughout it, so none exists then, and the reaper
 * spends nothing on a keyspace without expiries (Redis looks only at keys with an expiry for the
 * same reason). The next such command wakes it; it is counted after its write lands, so a write
 * the resting reaper did not see always moves the counter past the value it rests on.
 */
final class ExpiryReaper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExpiryReaper.class);
    /** Entries visited per database per tick. */
    static final int ENTRIES_PER_TICK = 2000;
    private static final long TICK_MILLIS = 100;
    /** {@link Pass#restingAt} of a database that does not rest. */
    private static final long AWAKE = -1;

    private final ServerContext server;
    private final Pass[] passes = new Pass[Databases.COUNT];
    private final ScheduledExecutorService timer = DaemonTimer.create("ferrite-expiry");

    /** Where the reaper is in one database; only the timer thread touches it. */
    private static final class Pass {
        final FerriteMap<byte[], byte[]> map;
        long cursor;
        /** {@link ServerContext#allExpiryWrites} when this pass began. */
        long writesAtStart;
        /** Whether this pass met an entry with an expiry. */
        boolean sawExpiry;
        /** Entries with an expiry still ahead this pass met, and the sum of their times to live (ms). */
        long expiring;
        double ttlMillisSum;
        /** Whether a full pass over this database has ended. */
        boolean counted;
        /** The count of expiry writes this database rests on, or {@link #AWAKE}. */
        volatile long restingAt = AWAKE;

        Pass(FerriteMap<byte[], byte[]> map) {
            this.map = map;
        }
    }

    ExpiryReaper(ServerContext server) {
        this.server = server;
        timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Whether ticks do nothing (tests: as Redis's {@code DEBUG SET-ACTIVE-EXPIRE 0}); guarded by this. */
    private boolean paused;

    /**
     * Stops or resumes active expiry; once this returns, no tick runs until resumed (tests compare
     * lazy expiry with Redis's, whose active expiry they stop too).
     */
    synchronized void pause(boolean stop) {
        paused = stop;
    }

    private synchronized void tick() {
        if (paused) {
            return;
        }
        for (int db = 0; db < Databases.COUNT; db++) {
            int index = db;
            try {
                server.databases.withOpen(db, map -> {
                    Pass pass = passes[index];
                    if (pass == null || pass.map != map) {
                        pass = passes[index] = new Pass(map); // opened (again): nothing known about it
                        server.expiryCensus.forget(index);
                    }
                    reap(index, pass);
                });
            } catch (CorruptFileException e) {
                LOG.error("expiry pass over database {} found damage; the database's next writer repairs it", db, e);
            } catch (FerriteException e) {
                if (!server.databases.isClosed()) {
                    LOG.warn("expiry pass over database {} failed: {}", db, e.getMessage(), e);
                }
            } catch (RuntimeException e) {
                LOG.warn("expiry pass over database {} failed", db, e);
            }
        }
    }

    private void reap(int db, Pass pass) {
        long writes = server.allExpiryWrites();
        if (pass.restingAt != AWAKE) {
            if (writes == pass.restingAt) {
                return;
            }
            pass.restingAt = AWAKE;
            pass.cursor = 0; // a fresh full pass: the one that ended found nothing
        }
        if (pass.cursor == 0) {
            pass.writesAtStart = writes;
            pass.sawExpiry = false;
            pass.expiring = 0;
            pass.ttlMillisSum = 0;
        }
        long now = System.currentTimeMillis();
        List<byte[][]> expired = new ArrayList<>();
        pass.cursor = pass.map.scan(pass.cursor, ENTRIES_PER_TICK, (k, v) -> {
            if (v.length >= ValueLayout.DATA && ValueLayout.expireAt(v) != ValueLayout.NO_EXPIRY) {
                pass.sawExpiry = true;
                if (ValueLayout.expired(v, now)) {
                    expired.add(new byte[][] {k, v});
                } else {
                    pass.expiring++;
                    pass.ttlMillisSum += ValueLayout.expireAt(v) - now;
                }
            }
        });
        for (byte[][] e : expired) {
            if (pass.map.remove(e[0], e[1])) {
                server.stats.expiredKeys.increment();
                server.events.emit(KeyspaceEvents.EXPIRED, "expired", db, e[0]);
            }
        }
        if (pass.cursor == 0) {
            pass.counted = true;
        }
        if (pass.cursor == 0 || !pass.counted || pass.expiring > server.expiryCensus.expiringKeys(db)) {
            // a pass's count when it ends; before, its count so far where that says more than the last one
            server.expiryCensus.record(db, pass.expiring, pass.ttlMillisSum, now);
        }
        if (pass.cursor == 0 && !pass.sawExpiry && server.allExpiryWrites() == pass.writesAtStart) {
            pass.restingAt = pass.writesAtStart;
        }
    }

    /** @return whether database {@code db} rests (for tests) */
    boolean resting(int db) {
        Pass pass = passes[db];
        return pass != null && pass.restingAt != AWAKE;
    }

    @Override
    public void close() {
        DaemonTimer.stop(timer);
    }
}
