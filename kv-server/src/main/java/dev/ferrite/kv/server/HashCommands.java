package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The hash commands: HSET HMSET HSETNX HGET HMGET HGETALL HKEYS HVALS HDEL HEXISTS HLEN HSTRLEN
 * HINCRBY HINCRBYFLOAT HRANDFIELD HSCAN, with Redis's replies and error strings. A hash's fields
 * are elements of its collection ({@link CollectionStore}), in the order of their bytes; every
 * write is one atomic change ({@link CollectionWrite}), costing O(log n) per field it touches.
 * Stateless.
 */
final class HashCommands {

    private static final RedisMessage NOT_INTEGER_VALUE = Replies.error("ERR hash value is not an integer");
    private static final RedisMessage NOT_FLOAT_VALUE = Replies.error("ERR hash value is not a float");
    private static final RedisMessage NOT_FLOAT = Replies.error("ERR value is not a valid float");

    private HashCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("hset", -4, (c, s, a) -> set(c, s, a, "hset"));
        r.add("hmset", -4, (c, s, a) -> set(c, s, a, "hmset"));
        r.add("hsetnx", 4, HashCommands::setNx);
        r.add("hget", 3, (c, s, a) -> {
            long id = id(c, s, a[1]);
            return Replies.bulk(id == 0 ? null : c.databases.collections().get(id, a[2]));
        });
        r.add("hmget", -3, HashCommands::mget);
        r.add("hgetall", 2, (c, s, a) -> all(c, s, a[1], true, true));
        r.add("hkeys", 2, (c, s, a) -> all(c, s, a[1], true, false));
        r.add("hvals", 2, (c, s, a) -> all(c, s, a[1], false, true));
        r.add("hdel", -3, HashCommands::del);
        r.add("hexists", 3, (c, s, a) -> {
            long id = id(c, s, a[1]);
            return id != 0 && c.databases.collections().get(id, a[2]) != null ? Replies.ONE : Replies.ZERO;
        });
        r.add("hlen", 2, (c, s, a) -> {
            long id = id(c, s, a[1]);
            return Replies.integer(id == 0 ? 0 : c.databases.collections().size(id));
        });
        r.add("hstrlen", 3, (c, s, a) -> {
            long id = id(c, s, a[1]);
            byte[] v = id == 0 ? null : c.databases.collections().get(id, a[2]);
            return Replies.integer(v == null ? 0 : v.length);
        });
        r.add("hincrby", 4, HashCommands::incrBy);
        r.add("hincrbyfloat", 4, HashCommands::incrByFloat);
        r.add("hrandfield", -2, HashCommands::randField);
        r.add("hscan", -3, (c, s, a) -> CollectionScan.scan(c, s, a, ValueLayout.HASH, v -> v));
    }

    /** @return the id of the hash at {@code key}, 0 if there is none; WRONGTYPE if another type is there */
    private static long id(ServerContext c, ClientSession s, byte[] key) {
        byte[] stored = c.keyspace(s).collection(key, ValueLayout.HASH);
        return stored == null ? 0 : ValueLayout.id(stored);
    }

    /** @return an error reply if one of the members named from {@code from} (every {@code step}-th) is too long */
    static RedisMessage tooLong(ServerContext c, byte[][] a, int from, int step) {
        for (int i = from; i < a.length; i += step) {
            RedisMessage e = c.databases.collections().tooLong(a[i]);
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    /** HSET key field value [field value ...] (the fields added) and HMSET (OK). */
    private static RedisMessage set(ServerContext c, ClientSession s, byte[][] a, String name) {
        if (a.length % 2 != 0) {
            return Replies.arity(name);
        }
        RedisMessage e = tooLong(c, a, 2, 2);
        if (e != null) {
            return e;
        }
        CollectionStore store = c.databases.collections();
        long added = CollectionWrite.run(c, s, a[1], ValueLayout.HASH, true, KeyspaceEvents.HASH, "hset", op -> {
            long n = 0;
            for (int i = 2; i < a.length; i += 2) {
                n += store.put(op.id, a[i], a[i + 1]) == null ? 1 : 0;
            }
            op.changed = true;
            op.holdsElements = true;
            return n;
        }, () -> 0L);
        return name.equals("hmset") ? Replies.OK : Replies.integer(added);
    }

    private static RedisMessage setNx(ServerContext c, ClientSession s, byte[][] a) {
        RedisMessage e = tooLong(c, a, 2, 2);
        if (e != null) {
            return e;
        }
        CollectionStore store = c.databases.collections();
        return CollectionWrite.run(c, s, a[1], ValueLayout.HASH, true, KeyspaceEvents.HASH, "hset", op -> {
            if (store.get(op.id, a[2]) != null) {
                return Replies.ZERO;
            }
            store.put(op.id, a[2], a[3]);
            op.changed = true;
            return Replies.ONE;
        }, () -> Replies.ZERO);
    }

    private static RedisMessage mget(ServerContext c, ClientSession s, byte[][] a) {
        long id = id(c, s, a[1]);
        CollectionStore store = c.databases.collections();
        List<RedisMessage> out = new ArrayList<>(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            out.add(Replies.bulk(id == 0 ? null : store.get(id, a[i])));
        }
        return Replies.array(out);
    }

    /** HGETALL, HKEYS, HVALS: fields and/or values, in the fields' order. */
    private static RedisMessage all(ServerContext c, ClientSession s, byte[] key, boolean fields, boolean values) {
        long id = id(c, s, key);
        List<RedisMessage> out = new ArrayList<>();
        if (id != 0) {
            for (Map.Entry<byte[], byte[]> e : c.databases.collections().elements(id).entrySet()) {
                if (fields) {
                    out.add(Replies.bulk(CollectionLayout.member(e.getKey())));
                }
                if (values) {
                    out.add(Replies.bulk(e.getValue()));
                }
            }
        }
        return Replies.array(out);
    }

    private static RedisMessage del(ServerContext c, ClientSession s, byte[][] a) {
        return removeMembers(c, s, a, ValueLayout.HASH, KeyspaceEvents.HASH, "hdel");
    }

    /**
     * HDEL and SREM: removes the members named from the third argument on.
     *
     * @return how many were there
     */
    static RedisMessage removeMembers(ServerContext c, ClientSession s, byte[][] a, byte type, int eventClass, String event) {
        CollectionStore store = c.databases.collections();
        long removed = CollectionWrite.run(c, s, a[1], type, false, eventClass, event, op -> {
            long n = 0;
            for (int i = 2; i < a.length; i++) {
                if (store.tooLong(a[i]) == null && store.remove(op.id, a[i]) != null) {
                    n++;
                }
            }
            op.changed = n > 0;
            return n;
        }, () -> 0L);
        return Replies.integer(removed);
    }

    private static RedisMessage incrBy(ServerContext c, ClientSession s, byte[][] a) {
        Long delta = Args.parseLong(a[3]);
        if (delta == null) {
            return Replies.NOT_INTEGER;
        }
        RedisMessage e = tooLong(c, a, 2, 2);
        if (e != null) {
            return e;
        }
        CollectionStore store = c.databases.collections();
        return CollectionWrite.run(c, s, a[1], ValueLayout.HASH, true, KeyspaceEvents.HASH, "hincrby", op -> {
            byte[] v = store.get(op.id, a[2]);
            Long current = v == null ? Long.valueOf(0) : v.length <= 20 ? Args.parseLong(v) : null;
            if (current == null) {
                return NOT_INTEGER_VALUE;
            }
            long next = current + delta;
            if (((current ^ next) & (delta ^ next)) < 0) {
                return Replies.OVERFLOW;
            }
            store.put(op.id, a[2], Long.toString(next).getBytes(StandardCharsets.US_ASCII));
            op.changed = true;
            return Replies.integer(next);
        }, () -> Replies.ZERO);
    }

    private static RedisMessage incrByFloat(ServerContext c, ClientSession s, byte[][] a) {
        LongDouble.Value delta = LongDouble.parse(a[3]);
        if (delta == null) {
            return NOT_FLOAT;
        }
        if (delta.infinite()) {
            return Replies.error("ERR value is NaN or Infinity");
        }
        RedisMessage e = tooLong(c, a, 2, 2);
        if (e != null) {
            return e;
        }
        CollectionStore store = c.databases.collections();
        return CollectionWrite.run(c, s, a[1], ValueLayout.HASH, true, KeyspaceEvents.HASH, "hincrbyfloat", op -> {
            byte[] v = store.get(op.id, a[2]);
            LongDouble.Value current = v == null ? LongDouble.ZERO : LongDouble.parse(v);
            if (current == null) {
                return NOT_FLOAT_VALUE;
            }
            LongDouble.Value next = LongDouble.add(current, delta);
            if (next.infinite()) {
                return Replies.error("ERR increment would produce NaN or Infinity");
            }
            byte[] text = LongDouble.format(next.value()).getBytes(StandardCharsets.US_ASCII);
            store.put(op.id, a[2], text);
            op.changed = true;
            return Replies.bulk(text);
        }, () -> Replies.ZERO);
    }

    /** HRANDFIELD key [count [WITHVALUES]]. */
    private static RedisMessage randField(ServerContext c, ClientSession s, byte[][] a) {
        Long count = a.length >= 3 ? Args.parseLong(a[2]) : null; // Redis's order: count, syntax, range
        if (a.length >= 3 && count == null) {
            return Replies.NOT_INTEGER;
        }
        if (count != null && count == Long.MIN_VALUE) {
            return Replies.error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
        }
        if (a.length > 4 || a.length == 4 && !Args.lower(a[3]).equals("withvalues")) {
            return Replies.SYNTAX;
        }
        boolean withValues = a.length == 4;
        if (count != null && (withValues && (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2)
                || count < -CollectionScan.MOST_PICKS)) {
            return Replies.error("ERR value is out of range");
        }
        long id = id(c, s, a[1]);
        if (count == null) {
            if (id == 0) {
                return Replies.bulk((byte[]) null);
            }
            List<byte[]> one = CollectionScan.random(c.databases.collections(), id, 1, true);
            return Replies.bulk(one.isEmpty() ? null : CollectionLayout.member(one.get(0)));
        }
        if (id == 0 || count == 0) {
            return Replies.array(List.of());
        }
        CollectionStore store = c.databases.collections();
        List<byte[]> keys = CollectionScan.random(store, id, Math.abs(count), count < 0);
        List<RedisMessage> out = new ArrayList<>();
        for (byte[] k : keys) {
            out.add(Replies.bulk(CollectionLayout.member(k)));
            if (withValues) {
                byte[] v = store.get(id, CollectionLayout.member(k));
                out.add(Replies.bulk(v == null ? new byte[0] : v));
            }
        }
        return Replies.array(out);
    }

    /**
     * @return Redis's OBJECT ENCODING of a hash: {@code listpack} while it has at most
     *         {@code hash-max-listpack-entries} fields, none of field or value longer than
     *         {@code hash-max-listpack-value} bytes, else {@code hashtable}
     */
    static String encoding(ServerContext c, long id) {
        CollectionStore store = c.databases.collections();
        long entries = c.threshold("hash-max-listpack-entries");
        long value = c.threshold("hash-max-listpack-value");
        if (store.size(id) > entries) {
            return "hashtable";
        }
        for (Map.Entry<byte[], byte[]> e : store.elements(id).entrySet()) {
            if (e.getKey().length - CollectionLayout.PREFIX > value || e.getValue().length > value) {
                return "hashtable";
            }
        }
        return "listpack";
    }
}
