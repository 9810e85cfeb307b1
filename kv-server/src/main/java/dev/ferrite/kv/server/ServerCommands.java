package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import io.netty.handler.codec.redis.RedisMessage;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The server's commands: TIME COMMAND (COUNT; DOCS and the list are empty, which redis-cli
 * accepts) FUNCTION (FLUSH and LIST of an empty library) DBSIZE FLUSHDB FLUSHALL SWAPDB SAVE (forces every
 * database and the collection store to disk: the data is always in its files) SHUTDOWN. Stateless.
 */
final class ServerCommands {

    private ServerCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("time", 1, (c, s, a) -> time());
        r.add("dbsize", 1, (c, s, a) -> {
            FerriteMap<byte[], byte[]> db = c.databases.ifOpen(s.db); // a database never written is empty
            return Replies.integer(db == null ? 0 : db.longSize());
        });
        r.add("flushdb", -1, (c, s, a) -> {
            if (!flushArgumentsValid(a)) {
                return Replies.SYNTAX;
            }
            c.databases.flush(s.db);
            return Replies.OK;
        });
        r.add("flushall", -1, (c, s, a) -> {
            if (!flushArgumentsValid(a)) {
                return Replies.SYNTAX;
            }
            c.databases.flushAll();
            return Replies.OK;
        });
        r.add("command", -1, ServerCommands::command);
        r.add("function", -2, ServerCommands::function);
        r.add("shutdown", -1, ServerCommands::shutdown);
        r.add("save", 1, (c, s, a) -> {
            for (int db = 0; db < Databases.COUNT; db++) {
                c.databases.withOpen(db, map -> map.pool().force());
            }
            c.databases.collections().force();
            return Replies.OK;
        });
    }

    /**
     * @return whether FLUSHDB's or FLUSHALL's arguments are none, or SYNC or ASYNC alone (both flush
     *         at once here: a flush deletes files, see {@link Databases#flush})
     */
    private static boolean flushArgumentsValid(byte[][] a) {
        return a.length == 1 || a.length == 2 && (Args.lower(a[1]).equals("sync") || Args.lower(a[1]).equals("async"));
    }

    /**
     * FUNCTION, without scripting: the library is always empty. FLUSH [ASYNC|SYNC] and LIST answer
     * as Redis's do for an empty library; LOAD, DELETE, DUMP, RESTORE, STATS and KILL are refused.
     */
    private static RedisMessage function(ServerContext c, ClientSession s, byte[][] a) {
        switch (Args.lower(a[1])) {
            case "flush":
                if (a.length > 3 || a.length == 3 && !Args.lower(a[2]).equals("async") && !Args.lower(a[2]).equals("sync")) {
                    return Replies.error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
                }
                return Replies.OK;
            case "list":
                return Replies.array(List.of());
            default:
                return Replies.error("ERR this server has no scripting: FUNCTION " + Args.lower(a[1]).toUpperCase(Locale.ROOT)
                        + " is not supported (FLUSH and LIST are, on the always empty library)");
        }
    }

    /**
     * SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]: a clean stop, as SIGTERM's: the connections
     * close, the maps are forced to disk and closed (there is nothing else to save: every write is
     * in the maps' files already). The connection closes without a reply, as Redis's does.
     */
    private static RedisMessage shutdown(ServerContext c, ClientSession s, byte[][] a) {
        boolean save = false;
        boolean noSave = false;
        for (int i = 1; i < a.length; i++) {
            switch (Args.lower(a[i])) {
                case "save" -> save = true;
                case "nosave" -> noSave = true;
                case "now", "force" -> { }
                case "abort" -> {
                    return a.length == 2 ? Replies.error("ERR No shutdown in progress.") : Replies.SYNTAX;
                }
                default -> {
                    return Replies.SYNTAX;
                }
            }
        }
        if (save && noSave) {
            return Replies.SYNTAX;
        }
        Runnable stop = c.shutdown;
        if (stop == null) {
            return Replies.error("ERR this server cannot be shut down by a client");
        }
        stop.run();
        return Replies.CLOSE_CONNECTION;
    }

    private static RedisMessage time() {
        Instant now = Instant.now();
        return Replies.array(List.of(Replies.bulk(Long.toString(now.getEpochSecond())),
                Replies.bulk(Long.toString(now.getNano() / 1000))));
    }

    /**
     * COMMAND [COUNT | DOCS | INFO | LIST ...]: the count; for the others no details (an empty
     * array is a valid answer: redis-cli asks COMMAND DOCS on connect for its hints). Another
     * subcommand gets Redis's unknown-subcommand error.
     */
    private static RedisMessage command(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length == 1) {
            return Replies.array(List.of());
        }
        switch (Args.lower(a[1])) {
            case "count":
                return a.length == 2 ? Replies.integer(CommandTable.count()) : Replies.arity("command|count");
            case "docs":
            case "info":
            case "list":
                return Replies.array(List.of());
            default:
                return Replies.unknownSubcommand(a[1], "COMMAND");
        }
    }

}
