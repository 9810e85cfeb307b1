package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The set commands: SADD SREM SISMEMBER SMISMEMBER SMEMBERS SCARD SPOP SRANDMEMBER SMOVE SINTER
 * SUNION SDIFF SINTERSTORE SUNIONSTORE SDIFFSTORE SINTERCARD SSCAN, with Redis's replies and error
 * strings. A set's members are elements of its collection ({@link CollectionStore}) with empty
 * values, in the order of their bytes; a write is one atomic change ({@link CollectionWrite}),
 * O(log n) per member it touches. The STORE forms make the destination a new collection, named
 * once whole. SMOVE runs alone and journaled ({@link CommandTable}). Stateless.
 */
final class SetCommands {

    private static final byte[] EMPTY = new byte[0];
    private static final RedisMessage NOT_POSITIVE = Replies.error("ERR value is out of range, must be positive");

    private SetCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("sadd", -3, SetCommands::add);
        r.add("srem", -3, (c, s, a) -> HashCommands.removeMembers(c, s, a, ValueLayout.SET, KeyspaceEvents.SET, "srem"));
        r.add("sismember", 3, (c, s, a) -> {
            long id = id(c, s, a[1]);
            return id != 0 && c.databases.collections().get(id, a[2]) != null ? Replies.ONE : Replies.ZERO;
        });
        r.add("smismember", -3, (c, s, a) -> {
            long id = id(c, s, a[1]);
            List<RedisMessage> out = new ArrayList<>();
            for (int i = 2; i < a.length; i++) {
                out.add(id != 0 && c.databases.collections().get(id, a[i]) != null ? Replies.ONE : Replies.ZERO);
            }
            return Replies.array(out);
        });
        r.add("smembers", 2, (c, s, a) -> members(members(c, id(c, s, a[1]))));
        r.add("scard", 2, (c, s, a) -> {
            long id = id(c, s, a[1]);
            return Replies.integer(id == 0 ? 0 : c.databases.collections().size(id));
        });
        r.add("spop", -2, SetCommands::pop);
        r.add("srandmember", -2, SetCommands::randomMember);
        r.add("smove", 4, SetCommands::move);
        r.add("sinter", -2, (c, s, a) -> combined(c, s, a, 1, a.length, Op.INTER, null));
        r.add("sunion", -2, (c, s, a) -> combined(c, s, a, 1, a.length, Op.UNION, null));
        r.add("sdiff", -2, (c, s, a) -> combined(c, s, a, 1, a.length, Op.DIFF, null));
        r.add("sinterstore", -3, (c, s, a) -> combined(c, s, a, 2, a.length, Op.INTER, "sinterstore"));
        r.add("sunionstore", -3, (c, s, a) -> combined(c, s, a, 2, a.length, Op.UNION, "sunionstore"));
        r.add("sdiffstore", -3, (c, s, a) -> combined(c, s, a, 2, a.length, Op.DIFF, "sdiffstore"));
        r.add("sintercard", -3, SetCommands::interCard);
        r.add("sscan", -3, (c, s, a) -> CollectionScan.scan(c, s, a, ValueLayout.SET, null));
    }

    /** @return the id of the set at {@code key}, 0 if there is none; WRONGTYPE if another type is there */
    private static long id(ServerContext c, ClientSession s, byte[] key) {
        byte[] stored = c.keyspace(s).collection(key, ValueLayout.SET);
        return stored == null ? 0 : ValueLayout.id(stored);
    }

    /** @return the members of set {@code id} (none for 0), in order */
    private static List<byte[]> members(ServerContext c, long id) {
        List<byte[]> out = new ArrayList<>();
        if (id != 0) {
            for (byte[] k : c.databases.collections().elements(id).keySet()) {
                out.add(CollectionLayout.member(k));
            }
        }
        return out;
    }

    private static RedisMessage members(List<byte[]> members) {
        List<RedisMessage> out = new ArrayList<>(members.size());
        for (byte[] m : members) {
            out.add(Replies.bulk(m));
        }
        return Replies.array(out);
    }

    private static RedisMessage add(ServerContext c, ClientSession s, byte[][] a) {
        RedisMessage e = HashCommands.tooLong(c, a, 2, 1);
        if (e != null) {
            return e;
        }
        CollectionStore store = c.databases.collections();
        long added = CollectionWrite.run(c, s, a[1], ValueLayout.SET, true, KeyspaceEvents.SET, "sadd", op -> {
            long n = 0;
            for (int i = 2; i < a.length; i++) {
                n += store.put(op.id, a[i], EMPTY) == null ? 1 : 0;
            }
            op.changed = n > 0;
            op.holdsElements = true;
            return n;
        }, () -> 0L);
        return Replies.integer(added);
    }

    /** SPOP key [count]: random members removed. */
    private static RedisMessage pop(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length > 3) {
            return Replies.SYNTAX;
        }
        Long count = a.length == 3 ? Args.parseLong(a[2]) : null;
        if (a.length == 3 && (count == null || count < 0)) {
            return NOT_POSITIVE;
        }
        CollectionStore store = c.databases.collections();
        if (count == null) {
            return CollectionWrite.run(c, s, a[1], ValueLayout.SET, false, KeyspaceEvents.SET, "spop", op -> {
                CollectionPositions.Span span = store.positions().span(op.id);
                if (span.size() == 0) {
                    return Replies.NIL;
                }
                // found by its rank and removed in one descent (the span is of this change: the ranks hold)
                byte[] picked = store.positions().removeElementAtRank(op.id, span.first() + ThreadLocalRandom.current().nextLong(span.size()));
                byte[] member = CollectionLayout.member(picked);
                op.changed = true;
                op.holdsElements = span.size() > 1; // known: no descent to ask whether the set is empty now
                return Replies.bulk(member);
            }, () -> Replies.NIL);
        }
        if (count == 0) {
            id(c, s, a[1]); // WRONGTYPE if it is not a set
            return Replies.array(List.of());
        }
        return CollectionWrite.run(c, s, a[1], ValueLayout.SET, false, KeyspaceEvents.SET, "spop", op -> {
            List<byte[]> picked = CollectionScan.random(store, op.id, count, false);
            List<byte[]> out = new ArrayList<>(picked.size());
            for (byte[] k : picked) {
                out.add(CollectionLayout.member(k));
                store.remove(op.id, CollectionLayout.member(k));
            }
            op.changed = !out.isEmpty();
            return members(out);
        }, () -> Replies.array(List.of()));
    }

    /** SRANDMEMBER key [count]. */
    private static RedisMessage randomMember(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length > 3) {
            return Replies.SYNTAX;
        }
        Long count = a.length == 3 ? Args.parseLong(a[2]) : null;
        if (a.length == 3 && count == null) {
            return Replies.NOT_INTEGER;
        }
        if (count != null && (count == Long.MIN_VALUE || count < -CollectionScan.MOST_PICKS)) {
            return Replies.error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
        }
        long id = id(c, s, a[1]);
        CollectionStore store = c.databases.collections();
        if (count == null) {
            List<byte[]> one = id == 0 ? List.of() : CollectionScan.random(store, id, 1, false);
            return Replies.bulk(one.isEmpty() ? null : CollectionLayout.member(one.get(0)));
        }
        if (id == 0 || count == 0) {
            return Replies.array(List.of());
        }
        List<byte[]> out = new ArrayList<>();
        for (byte[] k : CollectionScan.random(store, id, Math.abs(count), count < 0)) {
            out.add(CollectionLayout.member(k));
        }
        return members(out);
    }

    /** SMOVE source destination member: runs alone and journaled, both keys' changes one atomic change. */
    private static RedisMessage move(ServerContext c, ClientSession s, byte[][] a) {
        RedisMessage e = c.databases.collections().tooLong(a[3]);
        Keyspace ks = c.keyspace(s);
        if (ks.live(a[1]) == null) {
            return Replies.ZERO; // Redis's order: an absent source first, then both keys' types
        }
        long from = id(c, s, a[1]);
        id(c, s, a[2]);
        if (e != null || c.databases.collections().get(from, a[3]) == null) {
            return Replies.ZERO;
        }
        if (Arrays.equals(a[1], a[2])) {
            return Replies.ONE;
        }
        CollectionStore store = c.databases.collections();
        CollectionWrite.run(c, s, a[1], ValueLayout.SET, false, KeyspaceEvents.SET, "srem", op -> {
            op.changed = store.remove(op.id, a[3]) != null;
            return null;
        }, () -> null);
        CollectionWrite.run(c, s, a[2], ValueLayout.SET, true, KeyspaceEvents.SET, "sadd", op -> {
            op.changed = store.put(op.id, a[3], EMPTY) == null;
            return null;
        }, () -> null);
        return Replies.ONE;
    }

    /** The combinations of sets. */
    private enum Op { INTER, UNION, DIFF }

    /**
     * SINTER SUNION SDIFF (the members) and their STORE forms (the count, the destination made
     * anew): every key's type is checked first, as Redis does.
     *
     * @param from  the first source key's index
     * @param store the STORE form's event name, or null for the plain command
     */
    private static RedisMessage combined(ServerContext c, ClientSession s, byte[][] a, int from, int to, Op op, String store) {
        long[] ids = new long[to - from];
        for (int i = from; i < to; i++) {
            ids[i - from] = id(c, s, a[i]);
        }
        if (store == null) {
            return members(combine(c, ids, op));
        }
        CollectionStore collections = c.databases.collections();
        return collections.locked(() -> {
            List<byte[]> members = combine(c, ids, op);
            return CollectionWrite.replace(c, s, a[1], ValueLayout.SET, members.size(), id -> {
                for (byte[] m : members) {
                    collections.put(id, m, EMPTY);
                }
            }, store);
        });
    }

    /** @return the members of the combination of the sets (0: an absent key, an empty set), in order */
    private static List<byte[]> combine(ServerContext c, long[] ids, Op op) {
        CollectionStore store = c.databases.collections();
        TreeSet<byte[]> out = new TreeSet<>(Arrays::compareUnsigned);
        switch (op) {
            case UNION -> {
                for (long id : ids) {
                    out.addAll(members(c, id));
                }
            }
            case DIFF -> {
                out.addAll(members(c, ids[0]));
                for (int i = 1; i < ids.length && !out.isEmpty(); i++) {
                    long other = ids[i];
                    if (other != 0) {
                        out.removeIf(m -> store.get(other, m) != null);
                    }
                }
            }
            case INTER -> {
                long smallest = -1;
                for (long id : ids) {
                    if (id == 0) {
                        return List.of();
                    }
                    if (smallest == -1 || store.size(id) < store.size(smallest)) {
                        smallest = id;
                    }
                }
                for (byte[] m : members(c, smallest)) {
                    boolean all = true;
                    for (long id : ids) {
                        if (id != smallest && store.get(id, m) == null) {
                            all = false;
                            break;
                        }
                    }
                    if (all) {
                        out.add(m);
                    }
                }
            }
        }
        return new ArrayList<>(out);
    }

    /** SINTERCARD numkeys key [key ...] [LIMIT limit]. */
    private static RedisMessage interCard(ServerContext c, ClientSession s, byte[][] a) {
        Long n = Args.parseLong(a[1]);
        if (n == null || n <= 0) {
            return Replies.error("ERR numkeys should be greater than 0");
        }
        if (n > a.length - 2) {
            return Replies.error("ERR Number of keys can't be greater than number of args");
        }
        long limit = 0;
        for (int i = 2 + (int) (long) n; i < a.length; i++) {
            if (Args.lower(a[i]).equals("limit") && i + 1 < a.length) {
                Long l = Args.parseLong(a[++i]);
                if (l == null || l < 0) {
                    return Replies.error("ERR LIMIT can't be negative");
                }
                limit = l;
            } else {
                return Replies.SYNTAX;
            }
        }
        long[] ids = new long[(int) (long) n];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = id(c, s, a[2 + i]);
        }
        long count = combine(c, ids, Op.INTER).size();
        return Replies.integer(limit > 0 ? Math.min(limit, count) : count);
    }

    /**
     * @return Redis's OBJECT ENCODING of a set (as 7.2 and later report it): {@code intset} while
     *         every member is an integer in canonical form and it has at most
     *         {@code set-max-intset-entries}, else {@code listpack} while it has at most
     *         {@code set-max-listpack-entries} none longer than {@code set-max-listpack-value}
     *         bytes, else {@code hashtable}
     */
    static String encoding(ServerContext c, long id) {
        CollectionStore store = c.databases.collections();
        long size = store.size(id);
        long listpackEntries = c.threshold("set-max-listpack-entries");
        boolean integers = size <= c.threshold("set-max-intset-entries");
        boolean short_ = size <= listpackEntries;
        long longest = c.threshold("set-max-listpack-value");
        if (integers || short_) {
            for (byte[] k : store.elements(id).keySet()) {
                int n = k.length - CollectionLayout.PREFIX;
                integers &= n <= 20 && Args.parseLong(k, CollectionLayout.PREFIX, n) != null;
                short_ &= n <= longest;
                if (!integers && !short_) {
                    break;
                }
            }
        }
        return integers ? "intset" : short_ ? "listpack" : "hashtable";
    }
}
