package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Transactions: MULTI EXEC DISCARD WATCH UNWATCH, with Redis's replies and errors. After MULTI a
 * request is queued ({@code +QUEUED}); one refused while queueing (unknown, wrong argument count,
 * no login) makes EXEC answer EXECABORT. EXEC runs the queue alone ({@link CommandGate#exclusive}):
 * no other client's command runs between its commands, so readers see all of its changes or none,
 * and journaled ({@link UndoJournal}): a crash midway leaves none of them. It runs nothing and
 * answers nil if a WATCHed key changed (its stored value differs, or it expired) since WATCH.
 * Stateless; the transaction lives in {@link ClientSession}.
 */
final class TransactionCommands {

    /** The reply to a queued request. */
    static final RedisMessage QUEUED = new SimpleStringRedisMessage("QUEUED");
    /** Commands that run at once inside MULTI instead of being queued. */
    private static final Set<String> IMMEDIATE = Set.of("exec", "discard", "multi", "watch", "quit", "reset");

    /** A WATCHed key: its database, the key, and its stored value when watched (null if absent). */
    record Watched(int db, byte[] key, byte[] stored) {
    }

    private TransactionCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("multi", 1, (c, s, a) -> {
            if (s.queued != null) {
                s.queueFailed = true; // as an unknown command would: EXEC answers EXECABORT
                return Replies.error("ERR MULTI calls can not be nested");
            }
            s.queued = new ArrayList<>();
            s.queueFailed = false;
            return Replies.OK;
        });
        r.add("discard", 1, (c, s, a) -> {
            if (s.queued == null) {
                return Replies.error("ERR DISCARD without MULTI");
            }
            end(s);
            return Replies.OK;
        });
        r.add("watch", -2, TransactionCommands::watch);
        r.add("unwatch", 1, (c, s, a) -> {
            s.watched = null;
            return Replies.OK;
        });
        r.add("exec", 1, TransactionCommands::exec);
    }

    /** Commands refused inside MULTI (Redis's no-multi flag): the transaction then fails. */
    private static final Set<String> REFUSED = Set.of("save", "shutdown");
    /** The reply to a command of {@link #REFUSED} inside MULTI. */
    static final RedisMessage NOT_IN_MULTI = Replies.error("ERR Command not allowed inside a transaction");

    /** @return whether a command is refused inside MULTI, and fails the transaction */
    static boolean refusedInMulti(String command) {
        return REFUSED.contains(command);
    }

    /** @return whether a command runs at once inside MULTI (EXEC, DISCARD...) rather than being queued */
    static boolean runsInMulti(String command) {
        return IMMEDIATE.contains(command);
    }

    private static void end(ClientSession s) {
        s.queued = null;
        s.queueFailed = false;
        s.watched = null;
    }

    private static RedisMessage watch(ServerContext c, ClientSession s, byte[][] a) {
        if (s.queued != null) {
            return Replies.error("ERR WATCH inside MULTI is not allowed");
        }
        if (s.watched == null) {
            s.watched = new ArrayList<>();
        }
        FerriteMap<byte[], byte[]> map = c.databases.ifOpen(s.db);
        for (int i = 1; i < a.length; i++) {
            s.watched.add(new Watched(s.db, a[i], map == null ? null : map.getBytes(a[i])));
        }
        return Replies.OK;
    }

    /** @return whether a WATCHed key changed since WATCH: another stored value, or expired since */
    private static boolean changed(ServerContext c, Watched w, long now) {
        FerriteMap<byte[], byte[]> map = c.databases.ifOpen(w.db());
        byte[] current = map == null ? null : map.getBytes(w.key());
        if (!Arrays.equals(current, w.stored())) {
            return true;
        }
        return current != null && current.length >= ValueLayout.DATA && ValueLayout.expired(current, now);
    }

    /** EXEC: runs alone (the command table runs it under the gate); see the class comment. */
    private static RedisMessage exec(ServerContext c, ClientSession s, byte[][] a) {
        if (s.queued == null) {
            return Replies.error("ERR EXEC without MULTI");
        }
        if (s.queueFailed) {
            end(s);
            return Replies.error("EXECABORT Transaction discarded because of previous errors.");
        }
        long now = System.currentTimeMillis();
        if (s.watched != null) {
            for (Watched w : s.watched) {
                if (changed(c, w, now)) {
                    end(s);
                    return ArrayRedisMessage.NULL_INSTANCE;
                }
            }
        }
        List<byte[][]> queue = s.queued;
        List<UndoJournal.Entry> entries = new ArrayList<>();
        boolean collections = false;
        int db = s.db;
        for (byte[][] request : queue) {
            CommandTable.Command command = CommandTable.lookup(request[0]);
            if (command == null) {
                continue;
            }
            if (command.name().equals("select")) {
                Long n = Args.parseLong(request[1]);
                db = n != null && n >= 0 && n < Databases.COUNT ? (int) (long) n : db;
            } else if (command.write()) {
                collections |= CommandTable.changesCollectionStore(command.name());
                for (UndoJournal.Entry e : CommandTable.entries(command, db, request)) {
                    entries.add(e);
                    c.writable(e.db(), s); // a database it writes to exists before anything runs
                }
            }
        }
        s.queued = null; // the queued commands run now, not queued again
        int selected = s.db;
        RedisMessage reply;
        try {
            s.executing = true;
            reply = CommandTable.journaled(c, entries, collections, () -> {
                List<RedisMessage> replies = new ArrayList<>(queue.size());
                for (byte[][] request : queue) {
                    RedisMessage one = CommandTable.execute(c, s, request);
                    if (one instanceof Replies.Several several) {
                        replies.addAll(several.replies());
                    } else {
                        replies.add(one);
                    }
                }
                return Replies.array(replies);
            });
        } catch (RuntimeException e) {
            s.queued = queue; // undone: a database being made, say; EXEC runs again later
            s.db = selected;
            throw e;
        } finally {
            s.executing = false;
        }
        end(s);
        return reply;
    }
}
