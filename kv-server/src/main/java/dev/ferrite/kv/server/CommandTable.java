package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Every command the server knows, by lower-case name, and the dispatch of one request: lookup,
 * login check, arity check (Redis's counts and errors), run, count. The table is filled once by
 * the command classes ({@link ConnectionCommands}, {@link ServerCommands}, {@link StringCommands},
 * {@link ExpiryCommands}, {@link KeyCommands}); anything else gets Redis's unknown-command error.
 *
 * <p>Thread-safe: the table is immutable after class initialisation; a session is used by its
 * channel's thread only.
 */
final class CommandTable {

    /** A command's body: runs with the arguments (name first), returns the reply. */
    @FunctionalInterface
    interface Body {
        RedisMessage run(ServerContext server, ClientSession session, byte[][] args);
    }

    /**
     * A command.
     *
     * @param name      lower-case name
     * @param arity     Redis's arity: argument count including the name; negative = at least that many
     * @param beforeAuth whether it runs before the client logged in (AUTH, HELLO, QUIT)
     * @param body      what it does
     */
    record Command(String name, int arity, boolean beforeAuth, Body body) {
    }

    private static final Map<String, Command> TABLE;

    static {
        Map<String, Command> t = new HashMap<>();
        Registry r = (name, arity, beforeAuth, body) -> t.put(name, new Command(name, arity, beforeAuth, body));
        ConnectionCommands.register(r);
        ServerCommands.register(r);
        StringCommands.register(r);
        ExpiryCommands.register(r);
        KeyCommands.register(r);
        TABLE = Collections.unmodifiableMap(t);
    }

    /** Where command classes add their commands. */
    @FunctionalInterface
    interface Registry {
        void add(String name, int arity, boolean beforeAuth, Body body);

        default void add(String name, int arity, Body body) {
            add(name, arity, false, body);
        }
    }

    /** Commands that change a database: their database is forced to disk under {@link FsyncPolicy#ALWAYS}. */
    private static final Set<String> WRITES = Set.of("set", "setnx", "setex", "psetex", "getset", "getdel", "getex",
            "mset", "msetnx", "incr", "decr", "incrby", "decrby", "incrbyfloat", "append", "setrange", "del", "unlink",
            "rename", "renamenx", "expire", "pexpire", "expireat", "pexpireat", "persist", "flushdb");

    private static final RedisMessage NOAUTH = Replies.error("NOAUTH Authentication required.");

    private CommandTable() {
    }

    /** @return how many commands the server knows ({@code COMMAND COUNT}) */
    static int count() {
        return TABLE.size();
    }

    /**
     * Runs one request.
     *
     * @param args the command name then its arguments, at least one
     * @return the reply
     */
    static RedisMessage execute(ServerContext server, ClientSession session, byte[][] args) {
        String name = new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        Command command = TABLE.get(name);
        ServerStats stats = server.stats;
        stats.commands.increment();
        RedisMessage reply;
        if (command == null) {
            reply = session.authenticated ? Replies.unknown(args) : NOAUTH;
        } else if (!session.authenticated && !command.beforeAuth()) {
            reply = NOAUTH;
        } else if (command.arity() > 0 ? args.length != command.arity() : args.length < -command.arity()) {
            reply = Replies.arity(name);
        } else {
            long start = System.nanoTime();
            if (WRITES.contains(name)) {
                session.dirtyDatabases |= 1 << session.db; // before running: a failed write may have written
            } else if (name.equals("flushall")) {
                session.dirtyDatabases = (1 << Databases.COUNT) - 1;
            }
            reply = command.body().run(server, session, args);
            ServerStats.CommandCounter counter = stats.command(name);
            counter.calls.increment();
            long micros = (System.nanoTime() - start) / 1000;
            counter.micros.add(micros);
            stats.recordLatency(micros);
            if (reply instanceof ErrorRedisMessage) {
                counter.errors.increment();
            }
        }
        if (reply instanceof ErrorRedisMessage) {
            stats.errorReplies.increment();
        }
        return reply;
    }
}
