package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every command the server knows, by lower-case name, and the dispatch of one request: lookup,
 * arity check (Redis's counts and errors), login check, run, count. The table is filled once by
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
     * @param id        index in {@link #all()}
     * @param name      lower-case name
     * @param arity     Redis's arity: argument count including the name; negative = at least that many
     * @param beforeAuth whether it runs before the client logged in (AUTH, HELLO, QUIT)
     * @param write     whether it may change its database
     * @param keys      where its keys are, or null if it names none
     * @param body      what it does
     */
    record Command(int id, String name, int arity, boolean beforeAuth, boolean write, Keys keys, Body body) {
    }

    /**
     * Where a command's keys are among its arguments, as Redis's key specification says it: from
     * {@code first} to {@code last} (negative: counted from the end, -1 the last argument) in steps
     * of {@code step}.
     */
    record Keys(int first, int last, int step) {
        /** The commands whose only key is their first argument. */
        static final Keys FIRST = new Keys(1, 1, 1);

        /**
         * @return the number of keys a request of this command names (0 if it is too short)
         */
        int count(byte[][] args) {
            int end = last < 0 ? args.length + last : Math.min(last, args.length - 1);
            return end < first ? 0 : (end - first) / step + 1;
        }
    }

    /** Commands that name no key. */
    private static final Set<String> KEYLESS = Set.of("ping", "echo", "quit", "select", "auth", "hello", "client",
            "post", "host:", "keys", "scan", "randomkey", "time", "dbsize", "flushdb", "flushall", "command", "config", "info",
            "function");
    /** Commands with other keys than their first argument; the rest have {@link Keys#FIRST}. */
    private static final Map<String, Keys> MORE_KEYS = Map.of(
            "del", new Keys(1, -1, 1), "unlink", new Keys(1, -1, 1), "exists", new Keys(1, -1, 1),
            "mget", new Keys(1, -1, 1), "mset", new Keys(1, -1, 2), "msetnx", new Keys(1, -1, 2),
            "rename", new Keys(1, 2, 1), "renamenx", new Keys(1, 2, 1));

    /** Commands that change a database: their database is forced to disk under {@link FsyncPolicy#ALWAYS}. */
    private static final Set<String> WRITES = Set.of("set", "setnx", "setex", "psetex", "getset", "getdel", "getex",
            "mset", "msetnx", "incr", "decr", "incrby", "decrby", "incrbyfloat", "append", "setrange", "del", "unlink",
            "rename", "renamenx", "expire", "pexpire", "expireat", "pexpireat", "persist", "flushdb");

    /**
     * Commands that can leave an expiring entry where the expiry reaper's pass may not have looked:
     * they give a key an expiry or move an expiring value to another key. The others keep the
     * expiry of an entry that was there (INCR, APPEND...) or set none.
     */
    private static final Set<String> ADD_EXPIRY = Set.of("setex", "psetex", "expire", "pexpire", "expireat",
            "pexpireat", "rename", "renamenx");

    /** @return whether a request of this command may have added an expiring entry (see {@link #ADD_EXPIRY}) */
    private static boolean mayAddExpiry(Command command, byte[][] args) {
        String name = command.name();
        if (name.equals("set")) {
            return args.length > 3; // EX, PX, EXAT or PXAT among the options (or only NX, XX, GET: counted anyway)
        }
        if (name.equals("getex")) {
            return args.length > 2;
        }
        return ADD_EXPIRY.contains(name);
    }

    /** Every command, by id. */
    private static final List<Command> COMMANDS;
    /** Open-addressing table of the commands by case-folded name hash; found without allocating. */
    private static final Command[] SLOTS;

    static {
        List<Command> all = new ArrayList<>();
        Registry r = (name, arity, beforeAuth, body) ->
                all.add(new Command(all.size(), name, arity, beforeAuth, WRITES.contains(name),
                        KEYLESS.contains(name) ? null : MORE_KEYS.getOrDefault(name, Keys.FIRST), body));
        ConnectionCommands.register(r);
        ServerCommands.register(r);
        ConfigCommands.register(r);
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
        // Redis's order: an unknown command or a wrong argument count is answered as such even
        // before the client logged in; only then is a login required.
        if (command == null) {
            reply = Replies.unknown(args);
        } else if (command.arity() > 0 ? args.length != command.arity() : args.length < -command.arity()) {
            reply = Replies.arity(command.name());
        } else if (!session.authenticated && !command.beforeAuth()) {
            reply = NOAUTH;
        } else {
            long start = System.nanoTime();
            if (command.write()) {
                session.dirtyDatabases |= 1 << session.db; // before running: a failed write may have written
            } else if (command.name().equals("flushall")) {
                session.dirtyDatabases = (1 << Databases.COUNT) - 1;
            }
            reply = command.body().run(server, session, args);
            if (mayAddExpiry(command, args)) {
                server.expiryWrites.incrementAndGet(); // after the write landed: see ExpiryReaper
            }
            ServerStats.CommandCounter counter = stats.command(command.id());
            counter.calls.increment();
            long micros = (System.nanoTime() - start) / 1000;
            counter.micros.add(micros);
            stats.recordLatency(micros);
            if (Replies.isError(reply)) {
                counter.errors.increment();
            }
        }
        if (Replies.isError(reply)) {
            stats.errorReplies.increment();
        }
        return reply;
    }
}
