package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;
import java.util.Arrays;
import java.util.List;

/**
 * Warms what a group of requests will read before the first of them runs: the keys of every
 * request that names keys go to {@link FerriteMap#prefetch} together, so their memory waits
 * overlap instead of following one another request after request. The requests are those an
 * event loop read in one pass ({@link PassFlush}): a pipeline, or one request from each of many
 * connections. Keys are gathered per database: when the next connection's database differs, the
 * keys gathered so far are warmed first. Only a hint: it changes nothing, opens no database, and
 * swallows a map closing meanwhile; the caller skips connections that have not logged in.
 *
 * <p>One per event-loop thread; not thread-safe.
 */
final class PassPrefetch {

    /** Keys warmed in one group at most (the requests past them run cold). */
    static final int MAX_KEYS = 64;

    private final byte[][] keys = new byte[MAX_KEYS][];
    private int count;
    /** The database of the keys gathered so far, or null if none. */
    private FerriteMap<byte[], byte[]> map;

    /** @return whether the group holds {@link #MAX_KEYS} keys, so that adding more does nothing */
    boolean full() {
        return count == MAX_KEYS;
    }

    /**
     * Gathers the keys of requests that will run in {@code map}, in order, until the group is full.
     *
     * @param map      the database they will run in (the connection's selected one)
     * @param requests the requests, each the command name and its arguments
     */
    void add(FerriteMap<byte[], byte[]> map, List<byte[][]> requests) {
        if (map != this.map) {
            warm();
            this.map = map;
        }
        for (int r = 0; r < requests.size() && count < MAX_KEYS; r++) {
            byte[][] args = requests.get(r);
            CommandTable.Command command = CommandTable.lookup(args[0]);
            CommandTable.Keys where = command == null ? null : command.keys();
            if (where == null) {
                continue;
            }
            int n = where.count(args);
            for (int i = 0, a = where.first(); i < n && count < MAX_KEYS; i++, a += where.step()) {
                keys[count++] = args[a];
            }
        }
    }

    /** Warms the keys gathered (if there are two or more: one key has nothing to overlap with) and forgets them. */
    void warm() {
        try {
            if (count >= 2) {
                map.prefetch(keys, 0, count);
            }
        } catch (FerriteException e) {
            // closed by FLUSHALL or shutdown meanwhile: the requests will say so themselves
        } finally {
            Arrays.fill(keys, 0, count, null);
            count = 0;
            map = null;
        }
    }
}
