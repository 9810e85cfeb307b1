package dev.ferrite.kv.server;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The expiring keys INFO's keyspace section reports ({@code expires=} and {@code avg_ttl=}), per
 * database, as the {@link ExpiryReaper} counted them: the keys with an expiry that had not passed
 * when its last full pass over the database visited them, and their average time to live. A count
 * is at most one pass old (a pass over N keys takes N / {@value ExpiryReaper#ENTRIES_PER_TICK}
 * tenths of a second); where the pass under way has counted more so far (or no pass has ended
 * yet), it is that pass's count so far. Redis counts its expiring keys exactly and estimates
 * {@code avg_ttl} from samples; here both come from the pass. Thread-safe: the reaper writes, any
 * thread reads.
 */
final class ExpiryCensus {

    /**
     * One database's count.
     *
     * @param keys             keys with an expiry still ahead when the pass saw them
     * @param ttlMillisSum     the sum of their times to live then, in milliseconds
     * @param countedAtMillis  when the pass that counted them ended (or last counted), epoch milliseconds
     */
    private record Count(long keys, double ttlMillisSum, long countedAtMillis) {
    }

    private final AtomicReferenceArray<Count> counts = new AtomicReferenceArray<>(Databases.COUNT);

    /**
     * Records a database's count.
     *
     * @param db           the database, 0 to {@link Databases#COUNT} - 1
     * @param keys         keys with an expiry still ahead, at least 0
     * @param ttlMillisSum the sum of their times to live in milliseconds, each measured when it was seen
     * @param nowMillis    the time of the count, epoch milliseconds
     */
    void record(int db, long keys, double ttlMillisSum, long nowMillis) {
        counts.set(db, new Count(keys, ttlMillisSum, nowMillis));
    }

    /** Forgets a database's count (it was opened again: nothing is known of it). */
    void forget(int db) {
        counts.set(db, null);
    }

    /** @return the keys with an expiry in a database as last counted, 0 if not counted yet */
    long expiringKeys(int db) {
        Count c = counts.get(db);
        return c == null ? 0 : c.keys;
    }

    /**
     * @return the average time to live of those keys now, in milliseconds: their average when
     * counted less the time since, at least 0; 0 if there are none
     */
    long averageTtlMillis(int db, long nowMillis) {
        Count c = counts.get(db);
        if (c == null || c.keys == 0) {
            return 0;
        }
        return Math.max(0, Math.round(c.ttlMillisSum / c.keys) - (nowMillis - c.countedAtMillis));
    }
}
