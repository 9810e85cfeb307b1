package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * The string commands: GET SET (EX PX EXAT PXAT NX XX GET KEEPTTL) SETNX SETEX PSETEX GETSET
 * GETDEL GETEX MGET MSET MSETNX APPEND STRLEN GETRANGE SETRANGE SUBSTR, with Redis's replies and
 * error strings (the counters are {@link CounterCommands}, LCS is {@link LcsCommand}). Each is
 * atomic per key across threads and processes; MSET and MSETNX run alone and journaled
 * ({@link CommandTable}): all keys or none, for readers and across a crash. Stateless.
 */
final class StringCommands {

    private static final RedisMessage TOO_BIG =
            Replies.error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");

    private StringCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("get", 2, (c, s, a) -> Replies.bulk(c.keyspace(s).liveData(a[1])));
        r.add("set", -3, StringCommands::set);
        r.add("setnx", 3, (c, s, a) -> Replies.integer(
                c.keyspace(s).store(a[1], a[2], Keyspace.Condition.NX, ValueLayout.NO_EXPIRY, false, null) ? 1 : 0));
        r.add("setex", 4, (c, s, a) -> setWithExpiry(c, s, a, "ex"));
        r.add("psetex", 4, (c, s, a) -> setWithExpiry(c, s, a, "px"));
        r.add("getset", 3, (c, s, a) -> {
            byte[][] old = {null};
            c.keyspace(s).store(a[1], a[2], Keyspace.Condition.ALWAYS, ValueLayout.NO_EXPIRY, false, old);
            return data(old[0]);
        });
        r.add("getdel", 2, (c, s, a) -> data(c.keyspace(s).removeString(a[1])));
        r.add("getex", -2, StringCommands::getEx);
        r.add("mget", -2, StringCommands::mget);
        r.add("mset", -3, StringCommands::mset);
        r.add("msetnx", -3, StringCommands::msetNx);
        r.add("append", 3, StringCommands::append);
        r.add("strlen", 2, (c, s, a) -> {
            byte[] v = c.keyspace(s).string(a[1]);
            return Replies.integer(v == null ? 0 : v.length - ValueLayout.DATA);
        });
        r.add("getrange", 4, StringCommands::getRange);
        r.add("substr", 4, StringCommands::getRange);
        r.add("setrange", 4, StringCommands::setRange);
    }

    /** @return a stored value's string as a bulk reply, or nil for null */
    private static RedisMessage data(byte[] stored) {
        return stored == null ? Replies.NIL : Replies.bulk(ValueLayout.data(stored));
    }

    private static RedisMessage set(ServerContext c, ClientSession s, byte[][] a) {
        StringOptions options = StringOptions.parse(a, 3, true);
        if (options == null) {
            return Replies.SYNTAX;
        }
        long expireAt = ValueLayout.NO_EXPIRY;
        if (options.expiryUnit != null) {
            Long n = Args.parseLong(options.expiry);
            if (n == null) {
                return Replies.NOT_INTEGER;
            }
            Long at = expiry(options.expiryUnit, n, System.currentTimeMillis());
            if (at == null) {
                return Replies.invalidExpire("set");
            }
            expireAt = at;
        }
        boolean get = options.has(StringOptions.GET);
        Keyspace.Condition condition = options.has(StringOptions.NX) ? Keyspace.Condition.NX
                : options.has(StringOptions.XX) ? Keyspace.Condition.XX : Keyspace.Condition.ALWAYS;
        byte[][] old = get ? new byte[1][] : null;
        boolean written = c.keyspace(s).store(a[1], a[2], condition, expireAt, options.has(StringOptions.KEEPTTL), old);
        if (get) {
            return data(old[0]);
        }
        return written ? Replies.OK : Replies.NIL;
    }

    /**
     * @param unit ex, px, exat or pxat
     * @return the absolute expiry in ms for such a value, or null if it is not positive or overflows
     */
    static Long expiry(String unit, long n, long now) {
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

    private static RedisMessage setWithExpiry(ServerContext c, ClientSession s, byte[][] a, String unit) {
        Long n = Args.parseLong(a[2]);
        if (n == null) {
            return Replies.NOT_INTEGER;
        }
        Long at = expiry(unit, n, System.currentTimeMillis());
        if (at == null) {
            return Replies.invalidExpire(Args.lower(a[0]));
        }
        c.keyspace(s).store(a[1], a[3], Keyspace.Condition.ALWAYS, at, false, null);
        return Replies.OK;
    }

    /**
     * GETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST]: the value, its expiry changed. As in
     * Redis, the options are parsed first, a missing key answers nil before the time is checked, and
     * a time already past deletes the key (its value is still the reply).
     */
    private static RedisMessage getEx(ServerContext c, ClientSession s, byte[][] a) {
        StringOptions options = StringOptions.parse(a, 2, false);
        if (options == null) {
            return Replies.SYNTAX;
        }
        Keyspace ks = c.keyspace(s);
        long now = System.currentTimeMillis();
        byte[] live = ks.string(a[1]);
        if (live == null || !options.has(StringOptions.PERSIST) && options.expiryUnit == null) {
            return data(live);
        }
        long newAt = ValueLayout.NO_EXPIRY;
        if (options.expiryUnit != null) {
            Long n = Args.parseLong(options.expiry);
            if (n == null) {
                return Replies.NOT_INTEGER;
            }
            Long at = expiry(options.expiryUnit, n, now);
            if (at == null) {
                return Replies.invalidExpire("getex");
            }
            newAt = at;
        }
        long expireAt = newAt;
        byte[][] value = {null};
        byte[][] before = {null};
        ks.writable().computeIfPresent(a[1], (k, stored) -> {
            Keyspace.checkString(k, stored);
            before[0] = stored;
            byte[] current = Keyspace.liveAt(stored, now);
            if (current == null) {
                return null;
            }
            value[0] = current;
            if (expireAt != ValueLayout.NO_EXPIRY && expireAt <= now) {
                return null; // an EXAT or PXAT already past deletes the key, as in Redis
            }
            if (ValueLayout.expireAt(current) == expireAt) {
                return current;
            }
            byte[] copy = current.clone();
            ValueLayout.setExpireAt(copy, expireAt);
            return copy;
        });
        if (value[0] == null) {
            ks.found(a[1], before[0], now);
        } else if (expireAt != ValueLayout.NO_EXPIRY) {
            ks.emit(a[1], KeyspaceEvents.GENERIC, expireAt <= now ? "del" : "expire");
        } else if (ValueLayout.expireAt(value[0]) != ValueLayout.NO_EXPIRY) {
            ks.emit(a[1], KeyspaceEvents.GENERIC, "persist");
        }
        return data(value[0]);
    }

    private static RedisMessage mget(ServerContext c, ClientSession s, byte[][] a) {
        Keyspace ks = c.keyspace(s);
        List<RedisMessage> out = new ArrayList<>(a.length - 1);
        for (int i = 1; i < a.length; i++) {
            byte[] data;
            try {
                data = ks.liveData(a[i]);
            } catch (WrongType collection) {
                data = null; // MGET answers nil for a key of another type, as Redis does
            }
            out.add(Replies.bulk(data));
        }
        return Replies.array(out);
    }

    private static RedisMessage mset(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length % 2 == 0) {
            return Replies.arity("mset");
        }
        Keyspace ks = c.keyspace(s);
        for (int i = 1; i < a.length; i += 2) {
            ks.store(a[i], a[i + 1], Keyspace.Condition.ALWAYS, ValueLayout.NO_EXPIRY, false, null);
        }
        return Replies.OK;
    }

    /** MSETNX: sets every key if none exists; runs alone and journaled ({@link CommandTable}). */
    private static RedisMessage msetNx(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length % 2 == 0) {
            return Replies.arity("msetnx");
        }
        Keyspace ks = c.keyspace(s);
        for (int i = 1; i < a.length; i += 2) {
            if (ks.live(a[i]) != null) {
                return Replies.ZERO;
            }
        }
        FerriteMap<byte[], byte[]> map = ks.writable();
        for (int i = 1; i < a.length; i += 2) {
            if (map.putBytes(a[i], ValueLayout.encode(ValueLayout.NO_EXPIRY, a[i + 1]))) {
                ks.emit(a[i], KeyspaceEvents.NEW, "new"); // not for a key named twice
            }
            ks.emit(a[i], KeyspaceEvents.STRING, "set");
        }
        return Replies.ONE;
    }

    /** Publishes a read-modify-write of a string: its event if it wrote, else only an expired value it met. */
    static void published(Keyspace ks, byte[] key, byte[] before, long now, boolean wrote, String event) {
        if (wrote) {
            ks.wrote(key, before, now, KeyspaceEvents.STRING, event);
        } else {
            ks.found(key, before, now);
        }
    }

    /**
     * APPEND; a result longer than the map takes gets Redis's string-length error and changes
     * nothing.
     */
    private static RedisMessage append(ServerContext c, ClientSession s, byte[][] a) {
        long now = System.currentTimeMillis();
        long[] length = {0};
        FerriteMap<byte[], byte[]> map = c.writable(s);
        long maxLength = map.maxValueSize() - ValueLayout.DATA;
        byte[][] before = {null};
        map.compute(a[1], (k, stored) -> {
            if (stored != null) {
                Keyspace.checkString(k, stored);
            }
            before[0] = stored;
            byte[] current = Keyspace.liveAt(stored, now);
            int oldLength = current == null ? 0 : current.length - ValueLayout.DATA;
            if ((long) oldLength + a[2].length > maxLength) {
                length[0] = -1;
                return current;
            }
            byte[] joined = new byte[ValueLayout.DATA + oldLength + a[2].length];
            if (current != null) {
                System.arraycopy(current, 0, joined, 0, current.length);
            }
            System.arraycopy(a[2], 0, joined, ValueLayout.DATA + oldLength, a[2].length);
            length[0] = oldLength + a[2].length;
            if (current != null) {
                ValueLayout.setForm(joined, ValueLayout.EDITED); // a new key is encoded as SET would
            }
            return joined;
        });
        published(c.keyspace(s), a[1], before[0], now, length[0] >= 0, "append");
        return length[0] < 0 ? TOO_BIG : Replies.integer(length[0]);
    }

    private static RedisMessage getRange(ServerContext c, ClientSession s, byte[][] a) {
        Long start = Args.parseLong(a[2]);
        Long end = Args.parseLong(a[3]);
        if (start == null || end == null) {
            return Replies.NOT_INTEGER;
        }
        byte[] v = c.keyspace(s).string(a[1]);
        long len = v == null ? 0 : v.length - ValueLayout.DATA;
        long from = start < 0 ? len + start : start;
        long to = end < 0 ? len + end : end;
        if (start < 0 && end < 0 && start > end) {
            return Replies.bulk(new byte[0]);
        }
        from = Math.max(0, from);
        to = Math.max(0, to);
        to = Math.min(to, len - 1);
        if (len == 0 || from > to) {
            return Replies.bulk(new byte[0]);
        }
        byte[] out = new byte[(int) (to - from + 1)];
        System.arraycopy(v, ValueLayout.DATA + (int) from, out, 0, out.length);
        return Replies.bulk(out);
    }

    private static RedisMessage setRange(ServerContext c, ClientSession s, byte[][] a) {
        Long offset = Args.parseLong(a[2]);
        if (offset == null) {
            return Replies.NOT_INTEGER;
        }
        if (offset < 0) {
            return Replies.error("ERR offset is out of range");
        }
        byte[] patch = a[3];
        if (patch.length == 0) {
            // Answered before the size check, as Redis does: setting nothing never fails.
            byte[] v = c.keyspace(s).string(a[1]);
            return Replies.integer(v == null ? 0 : v.length - ValueLayout.DATA);
        }
        FerriteMap<byte[], byte[]> map = c.writable(s);
        if (offset > map.maxValueSize() - ValueLayout.DATA - patch.length) { // no offset + length: it can overflow
            return TOO_BIG;
        }
        long now = System.currentTimeMillis();
        long[] length = {0};
        int at = (int) (long) offset;
        byte[][] before = {null};
        map.compute(a[1], (k, stored) -> {
            if (stored != null) {
                Keyspace.checkString(k, stored);
            }
            before[0] = stored;
            byte[] current = Keyspace.liveAt(stored, now);
            int oldLength = current == null ? 0 : current.length - ValueLayout.DATA;
            int newLength = Math.max(oldLength, at + patch.length);
            byte[] out = new byte[ValueLayout.DATA + newLength]; // zero-padded as Redis pads
            if (current != null) {
                System.arraycopy(current, 0, out, 0, current.length);
            }
            System.arraycopy(patch, 0, out, ValueLayout.DATA + at, patch.length);
            ValueLayout.setForm(out, ValueLayout.EDITED);
            length[0] = newLength;
            return out;
        });
        published(c.keyspace(s), a[1], before[0], now, true, "setrange");
        return Replies.integer(length[0]);
    }
}
