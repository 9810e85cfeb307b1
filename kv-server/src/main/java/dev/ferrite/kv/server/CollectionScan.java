package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;

/**
 * Walks of one collection's elements: HSCAN, SSCAN and ZSCAN ({@code key cursor [MATCH pattern]
 * [COUNT count]}, and HSCAN's {@code NOVALUES}, ZSCAN's {@code NOSCORES}), and random picks
 * (HRANDFIELD, SRANDMEMBER, SPOP, ZRANDMEMBER). A scan's cursor is the rank
 * of the element it goes on from, in the elements' order; a collection small enough for Redis's
 * compact encodings (at most 128 elements) is answered whole with cursor 0, as Redis does. A rank
 * cursor returns every element present for the whole scan as long as no element before the cursor
 * is removed meanwhile (then some may be skipped). Stateless.
 */
final class CollectionScan {

    /** The most picks with repetition one request may ask for (a negative count's size). */
    static final long MOST_PICKS = 100_000_000;
    private static final int DEFAULT_COUNT = 10;
    private static final int WHOLE = 128;

    private CollectionScan() {
    }

    /**
     * @param type       the collection type the command works on
     * @param values     what follows each member: its value as a reply gives it (HSCAN, ZSCAN), or
     *                   null for nothing (SSCAN)
     */
    static RedisMessage scan(ServerContext c, ClientSession s, byte[][] a, byte type, UnaryOperator<byte[]> values) {
        long cursor;
        try {
            cursor = Long.parseUnsignedLong(new String(a[2], StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            return Replies.error("ERR invalid cursor");
        }
        byte[] stored = c.keyspace(s).collection(a[1], type); // Redis's order: the key, then the options
        if (stored == null) {
            return reply(0, List.of());
        }
        byte[] pattern = null;
        long count = DEFAULT_COUNT;
        for (int i = 3; i < a.length; i++) {
            String opt = Args.lower(a[i]);
            if (opt.equals("novalues") && type == ValueLayout.HASH || opt.equals("noscores") && type == ValueLayout.ZSET) {
                values = null;
                continue;
            }
            if (i + 1 >= a.length) {
                return Replies.SYNTAX;
            }
            if (opt.equals("match")) {
                pattern = a[++i];
            } else if (opt.equals("count")) {
                Long n = Args.parseLong(a[++i]);
                if (n == null) {
                    return Replies.NOT_INTEGER;
                }
                if (n < 1) {
                    return Replies.SYNTAX;
                }
                count = n;
            } else {
                return Replies.SYNTAX;
            }
        }
        if (cursor < 0) {
            return reply(0, List.of());
        }
        CollectionStore store = c.databases.collections();
        long id = ValueLayout.id(stored);
        long size = store.size(id);
        long step = size <= WHOLE ? Long.MAX_VALUE : count;
        long from = size <= WHOLE ? 0 : cursor;
        List<RedisMessage> out = new ArrayList<>();
        long next = 0;
        byte[] first = from < size ? store.positions().elementAt(id, from) : null;
        if (first != null) {
            long n = 0;
            for (Map.Entry<byte[], byte[]> e : store.elements(id).tailMap(first, true).entrySet()) {
                if (n == step) {
                    next = from + n;
                    break;
                }
                n++;
                byte[] member = CollectionLayout.member(e.getKey());
                if (pattern == null || Glob.matches(pattern, member)) {
                    out.add(Replies.bulk(member));
                    if (values != null) {
                        out.add(Replies.bulk(values.apply(e.getValue())));
                    }
                }
            }
        }
        return reply(next, out);
    }

    private static RedisMessage reply(long cursor, List<RedisMessage> items) {
        return Replies.array(List.of(Replies.bulk(Long.toUnsignedString(cursor)), Replies.array(items)));
    }

    /**
     * Random elements of a collection, each found by its rank in O(log n).
     *
     * @param count  how many, at least 1
     * @param repeat whether an element may come more than once (then exactly {@code count}, else
     *               at most the collection's size, all distinct)
     * @return the elements' keys in the store ({@link CollectionLayout#member} gives the member)
     */
    static List<byte[]> random(CollectionStore store, long id, long count, boolean repeat) {
        CollectionPositions.Span span = store.positions().span(id);
        long size = span.size();
        ThreadLocalRandom r = ThreadLocalRandom.current();
        List<byte[]> out = new ArrayList<>();
        if (size == 0) {
            return out;
        }
        if (repeat) {
            for (long i = 0; i < count; i++) {
                byte[] k = at(store, id, span, r.nextLong(size));
                if (k != null) {
                    out.add(k);
                }
            }
            return out;
        }
        if (count >= size) {
            out.addAll(store.elements(id).keySet());
            Collections.shuffle(out, r);
            return out;
        }
        Set<Long> picked = new HashSet<>();
        while (picked.size() < count) {
            picked.add(r.nextLong(size));
        }
        for (long index : picked) {
            byte[] k = at(store, id, span, index);
            if (k != null) {
                out.add(k);
            }
        }
        return out;
    }

    /**
     * @return the element at a position of a collection: a descent by its rank in the store, or,
     *         if a writer moved the ranks since the span was read, a search from the collection's start
     */
    private static byte[] at(CollectionStore store, long id, CollectionPositions.Span span, long index) {
        byte[] k = store.positions().elementAtRank(id, span.first() + index);
        return k != null ? k : store.positions().elementAt(id, index);
    }
}
