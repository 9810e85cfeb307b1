package dev.ferrite.kv.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory all clients' unfinished requests hold together (bytes received or reserved for a
 * request not complete yet: RESP arguments, an HTTP body), bounded by one limit as Redis's
 * {@code maxmemory-clients} bounds its clients' buffers: a client whose request would take the
 * total past it is disconnected, with a log line, and the others go on. Each connection gives back
 * what it held when its request ends or it closes. Thread-safe.
 */
final class RequestMemory {

    private static final Logger LOG = LoggerFactory.getLogger(RequestMemory.class);

    private final long limit;
    private final AtomicLong held = new AtomicLong();
    private final ServerStats stats;

    /** @param limit most bytes all unfinished requests may hold together */
    RequestMemory(long limit, ServerStats stats) {
        this.limit = limit;
        this.stats = stats;
    }

    /**
     * Moves one connection's holding from {@code before} to {@code after} bytes.
     *
     * @return whether the total stays within the limit (a shrink always does); if not, nothing changed
     */
    boolean change(long before, long after) {
        long delta = after - before;
        if (delta <= 0) {
            held.addAndGet(delta);
            return true;
        }
        while (true) {
            long now = held.get();
            if (now + delta > limit) {
                return false;
            }
            if (held.compareAndSet(now, now + delta)) {
                return true;
            }
        }
    }

    /** Logs and counts the disconnection of a client whose request did not fit. */
    void evicted(SocketAddress client, long wanted) {
        stats.evictedClients.increment();
        LOG.warn("closing {}: its unfinished request would hold {} bytes, and all clients' unfinished requests"
                + " together may hold {} (maxmemory-clients); {} held now", client, wanted, limit, held.get());
    }

    /** @return bytes all unfinished requests hold now */
    long held() {
        return held.get();
    }

    /** @return the limit, in bytes */
    long limit() {
        return limit;
    }
}
