package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;
import java.util.Arrays;
import java.util.List;

/**
 * Warms what a pipeline of requests will read before the first of them runs: the keys of every
 * request that names keys, in the connection's selected database, go to
 * {@link FerriteMap#prefetch}, so the memory waits of the whole pipeline overlap instead of
 * following one another request after request. Only a hint: it changes nothing, opens no
 * database, skips a connection that has not logged in, and swallows a map closing meanwhile.
 * One per connection, called on its event loop.
 */
final class PipelinePrefetch {

    /** Keys warmed per pipeline at most (the rest run cold). */
    static final int MAX_KEYS = 64;

    private final ServerContext server;
    private final ClientSession session;
    private final byte[][] keys = new byte[MAX_KEYS][];

    PipelinePrefetch(ServerContext server, ClientSession session) {
        this.server = server;
        this.session = session;
    }

    /**
     * @param requests the requests just decoded from one read, each the command name and its
     *                 arguments ({@code byte[][]}); warmed only if there are two or more
     */
    void warm(List<Object> requests) {
        if (requests.size() < 2 || !session.authenticated) {
            return;
        }
        FerriteMap<byte[], byte[]> map = server.databases.ifOpen(session.db);
        if (map == null) {
            return;
        }
        int n = collectKeys(requests);
        try {
            if (n >= 2) {
                map.prefetch(keys, 0, n);
            }
        } catch (FerriteException e) {
            // closed by FLUSHALL or shutdown meanwhile: the requests will say so themselves
        } finally {
            Arrays.fill(keys, 0, n, null);
        }
    }

    private int collectKeys(List<Object> requests) {
        int n = 0;
        for (Object request : requests) {
            byte[][] args = (byte[][]) request;
            CommandTable.Command command = CommandTable.lookup(args[0]);
            CommandTable.Keys where = command == null ? null : command.keys();
            if (where == null) {
                continue;
            }
            int count = where.count(args);
            for (int i = 0, a = where.first(); i < count; i++, a += where.step()) {
                if (n == MAX_KEYS) {
                    return n;
                }
                keys[n++] = args[a];
            }
        }
        return n;
    }
}
