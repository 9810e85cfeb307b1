package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * The list commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET LREM LTRIM LINSERT
 * LPOS LMOVE RPOPLPUSH, with Redis's replies and error strings, on lists as {@link ListStore} keeps
 * them: a push or pop is O(log n), and an index is a rank, also O(log n). LMOVE and RPOPLPUSH run
 * alone and journaled ({@link CommandTable}). Stateless.
 */
final class ListCommands {

    private static final RedisMessage NO_SUCH_KEY = Replies.error("ERR no such key");
    private static final RedisMessage OUT_OF_RANGE = Replies.error("ERR index out of range");
    private static final RedisMessage NOT_POSITIVE = Replies.error("ERR value is out of range, must be positive");
    private static final RedisMessage RANK_RANGE =
            Replies.error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");

    private ListCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("lpush", -3, (c, s, a) -> push(c, s, a, true, true));
        r.add("rpush", -3, (c, s, a) -> push(c, s, a, false, true));
        r.add("lpushx", -3, (c, s, a) -> push(c, s, a, true, false));
        r.add("rpushx", -3, (c, s, a) -> push(c, s, a, false, false));
        r.add("lpop", -2, (c, s, a) -> pop(c, s, a, true));
        r.add("rpop", -2, (c, s, a) -> pop(c, s, a, false));
        r.add("llen", 2, (c, s, a) -> {
            long id = id(c, s, a[1]);
            return Replies.integer(id == 0 ? 0 : c.databases.collections().size(id));
        });
        r.add("lrange", 4, ListCommands::range);
        r.add("lindex", 3, ListCommands::index);
        r.add("lset", 4, ListCommands::set);
        r.add("lrem", 4, ListCommands::remove);
        r.add("ltrim", 4, ListCommands::trim);
        r.add("linsert", 5, ListCommands::insert);
        r.add("lpos", -3, ListCommands::position);
        r.add("lmove", 5, ListCommands::lmove);
        r.add("rpoplpush", 3, (c, s, a) -> lmove(c, s, new byte[][] {a[0], a[1], a[2],
                "right".getBytes(StandardCharsets.US_ASCII), "left".getBytes(StandardCharsets.US_ASCII)}));
    }

    /** @return the id of the list at {@code key}, 0 if there is none; WRONGTYPE if another type is there */
    private static long id(ServerContext c, ClientSession s, byte[] key) {
        byte[] stored = c.keyspace(s).collection(key, ValueLayout.LIST);
        return stored == null ? 0 : ValueLayout.id(stored);
    }

    private static RedisMessage push(ServerContext c, ClientSession s, byte[][] a, boolean left, boolean create) {
        CollectionStore store = c.databases.collections();
        long size = CollectionWrite.run(c, s, a[1], ValueLayout.LIST, create, KeyspaceEvents.LIST, left ? "lpush" : "rpush", op -> {
            KnownList.Shape shape = op.fresh ? KnownList.Shape.EMPTY : store.knownList(op.id);
            for (int i = 2; i < a.length; i++) {
                shape = ListStore.pushOne(store, op.id, left, a[i], shape);
            }
            op.changed = true;
            op.holdsElements = true;
            if (shape.size() < 0) {
                shape = shape.withSize(store.size(op.id));
            }
            store.noteList(op.id, shape);
            return shape.size();
        }, () -> 0L);
        return Replies.integer(size);
    }

    /** LPOP and RPOP key [count]. */
    private static RedisMessage pop(ServerContext c, ClientSession s, byte[][] a, boolean left) {
        if (a.length > 3) {
            return Replies.arity(left ? "lpop" : "rpop");
        }
        Long count = a.length == 3 ? Args.parseLong(a[2]) : null;
        if (a.length == 3 && (count == null || count < 0)) {
            return NOT_POSITIVE;
        }
        CollectionStore store = c.databases.collections();
        RedisMessage absent = count == null ? Replies.NIL : ArrayRedisMessage.NULL_INSTANCE;
        if (count != null && count == 0) {
            return id(c, s, a[1]) == 0 ? absent : Replies.array(List.of()); // WRONGTYPE if another type
        }
        return CollectionWrite.run(c, s, a[1], ValueLayout.LIST, false, KeyspaceEvents.LIST, left ? "lpop" : "rpop", op -> {
            KnownList.Shape before = store.knownList(op.id);
            List<RedisMessage> out = new ArrayList<>();
            long n = count == null ? 1 : count;
            for (long i = 0; i < n; i++) {
                byte[] v = ListStore.popOne(store, op.id, left);
                if (v == null) {
                    break;
                }
                out.add(Replies.bulk(v));
            }
            op.changed = !out.isEmpty();
            if (before.size() > out.size()) { // elements are left: the list is not asked whether it emptied
                op.holdsElements = true;
                store.noteList(op.id, before.popped(left, out.size()));
            }
            return count == null ? out.get(0) : Replies.array(out);
        }, () -> absent);
    }

    /** @return [from, to] of a Redis range over {@code size} elements (negative from the end), or null if empty */
    private static long[] span(long start, long stop, long size) {
        if (start < 0) {
            start = Math.max(0, size + start);
        }
        if (stop < 0) {
            stop = size + stop;
        }
        if (start > stop || start >= size) {
            return null;
        }
        return new long[] {start, Math.min(stop, size - 1)};
    }

    private static RedisMessage range(ServerContext c, ClientSession s, byte[][] a) {
        Long start = Args.parseLong(a[2]);
        Long stop = Args.parseLong(a[3]);
        if (start == null || stop == null) {
            return Replies.NOT_INTEGER;
        }
        long id = id(c, s, a[1]);
        if (id == 0) {
            return Replies.array(List.of());
        }
        CollectionStore store = c.databases.collections();
        // From the head the list's length is not needed: the range ends at its stop or the list's end.
        long[] span = start >= 0 && stop >= 0 ? (start <= stop ? new long[] {start, stop} : null)
                : span(start, stop, store.size(id));
        if (span == null) {
            return Replies.array(List.of());
        }
        return Replies.bulks(store.positions().valuesAt(id, span[0], (int) Math.min(span[1] - span[0] + 1, Integer.MAX_VALUE)));
    }

    /** @return the store key of the element at a Redis index (negative from the end), or null */
    private static byte[] at(CollectionStore store, long id, long index) {
        long size = store.size(id);
        long i = index < 0 ? size + index : index;
        return i < 0 || i >= size ? null : store.positions().elementAt(id, i);
    }

    private static RedisMessage index(ServerContext c, ClientSession s, byte[][] a) {
        long id = id(c, s, a[1]); // Redis's order: the key, then the index
        if (id == 0) {
            return Replies.NIL;
        }
        Long index = Args.parseLong(a[2]);
        if (index == null) {
            return Replies.NOT_INTEGER;
        }
        CollectionStore store = c.databases.collections();
        byte[] k = id == 0 ? null : at(store, id, index);
        return Replies.bulk(k == null ? null : store.elements(id).get(k));
    }

    private static RedisMessage set(ServerContext c, ClientSession s, byte[][] a) {
        Long index = Args.parseLong(a[2]); // Redis's order: the key, then the index
        CollectionStore store = c.databases.collections();
        return CollectionWrite.run(c, s, a[1], ValueLayout.LIST, false, KeyspaceEvents.LIST, "lset", op -> {
            if (index == null) {
                return Replies.NOT_INTEGER;
            }
            byte[] k = at(store, op.id, index);
            if (k == null) {
                return OUT_OF_RANGE;
            }
            store.elements(op.id).put(k, a[3]);
            op.changed = true;
            return Replies.OK;
        }, () -> NO_SUCH_KEY);
    }

    private static RedisMessage remove(ServerContext c, ClientSession s, byte[][] a) {
        Long count = Args.parseLong(a[2]);
        if (count == null) {
            return Replies.NOT_INTEGER;
        }
        CollectionStore store = c.databases.collections();
        long removed = CollectionWrite.run(c, s, a[1], ValueLayout.LIST, false, KeyspaceEvents.LIST, "lrem", op -> {
            NavigableMap<byte[], byte[]> elements = store.elements(op.id);
            Iterator<Map.Entry<byte[], byte[]>> it = (count < 0 ? elements.descendingMap() : elements).entrySet().iterator();
            long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
            List<byte[]> gone = new ArrayList<>();
            while (it.hasNext() && gone.size() < limit) {
                Map.Entry<byte[], byte[]> e = it.next();
                if (Arrays.equals(e.getValue(), a[3])) {
                    gone.add(e.getKey());
                }
            }
            gone.forEach(elements::remove);
            op.changed = !gone.isEmpty();
            return (long) gone.size();
        }, () -> 0L);
        return Replies.integer(removed);
    }

    private static RedisMessage trim(ServerContext c, ClientSession s, byte[][] a) {
        Long start = Args.parseLong(a[2]);
        Long stop = Args.parseLong(a[3]);
        if (start == null || stop == null) {
            return Replies.NOT_INTEGER;
        }
        CollectionStore store = c.databases.collections();
        return CollectionWrite.run(c, s, a[1], ValueLayout.LIST, false, KeyspaceEvents.LIST, "ltrim", op -> {
            long size = store.size(op.id);
            long[] span = span(start, stop, size);
            NavigableMap<byte[], byte[]> elements = store.elements(op.id);
            long head = span == null ? size : span[0];
            long tail = span == null ? 0 : size - 1 - span[1];
            for (long i = 0; i < head; i++) {
                elements.pollFirstEntry();
            }
            for (long i = 0; i < tail; i++) {
                elements.pollLastEntry();
            }
            op.changed = true; // Redis publishes ltrim even when nothing went
            return Replies.OK;
        }, () -> Replies.OK);
    }

    private static RedisMessage insert(ServerContext c, ClientSession s, byte[][] a) {
        String where = Args.lower(a[2]);
        if (!where.equals("before") && !where.equals("after")) {
            return Replies.SYNTAX;
        }
        boolean before = where.equals("before");
        CollectionStore store = c.databases.collections();
        long size = CollectionWrite.run(c, s, a[1], ValueLayout.LIST, false, KeyspaceEvents.LIST, "linsert", op -> {
            for (int attempt = 0; attempt < 2; attempt++) {
                NavigableMap<byte[], byte[]> elements = store.elements(op.id);
                byte[] pivot = null;
                for (Map.Entry<byte[], byte[]> e : elements.entrySet()) {
                    if (Arrays.equals(e.getValue(), a[3])) {
                        pivot = e.getKey();
                        break;
                    }
                }
                if (pivot == null) {
                    return -1L;
                }
                if (ListStore.insertBeside(store, op.id, elements, pivot, before, a[4])) {
                    op.changed = true;
                    return store.size(op.id);
                }
            }
            throw new IllegalStateException("no room for an element after renumbering list " + op.id);
        }, () -> 0L);
        return Replies.integer(size);
    }

    /** LPOS key element [RANK rank] [COUNT count] [MAXLEN len]. */
    private static RedisMessage position(ServerContext c, ClientSession s, byte[][] a) {
        long rank = 1;
        Long count = null;
        long maxLen = 0;
        for (int i = 3; i < a.length; i++) {
            String opt = Args.lower(a[i]);
            if (i + 1 >= a.length) {
                return Replies.SYNTAX;
            }
            Long n = Args.parseLong(a[++i]);
            switch (opt) {
                case "rank" -> {
                    if (n == null) {
                        return Replies.NOT_INTEGER;
                    }
                    if (n == Long.MIN_VALUE) {
                        return RANK_RANGE;
                    }
                    if (n == 0) {
                        return Replies.error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                                + "second ... or use negative to start from the end of the list");
                    }
                    rank = n;
                }
                case "count" -> {
                    if (n == null || n < 0) {
                        return n == null ? Replies.NOT_INTEGER : Replies.error("ERR COUNT can't be negative");
                    }
                    count = n;
                }
                case "maxlen" -> {
                    if (n == null || n < 0) {
                        return n == null ? Replies.NOT_INTEGER : Replies.error("ERR MAXLEN can't be negative");
                    }
                    maxLen = n;
                }
                default -> {
                    return Replies.SYNTAX;
                }
            }
        }
        long id = id(c, s, a[1]);
        List<RedisMessage> out = new ArrayList<>();
        if (id != 0) {
            CollectionStore store = c.databases.collections();
            long size = store.size(id);
            NavigableMap<byte[], byte[]> elements = store.elements(id);
            Iterator<byte[]> it = (rank < 0 ? elements.descendingMap() : elements).values().iterator();
            long skip = Math.abs(rank) - 1;
            long want = count == null ? 1 : count == 0 ? Long.MAX_VALUE : count;
            for (long seen = 0; it.hasNext() && (maxLen == 0 || seen < maxLen) && out.size() < want; seen++) {
                if (Arrays.equals(it.next(), a[2]) && skip-- <= 0) {
                    out.add(Replies.integer(rank < 0 ? size - 1 - seen : seen));
                }
            }
        }
        if (count == null) {
            return out.isEmpty() ? Replies.NIL : out.get(0);
        }
        return Replies.array(out);
    }

    /** LMOVE source destination LEFT|RIGHT LEFT|RIGHT (and RPOPLPUSH): runs alone and journaled. */
    static RedisMessage lmove(ServerContext c, ClientSession s, byte[][] a) {
        String from = Args.lower(a[3]);
        String to = Args.lower(a[4]);
        if (!(from.equals("left") || from.equals("right")) || !(to.equals("left") || to.equals("right"))) {
            return Replies.SYNTAX;
        }
        long source = id(c, s, a[1]);
        if (source == 0) {
            return Replies.NIL;
        }
        id(c, s, a[2]); // WRONGTYPE for a destination of another type, before anything moves
        CollectionStore store = c.databases.collections();
        NavigableMap<byte[], byte[]> elements = store.elements(source);
        byte[] value = from.equals("left") ? elements.firstEntry().getValue() : elements.lastEntry().getValue();
        // Redis's order of events: the push (and the destination's new), then the pop (and del)
        CollectionWrite.run(c, s, a[2], ValueLayout.LIST, true, KeyspaceEvents.LIST,
                to.equals("left") ? "lpush" : "rpush", op -> {
                    ListStore.pushOne(store, op.id, to.equals("left"), value);
                    op.changed = true;
                    return null;
                }, () -> null);
        CollectionWrite.run(c, s, a[1], ValueLayout.LIST, false, KeyspaceEvents.LIST,
                from.equals("left") ? "lpop" : "rpop", op -> {
                    op.changed = ListStore.popOne(store, op.id, from.equals("left")) != null;
                    return null;
                }, () -> null);
        return Replies.bulk(value);
    }

    /**
     * @return Redis's OBJECT ENCODING of a list (as 7.2 and later report it): {@code listpack} while
     *         it fits one node by {@code list-max-listpack-size} (a positive count of elements, or
     *         -1 to -5 for 4 to 64 KiB of them), else {@code quicklist}
     */
    static String encoding(ServerContext c, long id) {
        CollectionStore store = c.databases.collections();
        long limit = c.threshold("list-max-listpack-size");
        long size = store.size(id);
        if (limit >= 0) {
            return size <= Math.max(1, limit) ? "listpack" : "quicklist";
        }
        long bytes = 4096L << Math.min(4, -limit - 1);
        long used = 7; // a listpack's header and end
        for (byte[] v : store.elements(id).values()) {
            used += v.length + (v.length < 64 ? 2 : v.length < 4096 ? 4 : 10);
            if (used > bytes) {
                return "quicklist";
            }
        }
        return "listpack";
    }
}
