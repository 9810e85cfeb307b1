package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * The sorted-set commands that add, remove and look up members: ZADD (NX XX GT LT CH INCR) ZINCRBY
 * ZREM ZSCORE ZMSCORE ZCARD ZRANK ZREVRANK (WITHSCORE) ZPOPMIN ZPOPMAX ZMPOP ZRANDMEMBER ZSCAN,
 * with Redis's replies and error strings; the ranges are {@link SortedSetRanges}', the
 * combinations {@link SortedSetAlgebra}'s, the blocking pops {@link BlockingCommands}'. Members are
 * kept by {@link SortedSetStore}: O(log n) per member a command touches; every write is one atomic
 * change ({@link CollectionWrite}). Stateless.
 */
final class SortedSetCommands {

    static final RedisMessage NOT_FLOAT = Replies.error("ERR value is not a valid float");
    private static final RedisMessage NAN = Replies.error("ERR resulting score is not a number (NaN)");
    private static final RedisMessage NOT_POSITIVE = Replies.error("ERR value is out of range, must be positive");

    private SortedSetCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("zadd", -4, (c, s, a) -> add(c, s, a, 2, "zadd"));
        r.add("zincrby", 4, (c, s, a) -> add(c, s, new byte[][] {a[0], a[1], "incr".getBytes(), a[2], a[3]}, 2, "zincrby"));
        r.add("zrem", -3, SortedSetCommands::remove);
        r.add("zscore", 3, (c, s, a) -> {
            long id = id(c, s, a[1]);
            Double score = id == 0 ? null : SortedSetStore.score(c.databases.collections(), id, a[2]);
            return Replies.bulk(score == null ? null : Scores.format(score));
        });
        r.add("zmscore", -3, (c, s, a) -> {
            long id = id(c, s, a[1]);
            List<RedisMessage> out = new ArrayList<>(a.length - 2);
            for (int i = 2; i < a.length; i++) {
                Double score = id == 0 ? null : SortedSetStore.score(c.databases.collections(), id, a[i]);
                out.add(Replies.bulk(score == null ? null : Scores.format(score)));
            }
            return Replies.array(out);
        });
        r.add("zcard", 2, (c, s, a) -> {
            long id = id(c, s, a[1]);
            return Replies.integer(id == 0 ? 0 : c.databases.collections().size(id));
        });
        r.add("zrank", -3, (c, s, a) -> rank(c, s, a, false));
        r.add("zrevrank", -3, (c, s, a) -> rank(c, s, a, true));
        r.add("zpopmin", -2, (c, s, a) -> pop(c, s, a, false));
        r.add("zpopmax", -2, (c, s, a) -> pop(c, s, a, true));
        r.add("zrandmember", -2, SortedSetCommands::randomMember);
        r.add("zscan", -3, (c, s, a) -> CollectionScan.scan(c, s, a, ValueLayout.ZSET,
                v -> Scores.format(CollectionLayout.scoreValueOf(v))));
    }

    /** @return the id of the sorted set at {@code key}, 0 if there is none; WRONGTYPE if another type is there */
    static long id(ServerContext c, ClientSession s, byte[] key) {
        byte[] stored = c.keyspace(s).collection(key, ValueLayout.ZSET);
        return stored == null ? 0 : ValueLayout.id(stored);
    }

    /** @return members (and, if asked, their scores after each) of these keys by score, as one flat array */
    static RedisMessage members(List<byte[]> scoreKeys, boolean withScores) {
        List<RedisMessage> out = new ArrayList<>(scoreKeys.size() * (withScores ? 2 : 1));
        for (byte[] k : scoreKeys) {
            out.add(Replies.bulk(CollectionLayout.scoreMember(k)));
            if (withScores) {
                out.add(Replies.bulk(Scores.format(CollectionLayout.scoreOf(k))));
            }
        }
        return Replies.array(out);
    }

    /** @return [member, score] pairs of these keys by score, as ZMPOP answers */
    static RedisMessage pairs(List<byte[]> scoreKeys) {
        List<RedisMessage> out = new ArrayList<>(scoreKeys.size());
        for (byte[] k : scoreKeys) {
            out.add(Replies.array(List.of(Replies.bulk(CollectionLayout.scoreMember(k)),
                    Replies.bulk(Scores.format(CollectionLayout.scoreOf(k))))));
        }
        return Replies.array(out);
    }

    /**
     * ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...], and ZINCRBY (as ZADD
     * INCR).
     *
     * @param from where the options begin
     */
    private static RedisMessage add(ServerContext c, ClientSession s, byte[][] a, int from, String name) {
        boolean nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
        int at = from;
        for (; at < a.length; at++) {
            String option = Args.lower(a[at]);
            if (option.equals("nx")) {
                nx = true;
            } else if (option.equals("xx")) {
                xx = true;
            } else if (option.equals("gt")) {
                gt = true;
            } else if (option.equals("lt")) {
                lt = true;
            } else if (option.equals("ch")) {
                ch = true;
            } else if (option.equals("incr")) {
                incr = true;
            } else {
                break;
            }
        }
        int elements = a.length - at;
        if (elements == 0 || elements % 2 != 0) {
            return name.equals("zincrby") ? Replies.arity(name) : Replies.SYNTAX;
        }
        if (nx && xx) {
            return Replies.error("ERR XX and NX options at the same time are not compatible");
        }
        if (gt && nx || lt && nx || gt && lt) {
            return Replies.error("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if (incr && elements > 2) {
            return Replies.error("ERR INCR option supports a single increment-element pair");
        }
        double[] scores = new double[elements / 2];
        for (int i = 0; i < scores.length; i++) {
            Double score = Scores.parse(a[at + 2 * i]);
            if (score == null) {
                return NOT_FLOAT;
            }
            scores[i] = score;
        }
        RedisMessage e = HashCommands.tooLong(c, a, at + 1, 2);
        if (e != null) {
            return e;
        }
        CollectionStore store = c.databases.collections();
        int first = at;
        boolean onlyNew = nx, onlyOld = xx, higher = gt, lower = lt, increment = incr;
        long[] counts = new long[2]; // added, updated
        RedisMessage result = CollectionWrite.run(c, s, a[1], ValueLayout.ZSET, !xx, KeyspaceEvents.ZSET,
                incr ? "zincr" : "zadd", op -> {
                    Double last = null;
                    for (int i = 0; i < scores.length; i++) {
                        byte[] member = a[first + 2 * i + 1];
                        double given = scores[i];
                        Double[] seen = new Double[2]; // the member's score before, the one decided (null: none)
                        boolean[] nan = {false};
                        boolean changed = SortedSetStore.update(store, op.id, member, old -> {
                            seen[0] = old;
                            if (old == null ? onlyOld : onlyNew) {
                                return null;
                            }
                            double score = increment && old != null ? given + old : given;
                            if (Double.isNaN(score)) {
                                nan[0] = true;
                                return null;
                            }
                            if (old != null && (lower && score >= old || higher && score <= old)) {
                                return null;
                            }
                            seen[1] = score;
                            return score;
                        });
                        if (nan[0]) {
                            return NAN;
                        }
                        if (seen[1] == null) {
                            continue;
                        }
                        last = seen[1];
                        if (seen[0] == null) {
                            counts[0]++;
                        } else if (changed) {
                            counts[1]++;
                        }
                    }
                    op.changed = counts[0] + counts[1] > 0;
                    op.holdsElements = op.changed; // a member put, and ZADD removes none
                    return increment ? Replies.bulk(last == null ? null : Scores.format(last)) : null;
                }, () -> increment ? Replies.NIL : null);
        if (result != null) {
            return result;
        }
        return Replies.integer(ch ? counts[0] + counts[1] : counts[0]);
    }

    private static RedisMessage remove(ServerContext c, ClientSession s, byte[][] a) {
        CollectionStore store = c.databases.collections();
        long removed = CollectionWrite.run(c, s, a[1], ValueLayout.ZSET, false, KeyspaceEvents.ZSET, "zrem", op -> {
            long n = 0;
            for (int i = 2; i < a.length; i++) {
                if (store.tooLong(a[i]) == null && SortedSetStore.remove(store, op.id, a[i])) {
                    n++;
                }
            }
            op.changed = n > 0;
            return n;
        }, () -> 0L);
        return Replies.integer(removed);
    }

    /** ZRANK and ZREVRANK key member [WITHSCORE]. */
    private static RedisMessage rank(ServerContext c, ClientSession s, byte[][] a, boolean reverse) {
        if (a.length > 4 || a.length == 4 && !Args.lower(a[3]).equals("withscore")) {
            return Replies.SYNTAX;
        }
        boolean withScore = a.length == 4;
        long id = id(c, s, a[1]);
        CollectionStore store = c.databases.collections();
        RedisMessage none = withScore ? ArrayRedisMessage.NULL_INSTANCE : Replies.NIL;
        if (id == 0) {
            return none;
        }
        return store.locked(() -> {
            Double score = SortedSetStore.score(store, id, a[2]);
            if (score == null) {
                return none;
            }
            long rank = SortedSetStore.rank(store, id, a[2], score);
            if (reverse) {
                rank = store.size(id) - 1 - rank;
            }
            return withScore ? Replies.array(List.of(Replies.integer(rank), Replies.bulk(Scores.format(score))))
                    : Replies.integer(rank);
        });
    }

    /** ZPOPMIN and ZPOPMAX key [count]: member, score, member, score... */
    private static RedisMessage pop(ServerContext c, ClientSession s, byte[][] a, boolean highest) {
        if (a.length > 3) {
            return Replies.SYNTAX;
        }
        long count = 1;
        if (a.length == 3) {
            Long n = Args.parseLong(a[2]);
            if (n == null || n < 0) {
                return NOT_POSITIVE;
            }
            count = n;
        }
        if (count == 0) {
            id(c, s, a[1]); // WRONGTYPE if it is not a sorted set
            return Replies.array(List.of());
        }
        return members(take(c, s, a[1], count, highest), true);
    }

    /**
     * Removes up to {@code count} members from one end of the sorted set at {@code key}: ZPOPMIN,
     * ZPOPMAX and their multi-key and blocking forms.
     *
     * @return the removed members' keys by score, in the order taken; none if the key holds no sorted set
     */
    static List<byte[]> take(ServerContext c, ClientSession s, byte[] key, long count, boolean highest) {
        return CollectionWrite.run(c, s, key, ValueLayout.ZSET, false, KeyspaceEvents.ZSET,
                highest ? "zpopmax" : "zpopmin", op -> {
                    List<byte[]> taken = SortedSetStore.pop(c.databases.collections(), op.id, count, highest);
                    op.changed = !taken.isEmpty();
                    return taken;
                }, List::of);
    }

    /**
     * Takes up to {@code count} members from one end of the sorted set at {@code key}, as ZMPOP does.
     *
     * @return [key, [[member, score] ...]], or null if the key holds no sorted set
     */
    static RedisMessage popFrom(ServerContext c, ClientSession s, byte[] key, long count, boolean highest) {
        List<byte[]> taken = take(c, s, key, count, highest);
        return taken.isEmpty() ? null : Replies.array(List.of(Replies.bulk(key), pairs(taken)));
    }

    /** ZRANDMEMBER key [count [WITHSCORES]]. */
    private static RedisMessage randomMember(ServerContext c, ClientSession s, byte[][] a) {
        Long count = a.length >= 3 ? Args.parseLong(a[2]) : null;
        if (a.length >= 3 && count == null) {
            return Replies.NOT_INTEGER;
        }
        if (a.length > 4 || a.length == 4 && !Args.lower(a[3]).equals("withscores")) {
            return Replies.SYNTAX;
        }
        boolean withScores = a.length == 4;
        if (count != null && (count == Long.MIN_VALUE || withScores && (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2)
                || count < -CollectionScan.MOST_PICKS)) {
            return Replies.error("ERR value is out of range");
        }
        long id = id(c, s, a[1]);
        CollectionStore store = c.databases.collections();
        if (count == null) {
            List<byte[]> one = id == 0 ? List.of() : CollectionScan.random(store, id, 1, true);
            return Replies.bulk(one.isEmpty() ? null : CollectionLayout.member(one.get(0)));
        }
        if (id == 0 || count == 0) {
            return Replies.array(List.of());
        }
        List<RedisMessage> out = new ArrayList<>();
        for (byte[] k : CollectionScan.random(store, id, Math.abs(count), count < 0)) {
            byte[] member = CollectionLayout.member(k);
            out.add(Replies.bulk(member));
            if (withScores) {
                Double score = SortedSetStore.score(store, id, member);
                out.add(Replies.bulk(Scores.format(score == null ? 0 : score)));
            }
        }
        return Replies.array(out);
    }

    /**
     * @return Redis's OBJECT ENCODING of a sorted set: {@code listpack} while it has at most
     *         {@code zset-max-listpack-entries} members none longer than
     *         {@code zset-max-listpack-value} bytes, else {@code skiplist}
     */
    static String encoding(ServerContext c, long id) {
        CollectionStore store = c.databases.collections();
        if (store.size(id) > c.threshold("zset-max-listpack-entries")) {
            return "skiplist";
        }
        long longest = c.threshold("zset-max-listpack-value");
        for (byte[] k : store.elements(id).keySet()) {
            if (k.length - CollectionLayout.PREFIX > longest) {
                return "skiplist";
            }
        }
        return "listpack";
    }
}
