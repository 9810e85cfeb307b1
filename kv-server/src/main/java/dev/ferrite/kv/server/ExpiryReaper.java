package dev.ferrite.kv.server;

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
 */
final class ExpiryReaper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExpiryReaper.class);
    /** Entries visited per database per tick. */
    static final int ENTRIES_PER_TICK = 2000;
    private static final long TICK_MILLIS = 100;

    private final ServerContext server;
    private final long[] cursors = new long[Databases.COUNT];
    private final ScheduledExecutorService timer = DaemonTimer.create("ferrite-expiry");

    ExpiryReaper(ServerContext server) {
        this.server = server;
        timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            for (int db = 0; db < Databases.COUNT; db++) {
                FerriteMap<byte[], byte[]> map = server.databases.ifOpen(db);
                if (map != null) {
                    cursors[db] = reap(map, cursors[db]);
                }
            }
        } catch (FerriteException e) {
            LOG.debug("expiry pass interrupted: {}", e.getMessage()); // a database closing with the server
        } catch (RuntimeException e) {
            LOG.warn("expiry pass failed", e);
        }
    }

    private long reap(FerriteMap<byte[], byte[]> map, long cursor) {
        long now = System.currentTimeMillis();
        List<byte[][]> expired = new ArrayList<>();
        long next = map.scan(cursor, ENTRIES_PER_TICK, (k, v) -> {
            if (v.length >= ValueLayout.DATA && ValueLayout.expired(v, now)) {
                expired.add(new byte[][] {k, v});
            }
        });
        for (byte[][] e : expired) {
            if (map.remove(e[0], e[1])) {
                server.stats.expiredKeys.increment();
            }
        }
        return next;
    }

    /** Stops the reaper and waits for a running pass to end. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
