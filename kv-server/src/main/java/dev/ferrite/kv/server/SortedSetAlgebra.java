package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The sorted-set combinations: ZUNION ZINTER ZDIFF (WITHSCORES), their STORE forms ZUNIONSTORE
 * ZINTERSTORE ZDIFFSTORE (the destination made anew, whole), and ZINTERCARD, with WEIGHTS and
 * AGGREGATE SUM|MIN|MAX, parsed as Redis's {@code zunionInterDiffGenericCommand} parses them. A
 * source may be a set (each member scored 1) or absent (empty). Reads run under the store's lock,
 * so they see one state of every source. Stateless.
 */
final class SortedSetAlgebra {

    private SortedSetAlgebra() {
    }

    private enum Op { UNION, INTER, DIFF }

    private enum Aggregate { SUM, MIN, MAX }

    static void register(CommandTable.Registry r) {
        r.add("zunion", -3, (c, s, a) -> combine(c, s, a, Op.UNION, false, false));
        r.add("zinter", -3, (c, s, a) -> combine(c, s, a, Op.INTER, false, false));
        r.add("zdiff", -3, (c, s, a) -> combine(c, s, a, Op.DIFF, false, false));
        r.add("zunionstore", -4, (c, s, a) -> combine(c, s, a, Op.UNION, true, false));
        r.add("zinterstore", -4, (c, s, a) -> combine(c, s, a, Op.INTER, true, false));
        r.add("zdiffstore", -4, (c, s, a) -> combine(c, s, a, Op.DIFF, true, false));
        r.add("zintercard", -3, (c, s, a) -> combine(c, s, a, Op.INTER, false, true));
    }

    /** A source: a sorted set's or set's id (0: absent), its type, and its weight. */
    private record Source(long id, byte type, double weight) {
    }

    private static RedisMessage combine(ServerContext c, ClientSession s, byte[][] a, Op op, boolean store, boolean cardinality) {
        String name = Args.lower(a[0]);
        int numAt = store ? 2 : 1;
        Long numkeys = Args.parseLong(a[numAt]);
        if (numkeys == null) {
            return Replies.NOT_INTEGER;
        }
        if (numkeys < 1) {
            return Replies.error("ERR at least 1 input key is needed for '" + name + "' command");
        }
        if (numkeys > a.length - numAt - 1) {
            return Replies.SYNTAX;
        }
        int n = (int) (long) numkeys;
        Keyspace ks = c.keyspace(s);
        Source[] sources = new Source[n];
        for (int i = 0; i < n; i++) {
            byte[] stored = ks.live(a[numAt + 1 + i]);
            byte type = stored == null ? 0 : ValueLayout.collectionId(stored) == 0 ? -1 : ValueLayout.type(stored);
            if (type != 0 && type != ValueLayout.ZSET && type != ValueLayout.SET) {
                return WrongType.REPLY;
            }
            sources[i] = new Source(type == 0 ? 0 : ValueLayout.id(stored), type, 1);
        }
        Aggregate aggregate = Aggregate.SUM;
        boolean withScores = false;
        long limit = 0;
        for (int j = numAt + 1 + n; j < a.length; ) {
            int remaining = a.length - j;
            String opt = Args.lower(a[j]);
            if (op != Op.DIFF && !cardinality && remaining >= n + 1 && opt.equals("weights")) {
                j++;
                for (int i = 0; i < n; i++, j++) {
                    Double w = Scores.parse(a[j]);
                    if (w == null) {
                        return Replies.error("ERR weight value is not a float");
                    }
                    sources[i] = new Source(sources[i].id(), sources[i].type(), w);
                }
            } else if (op != Op.DIFF && !cardinality && remaining >= 2 && opt.equals("aggregate")) {
                switch (Args.lower(a[j + 1])) {
                    case "sum" -> aggregate = Aggregate.SUM;
                    case "min" -> aggregate = Aggregate.MIN;
                    case "max" -> aggregate = Aggregate.MAX;
                    default -> {
                        return Replies.SYNTAX;
                    }
                }
                j += 2;
            } else if (!store && !cardinality && opt.equals("withscores")) {
                withScores = true;
                j++;
            } else if (cardinality && remaining >= 2 && opt.equals("limit")) {
                Long l = Args.parseLong(a[j + 1]);
                if (l == null || l < 0) {
                    return Replies.error("ERR LIMIT can't be negative");
                }
                limit = l;
                j += 2;
            } else {
                return Replies.SYNTAX;
            }
        }
        CollectionStore collections = c.databases.collections();
        Aggregate how = aggregate;
        boolean scores = withScores;
        long most = limit;
        return collections.locked(() -> {
            Map<byte[], Double> result = compute(collections, sources, op, how);
            if (cardinality) {
                return Replies.integer(most > 0 ? Math.min(most, result.size()) : result.size());
            }
            List<Map.Entry<byte[], Double>> ordered = new ArrayList<>(result.entrySet());
            ordered.sort(Comparator.comparingDouble(e -> e.getValue() + 0.0)); // stable: members stay in order; -0 is 0
            if (store) {
                return CollectionWrite.replace(c, s, a[1], ValueLayout.ZSET, ordered.size(), made -> {
                    for (Map.Entry<byte[], Double> e : ordered) {
                        SortedSetStore.add(collections, made, e.getKey(), e.getValue());
                    }
                }, name);
            }
            List<RedisMessage> out = new ArrayList<>(ordered.size() * (scores ? 2 : 1));
            for (Map.Entry<byte[], Double> e : ordered) {
                out.add(Replies.bulk(e.getKey()));
                if (scores) {
                    out.add(Replies.bulk(Scores.format(e.getValue())));
                }
            }
            return Replies.array(out);
        });
    }

    /** @return the combination's members and scores, members in byte order */
    private static Map<byte[], Double> compute(CollectionStore store, Source[] sources, Op op, Aggregate how) {
        TreeMap<byte[], Double> out = new TreeMap<>(Arrays::compareUnsigned);
        switch (op) {
            case UNION -> {
                for (Source src : sources) {
                    if (src.id() != 0) {
                        for (Map.Entry<byte[], byte[]> e : store.elements(src.id()).entrySet()) {
                            double v = weighted(src, e.getValue());
                            out.merge(CollectionLayout.member(e.getKey()), v, (x, y) -> aggregate(how, x, y));
                        }
                    }
                }
            }
            case INTER -> {
                Source[] bySize = sources.clone();
                for (Source src : bySize) {
                    if (src.id() == 0) {
                        return out;
                    }
                }
                Arrays.sort(bySize, Comparator.comparingLong(src -> store.size(src.id())));
                members:
                for (Map.Entry<byte[], byte[]> e : store.elements(bySize[0].id()).entrySet()) {
                    byte[] member = CollectionLayout.member(e.getKey());
                    double v = weighted(bySize[0], e.getValue());
                    for (int i = 1; i < bySize.length; i++) {
                        byte[] other = store.get(bySize[i].id(), member);
                        if (other == null) {
                            continue members;
                        }
                        v = aggregate(how, v, weighted(bySize[i], other));
                    }
                    out.put(member, v);
                }
            }
            case DIFF -> {
                if (sources[0].id() == 0) {
                    return out;
                }
                members:
                for (Map.Entry<byte[], byte[]> e : store.elements(sources[0].id()).entrySet()) {
                    byte[] member = CollectionLayout.member(e.getKey());
                    for (int i = 1; i < sources.length; i++) {
                        if (sources[i].id() != 0 && store.get(sources[i].id(), member) != null) {
                            continue members;
                        }
                    }
                    out.put(member, score(sources[0], e.getValue()));
                }
            }
        }
        return out;
    }

    /** @return an element's score: a sorted set's, or 1 for a set's member */
    private static double score(Source src, byte[] value) {
        return src.type() == ValueLayout.SET ? 1 : CollectionLayout.scoreValueOf(value);
    }

    /** @return an element's score times its source's weight; NaN (0 times infinity) is 0, as in Redis */
    private static double weighted(Source src, byte[] value) {
        double v = score(src, value) * src.weight();
        return Double.isNaN(v) ? 0 : v;
    }

    private static double aggregate(Aggregate how, double x, double y) {
        return switch (how) {
            case SUM -> {
                double sum = x + y;
                yield Double.isNaN(sum) ? 0 : sum;
            }
            case MIN -> Math.min(x, y);
            case MAX -> Math.max(x, y);
        };
    }
}
