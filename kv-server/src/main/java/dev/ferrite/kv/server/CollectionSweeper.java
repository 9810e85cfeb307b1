package dev.ferrite.kv.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Drops the elements of collections no key names any more ({@link CollectionStore#orphan}): first
 * those whose keys were deleted ({@link CollectionStore#hint}), then, going round the store in id
 * order, up to {@value #IDS_PER_TICK} collections per tick, five ticks a second (orphans of
 * overwrites, expiry, flushes and crashes). Each look passes the command gate, so no RENAME or
 * MOVE runs while it reads a collection's owners. One daemon thread.
 */
final class CollectionSweeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CollectionSweeper.class);
    static final int IDS_PER_TICK = 256;
    private static final long TICK_MILLIS = 200;

    private final ServerContext server;
    private final ScheduledExecutorService timer = DaemonTimer.create("ferrite-collections");
    /** Where the round goes on; the timer thread's only. */
    private long cursor = 1;
    /** Collections dropped since the start. */
    private volatile long dropped;

    CollectionSweeper(ServerContext server) {
        this.server = server;
        timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            sweep(IDS_PER_TICK);
        } catch (RuntimeException e) {
            if (!server.databases.isClosed()) {
                LOG.warn("the collection sweep failed; it goes on at the next tick", e);
            }
        }
    }

    /**
     * Looks at every hinted collection and up to {@code max} more.
     *
     * @return collections dropped
     */
    synchronized int sweep(int max) {
        CollectionStore store = server.databases.collections();
        int n = 0;
        for (Long id; (id = store.nextHint()) != null; ) {
            n += dropIfOrphan(store, id) ? 1 : 0;
        }
        for (int i = 0; i < max; i++) {
            long id = store.idFrom(cursor);
            if (id == 0) {
                cursor = 1;
                break;
            }
            n += dropIfOrphan(store, id) ? 1 : 0;
            cursor = id + 1;
        }
        dropped += n;
        return n;
    }

    /** Runs {@link #sweep} until a whole round found nothing more to drop (tests). */
    synchronized long sweepAll() {
        long total = 0;
        for (int n = -1; n != 0; ) {
            cursor = 1;
            n = sweep(Integer.MAX_VALUE);
            total += n;
        }
        return total;
    }

    private boolean dropIfOrphan(CollectionStore store, long id) {
        CommandGate.Lane lane = server.gate.enter();
        boolean orphan;
        try {
            orphan = store.orphan(id, owner -> {
                var map = server.databases.byFileName(owner.database());
                return ValueLayout.collectionId(map == null ? null : map.get(owner.key()));
            });
        } finally {
            server.gate.exit(lane);
        }
        if (orphan) {
            store.drop(id);
        }
        return orphan;
    }

    /** @return collections dropped since the start */
    long dropped() {
        return dropped;
    }

    @Override
    public void close() {
        DaemonTimer.stop(timer);
    }
}
