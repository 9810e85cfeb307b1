package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
    record Command(int id, String name, int arity, boolean beforeAuth, boolean write, Body body) {
    }

    /** Commands that change a database: their database is forced to disk under {@link FsyncPolicy#ALWAYS}. */
    private static final Set<String> WRITES = Set.of("set", "setnx", "setex", "psetex", "getset", "getdel", "getex",
            "mset", "msetnx", "incr", "decr", "incrby", "decrby", "incrbyfloat", "append", "setrange", "del", "unlink",
            "rename", "renamenx", "expire", "pexpire", "expireat", "pexpireat", "persist", "flushdb");

    /** Every command, by id. */
    private static final List<Command> COMMANDS;
    /** Open-addressing table of the commands by case-folded name hash; found without allocating. */
    private static final Command[] SLOTS;

    static {
        List<Command> all = new ArrayList<>();
        Registry r = (name, arity, beforeAuth, body) ->
                all.add(new Command(all.size(), name, arity, beforeAuth, WRITES.contains(name), body));
        ConnectionCommands.register(r);
        ServerCommands.register(r);
        StringCommands.register(r);
        ExpiryCommands.register(r);
        KeyCommands.register(r);
        COMMANDS = Collections.unmodifiableList(all);
        SLOTS = new Command[Integer.highestOneBit(all.size() * 4)];
        for (Command c : all) {
            byte[] n = c.name().getBytes(StandardCharsets.US_ASCII);
            int i = foldedHash(n) & (SLOTS.length - 1);
            while (SLOTS[i] != null) {
                i = (i + 1) & (SLOTS.length - 1);
            }
            SLOTS[i] = c;
        }
    }

    /** @return a hash of the name's bytes with ASCII letters folded to lower case */
    private static int foldedHash(byte[] name) {
        int h = 0;
        for (byte b : name) {
            h = 31 * h + lower(b);
        }
        return h ^ (h >>> 16);
    }

    private static int lower(byte b) {
        return b >= 'A' && b <= 'Z' ? b + 32 : b;
    }

    /** @return the command named by these bytes in any case, or null */
    static Command lookup(byte[] name) {
        if (name.length > 32) {
            return null;
        }
        int i = foldedHash(name) & (SLOTS.length - 1);
        for (Command c; (c = SLOTS[i]) != null; i = (i + 1) & (SLOTS.length - 1)) {
            String n = c.name();
            if (n.length() == name.length && sameFolded(n, name)) {
                return c;
            }
        }
        return null;
    }

    private static boolean sameFolded(String lowerName, byte[] name) {
        for (int k = 0; k < name.length; k++) {
            if (lowerName.charAt(k) != lower(name[k])) {
                return false;
            }
        }
        return true;
    }

    /** @return every command, by id (index) */
    static List<Command> all() {
        return COMMANDS;
    }

    /** Where command classes add their commands. */
    @FunctionalInterface
    interface Registry {
        void add(String name, int arity, boolean beforeAuth, Body body);

        default void add(String name, int arity, Body body) {
            add(name, arity, false, body);
        }
    }

    private static final RedisMessage NOAUTH = Replies.error("NOAUTH Authentication required.");

    private CommandTable() {
    }

    /** @return how many commands the server knows ({@code COMMAND COUNT}) */
    static int count() {
        return COMMANDS.size();
    }

    /**
     * Runs one request.
     *
     * @param args the command name then its arguments, at least one
     * @return the reply
     */
    static RedisMessage execute(ServerContext server, ClientSession session, byte[][] args) {
        Command command = lookup(args[0]);
        ServerStats stats = server.stats;
        stats.commands.increment();
        RedisMessage reply;
        if (command == null) {
            reply = session.authenticated ? Replies.unknown(args) : NOAUTH;
        } else if (!session.authenticated && !command.beforeAuth()) {
            reply = NOAUTH;
        } else if (command.arity() > 0 ? args.length != command.arity() : args.length < -command.arity()) {
            reply = Replies.arity(command.name());
        } else {
            long start = System.nanoTime();
            if (command.write()) {
                session.dirtyDatabases |= 1 << session.db; // before running: a failed write may have written
            } else if (command.name().equals("flushall")) {
                session.dirtyDatabases = (1 << Databases.COUNT) - 1;
            }
            reply = command.body().run(server, session, args);
            ServerStats.CommandCounter counter = stats.command(command.id());
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
