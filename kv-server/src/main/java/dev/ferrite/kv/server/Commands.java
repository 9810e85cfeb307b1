package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The commands the server knows, with Redis's documented behaviour and error strings: strings
 * (GET, SET and its options, MGET, MSET, INCR and friends, APPEND, STRLEN...), expiry (EXPIRE,
 * TTL, PERSIST...; kept in the stored value, so it survives a restart; an expired key is never
 * returned and is removed when touched), keys (DEL, EXISTS, TYPE, DBSIZE, FLUSHDB) and the
 * connection (PING, ECHO, SELECT, QUIT, TIME). Atomic per key across threads and processes: every
 * read-modify-write is one {@link FerriteMap#compute} on the key.
 *
 * <p>Thread-safe: the table is immutable; a session is used by its channel's thread only.
 */
final class Commands {

    /** A command: its arity as Redis counts it (name included; negative = at least) and its body. */
    private record Command(String name, int arity, Body body) {
    }

    @FunctionalInterface
    private interface Body {
        RedisMessage run(Commands c, ClientSession s, byte[][] a);
    }

    private static final Map<String, Command> TABLE = new HashMap<>();

    /** The server version HELLO reports. */
    static final String VERSION = "0.1.0";

    static {
        add("ping", -1, Commands::ping);
        add("echo", 2, (c, s, a) -> Replies.bulk(a[1]));
        add("quit", -1, (c, s, a) -> {
            s.quit = true;
            return Replies.OK;
        });
        add("select", 2, Commands::select);
        add("time", 1, (c, s, a) -> time());
        add("dbsize", 1, (c, s, a) -> Replies.integer(c.db(s).longSize()));
        add("flushdb", -1, (c, s, a) -> {
            c.db(s).clear();
            return Replies.OK;
        });
        add("flushall", -1, Commands::flushAll);
        add("command", -1, Commands::command);
        add("hello", -1, Commands::hello);
        add("client", -2, Commands::client);
        add("auth", -2, (c, s, a) -> Replies.error("ERR AUTH <password> called without any password configured for"
                + " the default user. Are you sure your configuration is correct?"));
        add("config", -2, Commands::config);
        add("get", 2, Commands::get);
        add("set", -3, Commands::set);
        add("setnx", 3, (c, s, a) -> Replies.integer(c.store(s, a[1], a[2], Condition.NX, ValueLayout.NO_EXPIRY, false, false) ? 1 : 0));
        add("getset", 3, Commands::getSet);
        add("getdel", 2, Commands::getDel);
        add("del", -2, Commands::del);
        add("unlink", -2, Commands::del);
        add("exists", -2, Commands::exists);
        add("type", 2, (c, s, a) -> Replies.simple(c.live(s, a[1]) == null ? "none" : "string"));
        add("mget", -2, Commands::mget);
        add("mset", -3, Commands::mset);
        add("incr", 2, (c, s, a) -> c.incrBy(s, a[1], 1));
        add("decr", 2, (c, s, a) -> c.incrBy(s, a[1], -1));
        add("incrby", 3, (c, s, a) -> byAmount(c, s, a, false));
        add("decrby", 3, (c, s, a) -> byAmount(c, s, a, true));
        add("append", 3, Commands::append);
        add("strlen", 2, (c, s, a) -> {
            byte[] v = c.live(s, a[1]);
            return Replies.integer(v == null ? 0 : v.length - ValueLayout.DATA);
        });
        add("ttl", 2, (c, s, a) -> c.ttl(s, a[1], false));
        add("pttl", 2, (c, s, a) -> c.ttl(s, a[1], true));
        add("expire", 3, (c, s, a) -> c.expire(s, a, 1000, false));
        add("pexpire", 3, (c, s, a) -> c.expire(s, a, 1, false));
        add("expireat", 3, (c, s, a) -> c.expire(s, a, 1000, true));
        add("pexpireat", 3, (c, s, a) -> c.expire(s, a, 1, true));
        add("persist", 2, Commands::persist);
    }

    private static void add(String name, int arity, Body body) {
        TABLE.put(name, new Command(name, arity, body));
    }

    /** @return how many commands the server knows ({@code COMMAND COUNT}) */
    static int count() {
        return TABLE.size();
    }

    private final Databases databases;

    Commands(Databases databases) {
        this.databases = databases;
    }

    /**
     * Runs one request.
     *
     * @param session the client's state
     * @param args    the command name then its arguments, at least one
     * @return the reply
     */
    RedisMessage execute(ClientSession session, byte[][] args) {
        String name = new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        Command command = TABLE.get(name);
        if (command == null) {
            return Replies.unknown(args);
        }
        int arity = command.arity();
        if (arity > 0 ? args.length != arity : args.length < -arity) {
            return Replies.arity(name);
        }
        return command.body().run(this, session, args);
    }

    private FerriteMap<byte[], byte[]> db(ClientSession s) {
        return databases.get(s.db);
    }

    // ---- connection --------------------------------------------------------------------------

    private static RedisMessage ping(Commands c, ClientSession s, byte[][] a) {
        if (a.length > 2) {
            return Replies.arity("ping");
        }
        return a.length == 2 ? Replies.bulk(a[1]) : Replies.PONG;
    }

    private static RedisMessage select(Commands c, ClientSession s, byte[][] a) {
        Long index = parseLong(a[1]);
        if (index == null) {
            return Replies.NOT_INTEGER;
        }
        if (index < 0 || index >= Databases.COUNT) {
            return Replies.DB_RANGE;
        }
        s.db = (int) (long) index;
        return Replies.OK;
    }

    private static RedisMessage time() {
        Instant now = Instant.now();
        return Replies.array(List.of(Replies.bulk(Long.toString(now.getEpochSecond())),
                Replies.bulk(Long.toString(now.getNano() / 1000))));
    }

    private static RedisMessage flushAll(Commands c, ClientSession s, byte[][] a) {
        for (int i = 0; i < Databases.COUNT; i++) {
            c.databases.get(i).clear();
        }
        return Replies.OK;
    }

    private static RedisMessage command(Commands c, ClientSession s, byte[][] a) {
        if (a.length >= 2 && new String(a[1], StandardCharsets.ISO_8859_1).equalsIgnoreCase("count")) {
            return Replies.integer(count());
        }
        // COMMAND and COMMAND DOCS: redis-cli asks on connect for hints; none is a valid answer.
        return Replies.array(List.of());
    }

    /**
     * HELLO [protover ...]: RESP2 only. A request for 3 gets Redis's NOPROTO error, on which clients
     * (Lettuce) fall back to RESP2; 2 or none gets the server's description as a flat array.
     */
    private static RedisMessage hello(Commands c, ClientSession s, byte[][] a) {
        if (a.length >= 2) {
            Long version = parseLong(a[1]);
            if (version == null) {
                return Replies.error("ERR Protocol version is not an integer or out of range");
            }
            if (version != 2) {
                return Replies.error("NOPROTO unsupported protocol version");
            }
            for (int i = 2; i < a.length; i++) {
                String opt = lower(a[i]);
                if (opt.equals("setname") && i + 1 < a.length) {
                    RedisMessage bad = c.setName(s, a[++i]);
                    if (bad != null) {
                        return bad;
                    }
                } else if (opt.equals("auth") && i + 2 < a.length) {
                    return Replies.error("WRONGPASS invalid username-password pair or user is disabled.");
                } else {
                    return Replies.error("ERR Syntax error in HELLO option '" + Replies.printable(a[i], 64) + "'");
                }
            }
        }
        return Replies.array(List.of(Replies.bulk("server"), Replies.bulk("ferrite"),
                Replies.bulk("version"), Replies.bulk(VERSION),
                Replies.bulk("proto"), Replies.integer(2),
                Replies.bulk("id"), Replies.integer(s.id),
                Replies.bulk("mode"), Replies.bulk("standalone"),
                Replies.bulk("role"), Replies.bulk("master"),
                Replies.bulk("modules"), Replies.array(List.of())));
    }

    private static RedisMessage client(Commands c, ClientSession s, byte[][] a) {
        String sub = lower(a[1]);
        switch (sub) {
            case "id":
                return a.length == 2 ? Replies.integer(s.id) : Replies.arity("client|id");
            case "getname":
                return a.length == 2 ? Replies.bulk(s.name == null ? null : s.name.getBytes(StandardCharsets.UTF_8))
                        : Replies.arity("client|getname");
            case "setname": {
                if (a.length != 3) {
                    return Replies.arity("client|setname");
                }
                RedisMessage bad = c.setName(s, a[2]);
                return bad != null ? bad : Replies.OK;
            }
            case "setinfo": {
                if (a.length != 4) {
                    return Replies.arity("client|setinfo");
                }
                String attr = lower(a[2]);
                if (!attr.equals("lib-name") && !attr.equals("lib-ver")) {
                    return Replies.error("ERR Unrecognized option '" + Replies.printable(a[2], 64) + "'");
                }
                return Replies.OK;
            }
            default:
                return Replies.error("ERR unknown subcommand '" + Replies.printable(a[1], 64) + "'. Try CLIENT HELP.");
        }
    }

    /** Sets the connection name; Redis refuses spaces, newlines and other special characters. */
    private RedisMessage setName(ClientSession s, byte[] name) {
        for (byte b : name) {
            if (b < '!' || b > '~') {
                return Replies.error("ERR Client names cannot contain spaces, newlines or special characters.");
            }
        }
        s.name = name.length == 0 ? null : new String(name, StandardCharsets.US_ASCII);
        return null;
    }

    /** The settings CONFIG GET reports, as redis-benchmark and clients ask for them. */
    private static final String[][] SETTINGS = {
            {"databases", Integer.toString(Databases.COUNT)}, {"save", ""}, {"appendonly", "no"},
            {"maxmemory", "0"}, {"maxmemory-policy", "noeviction"}, {"timeout", "0"},
    };

    private static RedisMessage config(Commands c, ClientSession s, byte[][] a) {
        if (!lower(a[1]).equals("get")) {
            return Replies.error("ERR unknown subcommand '" + Replies.printable(a[1], 64) + "'. Try CONFIG HELP.");
        }
        if (a.length < 3) {
            return Replies.arity("config|get");
        }
        List<RedisMessage> out = new ArrayList<>();
        for (String[] setting : SETTINGS) {
            for (int i = 2; i < a.length; i++) {
                if (Glob.matches(lower(a[i]), setting[0])) {
                    out.add(Replies.bulk(setting[0]));
                    out.add(Replies.bulk(setting[1]));
                    break;
                }
            }
        }
        return Replies.array(out);
    }

    private static String lower(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
    }

    // ---- reads -------------------------------------------------------------------------------

    /** @return the stored value of a key that has not expired, or null (an expired one is removed) */
    private byte[] live(ClientSession s, byte[] key) {
        FerriteMap<byte[], byte[]> map = db(s);
        byte[] stored = map.get(key);
        if (stored == null) {
            return null;
        }
        if (ValueLayout.expired(stored, System.currentTimeMillis())) {
            map.remove(key, stored);
            return null;
        }
        return stored;
    }

    private static RedisMessage get(Commands c, ClientSession s, byte[][] a) {
        byte[] v = c.live(s, a[1]);
        return v == null ? Replies.NIL : Replies.bulk(ValueLayout.data(v));
    }

    private static RedisMessage mget(Commands c, ClientSession s, byte[][] a) {
        List<RedisMessage> out = new ArrayList<>(a.length - 1);
        for (int i = 1; i < a.length; i++) {
            byte[] v = c.live(s, a[i]);
            out.add(v == null ? Replies.NIL : Replies.bulk(ValueLayout.data(v)));
        }
        return Replies.array(out);
    }

    private static RedisMessage exists(Commands c, ClientSession s, byte[][] a) {
        long n = 0;
        for (int i = 1; i < a.length; i++) {
            if (c.live(s, a[i]) != null) {
                n++;
            }
        }
        return Replies.integer(n);
    }

    private RedisMessage ttl(ClientSession s, byte[] key, boolean millis) {
        byte[] v = live(s, key);
        if (v == null) {
            return Replies.integer(-2);
        }
        long at = ValueLayout.expireAt(v);
        if (at == ValueLayout.NO_EXPIRY) {
            return Replies.integer(-1);
        }
        long left = Math.max(0, at - System.currentTimeMillis());
        return Replies.integer(millis ? left : (left + 500) / 1000);
    }

    // ---- writes ------------------------------------------------------------------------------

    private enum Condition { ALWAYS, NX, XX }

    /**
     * Sets a key atomically.
     *
     * @param keepTtl   keep the old value's expiry (SET ... KEEPTTL)
     * @param returnOld put the old value (or null) in the session's {@code lastOld}
     * @return whether the value was written (false: the condition failed)
     */
    private boolean store(ClientSession s, byte[] key, byte[] data, Condition condition, long expireAt,
                          boolean keepTtl, boolean returnOld) {
        long now = System.currentTimeMillis();
        boolean[] written = {false};
        byte[][] old = {null};
        db(s).compute(key, (k, stored) -> {
            byte[] current = stored != null && !ValueLayout.expired(stored, now) ? stored : null;
            old[0] = current;
            if (condition == Condition.NX && current != null || condition == Condition.XX && current == null) {
                return current; // unchanged (an expired value is removed)
            }
            written[0] = true;
            long at = keepTtl && current != null ? ValueLayout.expireAt(current) : expireAt;
            return ValueLayout.encode(at, data);
        });
        s.lastOld = returnOld ? old[0] : null;
        return written[0];
    }

    private static RedisMessage set(Commands c, ClientSession s, byte[][] a) {
        Condition condition = Condition.ALWAYS;
        boolean get = false;
        boolean keepTtl = false;
        long expireAt = ValueLayout.NO_EXPIRY;
        boolean expirySet = false;
        for (int i = 3; i < a.length; i++) {
            String opt = new String(a[i], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
            boolean hasNext = i + 1 < a.length;
            switch (opt) {
                case "nx":
                case "xx":
                    if (condition != Condition.ALWAYS) {
                        return Replies.SYNTAX;
                    }
                    condition = opt.equals("nx") ? Condition.NX : Condition.XX;
                    break;
                case "get":
                    get = true;
                    break;
                case "keepttl":
                    if (expirySet) {
                        return Replies.SYNTAX;
                    }
                    keepTtl = true;
                    break;
                case "ex":
                case "px":
                case "exat":
                case "pxat":
                    if (!hasNext || expirySet || keepTtl) {
                        return Replies.SYNTAX;
                    }
                    Long n = parseLong(a[++i]);
                    if (n == null) {
                        return Replies.NOT_INTEGER;
                    }
                    Long at = expiry(opt, n, System.currentTimeMillis());
                    if (at == null) {
                        return Replies.error("ERR invalid expire time in 'set' command");
                    }
                    expireAt = at;
                    expirySet = true;
                    break;
                default:
                    return Replies.SYNTAX;
            }
        }
        boolean written = c.store(s, a[1], a[2], condition, expireAt, keepTtl, get);
        if (get) {
            return s.lastOld == null ? Replies.NIL : Replies.bulk(ValueLayout.data(s.lastOld));
        }
        return written ? Replies.OK : Replies.NIL;
    }

    /** @return the absolute expiry in ms for SET's EX/PX/EXAT/PXAT value, or null if invalid */
    private static Long expiry(String unit, long n, long now) {
        if (n <= 0) {
            return null;
        }
        boolean seconds = unit.equals("ex") || unit.equals("exat");
        if (seconds && n > Long.MAX_VALUE / 1000) {
            return null;
        }
        long ms = seconds ? n * 1000 : n;
        boolean relative = unit.equals("ex") || unit.equals("px");
        if (relative && ms > Long.MAX_VALUE - now) {
            return null;
        }
        return relative ? now + ms : ms;
    }

    private static RedisMessage getSet(Commands c, ClientSession s, byte[][] a) {
        c.store(s, a[1], a[2], Condition.ALWAYS, ValueLayout.NO_EXPIRY, false, true);
        return s.lastOld == null ? Replies.NIL : Replies.bulk(ValueLayout.data(s.lastOld));
    }

    private static RedisMessage getDel(Commands c, ClientSession s, byte[][] a) {
        long now = System.currentTimeMillis();
        byte[] removed = c.db(s).remove(a[1]);
        return removed == null || ValueLayout.expired(removed, now) ? Replies.NIL : Replies.bulk(ValueLayout.data(removed));
    }

    private static RedisMessage del(Commands c, ClientSession s, byte[][] a) {
        long now = System.currentTimeMillis();
        long n = 0;
        for (int i = 1; i < a.length; i++) {
            byte[] removed = c.db(s).remove(a[i]);
            if (removed != null && !ValueLayout.expired(removed, now)) {
                n++;
            }
        }
        return Replies.integer(n);
    }

    private static RedisMessage mset(Commands c, ClientSession s, byte[][] a) {
        if (a.length % 2 == 0) {
            return Replies.arity("mset");
        }
        for (int i = 1; i < a.length; i += 2) {
            c.store(s, a[i], a[i + 1], Condition.ALWAYS, ValueLayout.NO_EXPIRY, false, false);
        }
        return Replies.OK;
    }

    private static RedisMessage byAmount(Commands c, ClientSession s, byte[][] a, boolean negate) {
        Long n = parseLong(a[2]);
        if (n == null || negate && n == Long.MIN_VALUE) {
            return Replies.NOT_INTEGER;
        }
        return c.incrBy(s, a[1], negate ? -n : n);
    }

    private RedisMessage incrBy(ClientSession s, byte[] key, long delta) {
        long now = System.currentTimeMillis();
        RedisMessage[] reply = {null};
        db(s).compute(key, (k, stored) -> {
            byte[] current = stored != null && !ValueLayout.expired(stored, now) ? stored : null;
            long value = 0;
            if (current != null) {
                Long parsed = parseLong(ValueLayout.data(current));
                if (parsed == null) {
                    reply[0] = Replies.NOT_INTEGER;
                    return current;
                }
                value = parsed;
            }
            if (delta > 0 ? value > Long.MAX_VALUE - delta : value < Long.MIN_VALUE - delta) {
                reply[0] = Replies.OVERFLOW;
                return current;
            }
            long next = value + delta;
            reply[0] = Replies.integer(next);
            long at = current == null ? ValueLayout.NO_EXPIRY : ValueLayout.expireAt(current);
            return ValueLayout.encode(at, Long.toString(next).getBytes(StandardCharsets.US_ASCII));
        });
        return reply[0];
    }

    private static RedisMessage append(Commands c, ClientSession s, byte[][] a) {
        long now = System.currentTimeMillis();
        long[] length = {0};
        c.db(s).compute(a[1], (k, stored) -> {
            byte[] current = stored != null && !ValueLayout.expired(stored, now) ? stored : null;
            byte[] old = current == null ? new byte[0] : ValueLayout.data(current);
            byte[] joined = new byte[old.length + a[2].length];
            System.arraycopy(old, 0, joined, 0, old.length);
            System.arraycopy(a[2], 0, joined, old.length, a[2].length);
            length[0] = joined.length;
            return ValueLayout.encode(current == null ? ValueLayout.NO_EXPIRY : ValueLayout.expireAt(current), joined);
        });
        return Replies.integer(length[0]);
    }

    private RedisMessage expire(ClientSession s, byte[][] a, long unitMillis, boolean absolute) {
        Long n = parseLong(a[2]);
        if (n == null) {
            return Replies.NOT_INTEGER;
        }
        long now = System.currentTimeMillis();
        if (unitMillis > 1 && (n > Long.MAX_VALUE / unitMillis || n < Long.MIN_VALUE / unitMillis)) {
            return Replies.error("ERR invalid expire time in '" + new String(a[0], StandardCharsets.ISO_8859_1)
                    .toLowerCase(Locale.ROOT) + "' command");
        }
        long ms = n * unitMillis;
        if (!absolute && (ms > 0 && ms > Long.MAX_VALUE - now)) {
            return Replies.error("ERR invalid expire time in '" + new String(a[0], StandardCharsets.ISO_8859_1)
                    .toLowerCase(Locale.ROOT) + "' command");
        }
        long at = absolute ? ms : now + ms;
        boolean[] found = {false};
        db(s).computeIfPresent(a[1], (k, stored) -> {
            if (ValueLayout.expired(stored, now)) {
                return null;
            }
            found[0] = true;
            if (at <= now) {
                return null; // an expiry in the past deletes the key, as in Redis
            }
            byte[] copy = stored.clone();
            ValueLayout.putLong(copy, ValueLayout.EXPIRE_AT, at);
            return copy;
        });
        return Replies.integer(found[0] ? 1 : 0);
    }

    private static RedisMessage persist(Commands c, ClientSession s, byte[][] a) {
        long now = System.currentTimeMillis();
        boolean[] changed = {false};
        c.db(s).computeIfPresent(a[1], (k, stored) -> {
            if (ValueLayout.expired(stored, now)) {
                return null;
            }
            if (ValueLayout.expireAt(stored) == ValueLayout.NO_EXPIRY) {
                return stored;
            }
            changed[0] = true;
            byte[] copy = stored.clone();
            ValueLayout.putLong(copy, ValueLayout.EXPIRE_AT, ValueLayout.NO_EXPIRY);
            return copy;
        });
        return Replies.integer(changed[0] ? 1 : 0);
    }

    /**
     * Parses a decimal integer as Redis's {@code string2ll}: optional minus, digits, no leading
     * zero (except "0"), no plus sign, no spaces, within a long.
     *
     * @return the value, or null if the bytes are not such an integer
     */
    static Long parseLong(byte[] b) {
        int n = b.length;
        if (n == 0 || n > 20) {
            return null;
        }
        int i = 0;
        boolean negative = b[0] == '-';
        if (negative) {
            i = 1;
            if (n == 1) {
                return null;
            }
        }
        if (b[i] == '0' && (n - i > 1 || negative)) {
            return null;
        }
        long v = 0;
        for (; i < n; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return null;
            }
            // Accumulate negatively so Long.MIN_VALUE parses.
            if (v < (Long.MIN_VALUE + d) / 10) {
                return null;
            }
            v = v * 10 - d;
        }
        if (!negative) {
            if (v == Long.MIN_VALUE) {
                return null;
            }
            v = -v;
        }
        return v;
    }
}
