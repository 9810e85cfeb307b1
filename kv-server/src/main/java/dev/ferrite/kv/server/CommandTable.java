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
 * {@link ExpiryCommands}, {@link KeyCommands}, {@link PubSubCommands}...); anything else gets Redis's
 * unknown-command error.
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
     * @param alone     how it runs beside other commands ({@link Alone})
     * @param otherDatabases whether it may change databases besides the selected one
     * @param body      what it does
     */
    record Command(int id, String name, int arity, boolean beforeAuth, boolean write, Keys keys, Alone alone,
                   boolean otherDatabases, Body body) {
    }

    /** How a command runs beside the others, decided once per command when the table is filled. */
    enum Alone {
        /** Beside any other command ({@link CommandGate#enter}). */
        NO,
        /** With no other command running ({@link CommandGate#exclusive}). */
        YES,
        /** Alone and journaled when it names more than one entry ({@link #journaled}). */
        JOURNALED
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
            "function", "swapdb", "multi", "exec", "save", "discard", "unwatch", "shutdown", "subscribe", "unsubscribe", "psubscribe",
            "punsubscribe", "publish", "pubsub");
    /** Commands with other keys than their first argument; the rest have {@link Keys#FIRST}. */
    private static final Map<String, Keys> MORE_KEYS = Map.ofEntries(
            Map.entry("del", new Keys(1, -1, 1)), Map.entry("unlink", new Keys(1, -1, 1)),
            Map.entry("exists", new Keys(1, -1, 1)), Map.entry("touch", new Keys(1, -1, 1)),
            Map.entry("mget", new Keys(1, -1, 1)), Map.entry("mset", new Keys(1, -1, 2)),
            Map.entry("msetnx", new Keys(1, -1, 2)), Map.entry("rename", new Keys(1, 2, 1)),
            Map.entry("renamenx", new Keys(1, 2, 1)), Map.entry("copy", new Keys(1, 2, 1)),
            Map.entry("lcs", new Keys(1, 2, 1)), Map.entry("object", new Keys(2, 2, 1)),
            Map.entry("watch", new Keys(1, -1, 1)), Map.entry("memory", new Keys(2, 2, 1)),
            Map.entry("smove", new Keys(1, 2, 1)), Map.entry("sinter", new Keys(1, -1, 1)),
            Map.entry("sunion", new Keys(1, -1, 1)), Map.entry("sdiff", new Keys(1, -1, 1)),
            Map.entry("sinterstore", new Keys(1, -1, 1)), Map.entry("sunionstore", new Keys(1, -1, 1)),
            Map.entry("sdiffstore", new Keys(1, -1, 1)), Map.entry("sintercard", new Keys(2, -1, 1)),
            Map.entry("lmove", new Keys(1, 2, 1)), Map.entry("rpoplpush", new Keys(1, 2, 1)),
            Map.entry("blpop", new Keys(1, -2, 1)), Map.entry("brpop", new Keys(1, -2, 1)),
            Map.entry("blmove", new Keys(1, 2, 1)), Map.entry("brpoplpush", new Keys(1, 2, 1)),
            Map.entry("lmpop", new Keys(2, -2, 1)), Map.entry("blmpop", new Keys(3, -2, 1)),
            Map.entry("zmpop", new Keys(2, -2, 1)), Map.entry("bzmpop", new Keys(3, -2, 1)),
            Map.entry("bzpopmin", new Keys(1, -2, 1)), Map.entry("bzpopmax", new Keys(1, -2, 1)),
            Map.entry("zrangestore", new Keys(1, 2, 1)), Map.entry("zunionstore", new Keys(1, -1, 1)),
            Map.entry("zinterstore", new Keys(1, -1, 1)), Map.entry("zdiffstore", new Keys(1, -1, 1)),
            Map.entry("zunion", new Keys(2, -1, 1)), Map.entry("zinter", new Keys(2, -1, 1)),
            Map.entry("zdiff", new Keys(2, -1, 1)), Map.entry("zintercard", new Keys(2, -1, 1)));
    /** Commands that may change databases other than the selected one (all are forced under fsync always). */
    private static final Set<String> OTHER_DATABASES = Set.of("flushall", "swapdb", "move", "copy");

    /** Commands that change a database: their database is forced to disk under {@link FsyncPolicy#ALWAYS}. */
    private static final Set<String> WRITES = Set.of("set", "setnx", "setex", "psetex", "getset", "getdel", "getex",
            "mset", "msetnx", "incr", "decr", "incrby", "decrby", "incrbyfloat", "append", "setrange", "del", "unlink",
            "rename", "renamenx", "expire", "pexpire", "expireat", "pexpireat", "persist", "flushdb", "setbit", "copy",
            "move", "swapdb", "hset", "hmset", "hsetnx", "hdel", "hincrby", "hincrbyfloat", "sadd", "srem", "spop",
            "smove", "sinterstore", "sunionstore", "sdiffstore", "lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop",
            "lset", "lrem", "ltrim", "linsert", "lmove", "rpoplpush", "blpop", "brpop", "blmove", "brpoplpush", "lmpop", "blmpop",
            "zadd", "zincrby", "zrem", "zpopmin", "zpopmax", "zmpop", "bzpopmin", "bzpopmax", "bzmpop", "zremrangebyscore",
            "zremrangebyrank", "zremrangebylex", "zrangestore", "zunionstore", "zinterstore", "zdiffstore");

    /**
     * Commands that can leave an expiring entry where the expiry reaper's pass may not have looked:
     * they give a key an expiry or move an expiring value to another key. The others keep the
     * expiry of an entry that was there (INCR, APPEND...) or set none.
     */
    private static final Set<String> ADD_EXPIRY = Set.of("setex", "psetex", "expire", "pexpire", "expireat",
            "pexpireat", "rename", "renamenx");

    /** Commands that must run alone ({@link CommandGate#exclusive}): they change which map is which database. */
    private static final Set<String> EXCLUSIVE = Set.of("flushdb", "flushall", "swapdb", "exec");
    /**
     * Commands that change several entries: they run alone, their entries saved first in the
     * {@link UndoJournal}, so that a crash or a failure midway leaves none of their changes.
     */
    private static final Set<String> JOURNALED = Set.of("mset", "msetnx", "rename", "renamenx", "move", "del",
            "unlink", "smove", "lmove", "rpoplpush", "blmove", "brpoplpush");

    /**
     * Runs a command's body through the gate: alone, and journaled, where its kind needs it. A key
     * of the wrong type met ({@link WrongType}) is Redis's WRONGTYPE error.
     */
    private static RedisMessage run(ServerContext server, ClientSession session, Command command, byte[][] args) {
        try {
            return gated(server, session, command, args);
        } catch (WrongType e) {
            return WrongType.REPLY;
        }
    }

    private static RedisMessage gated(ServerContext server, ClientSession session, Command command, byte[][] args) {
        if (command.alone() == Alone.JOURNALED) {
            List<UndoJournal.Entry> entries = entries(command, session.db, args);
            if (entries.size() > 1) { // one entry changes in one step anyway
                return server.gate.exclusive(() -> journaled(server, entries, changesCollectionStore(command.name()),
                        () -> command.body().run(server, session, args)));
            }
        } else if (command.alone() == Alone.YES) {
            return server.gate.exclusive(() -> command.body().run(server, session, args));
        }
        CommandGate.Lane lane = server.gate.enter();
        try {
            return command.body().run(server, session, args);
        } finally {
            server.gate.exit(lane);
        }
    }

    /**
     * Runs {@code body}, which changes the entries, all or nothing: saved first, dropped after, put
     * back if it fails. Call under {@link CommandGate#exclusive}. A body that may also change
     * the collection store ({@code collections}, {@link #changesCollectionStore}) runs as one atomic change of the
     * {@link CollectionStore}, published with a mark that the command finished, so that a crash
     * either leaves the journal record to undo the entries (the change was not published) or the
     * mark to keep them (it was).
     */
    static RedisMessage journaled(ServerContext server, List<UndoJournal.Entry> entries, boolean collections,
                                  java.util.function.Supplier<RedisMessage> body) {
        UndoJournal journal = server.databases.journal();
        CollectionStore store = server.databases.collections();
        long id = journal.save(entries, server.databases);
        if (server.fsync == FsyncPolicy.ALWAYS) {
            journal.force();
        }
        RedisMessage reply;
        try {
            reply = !collections ? body.get() : store.locked(() -> store.change(() -> {
                RedisMessage r = body.get();
                store.finish(id);
                return r;
            }));
        } catch (RuntimeException | Error e) {
            journal.undo(id, server.databases);
            throw e;
        }
        if (collections && server.fsync == FsyncPolicy.ALWAYS) {
            store.force(); // the mark on disk before the record goes
        }
        journal.drop(id);
        if (collections) {
            store.forget(id);
        }
        return reply;
    }

    /**
     * @return whether a request of command {@code name} may change the {@link CollectionStore}:
     *         a collection's elements, or the owners of a collection whose key it moves (a journal
     *         that put the old name back over owners that name only the new one would leave a live
     *         collection to the sweep)
     */
    static boolean changesCollectionStore(String name) {
        return COLLECTION_WRITES.contains(name) || KEY_MOVES.contains(name);
    }

    /** Commands that give a key's value, a collection's among them, another name or database. */
    private static final Set<String> KEY_MOVES = Set.of("rename", "renamenx", "move");

    /** Commands that change collections' elements (their bodies run through {@link CollectionWrite}). */
    private static final Set<String> COLLECTION_WRITES = Set.of("hset", "hmset", "hsetnx", "hdel", "hincrby", "hincrbyfloat",
            "sadd", "srem", "spop", "smove", "sinterstore", "sunionstore", "sdiffstore", "lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop",
            "lset", "lrem", "ltrim", "linsert", "lmove", "rpoplpush", "blpop", "brpop", "blmove", "brpoplpush", "lmpop", "blmpop",
            "zadd", "zincrby", "zrem", "zpopmin", "zpopmax", "zmpop", "bzpopmin", "bzpopmax", "bzmpop", "zremrangebyscore",
            "zremrangebyrank", "zremrangebylex", "zrangestore", "zunionstore", "zinterstore", "zdiffstore");

    /**
     * @return the entries a request of this command may change: its keys in database {@code db},
     *         and for MOVE the key in the target database too
     */
    static List<UndoJournal.Entry> entries(Command command, int db, byte[][] args) {
        List<UndoJournal.Entry> out = new ArrayList<>();
        Keys keys = command.keys();
        if (keys != null) {
            int end = keys.last() < 0 ? args.length + keys.last() : Math.min(keys.last(), args.length - 1);
            for (int i = keys.first(); i <= end; i += keys.step()) {
                out.add(new UndoJournal.Entry(db, args[i]));
            }
        }
        if (command.name().equals("move") && args.length == 3) {
            Long target = Args.parseLong(args[2]);
            if (target != null && target >= 0 && target < Databases.COUNT) {
                out.add(new UndoJournal.Entry((int) (long) target, args[1]));
            }
        }
        return out;
    }

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
                        KEYLESS.contains(name) ? null : MORE_KEYS.getOrDefault(name, Keys.FIRST),
                        JOURNALED.contains(name) ? Alone.JOURNALED : EXCLUSIVE.contains(name) ? Alone.YES : Alone.NO,
                        OTHER_DATABASES.contains(name), body));
        ConnectionCommands.register(r);
        ServerCommands.register(r);
        InfoCommand.register(r);
        ConfigCommands.register(r);
        TransactionCommands.register(r);
        StringCommands.register(r);
        CounterCommands.register(r);
        ExpiryCommands.register(r);
        KeyCommands.register(r);
        BitCommands.register(r);
        LcsCommand.register(r);
        PubSubCommands.register(r);
        HashCommands.register(r);
        MemoryCommand.register(r);
        SetCommands.register(r);
        ListCommands.register(r);
        BlockingCommands.register(r);
        SortedSetCommands.register(r);
        SortedSetRanges.register(r);
        SortedSetAlgebra.register(r);
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
            stats.command(command.id()).rejected.increment();
        } else if (!session.authenticated && !command.beforeAuth()) {
            reply = NOAUTH;
            stats.command(command.id()).rejected.increment();
        } else if (session.subscriptions() > 0 && !PubSubCommands.allowedWhileSubscribed(command.name())) {
            reply = PubSubCommands.notAllowed(command.name(), args);
            stats.command(command.id()).rejected.increment();
        } else if (session.queued != null && TransactionCommands.refusedInMulti(command.name())) {
            reply = TransactionCommands.NOT_IN_MULTI;
            session.queueFailed = true; // EXEC answers EXECABORT
        } else if (session.queued != null && !TransactionCommands.runsInMulti(command.name())) {
            session.queued.add(args); // MULTI: run by EXEC
            reply = TransactionCommands.QUEUED;
        } else {
            long start = System.nanoTime();
            if (command.write()) {
                session.dirtyDatabases |= 1 << session.db; // before running: a failed write may have written
            }
            if (command.otherDatabases()) {
                session.dirtyDatabases = (1 << Databases.COUNT) - 1;
            }
            reply = run(server, session, command, args);
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
            stats.countError(Replies.errorPrefix(reply));
            if (session.queued != null && (command == null || reply == NOAUTH || Replies.isArityError(reply))) {
                session.queueFailed = true; // EXEC answers EXECABORT
            }
        }
        return reply;
    }
}
