package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.Arrays;
import java.util.List;

/**
 * The sorted-set commands on ranges: ZRANGE (BYSCORE BYLEX REV LIMIT WITHSCORES) ZRANGESTORE
 * ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX ZREVRANGEBYLEX ZCOUNT ZLEXCOUNT
 * ZREMRANGEBYSCORE ZREMRANGEBYRANK ZREMRANGEBYLEX, with Redis's replies and error strings. Every
 * range becomes ranks in the order of scores ({@link SortedSetStore.Ranks}), found in O(log n);
 * reading or removing it then costs O(log n + m) for m members. Lexicographic ranges assume, as
 * Redis does, that every member has the same score (else they walk the set, as Redis's compact
 * encoding does). Stateless.
 */
final class SortedSetRanges {

    private static final RedisMessage NOT_FLOAT_RANGE = Replies.error("ERR min or max is not a float");
    private static final RedisMessage NOT_LEX_RANGE = Replies.error("ERR min or max not valid string range item");

    private SortedSetRanges() {
    }

    /** How a range's bounds are given. */
    enum By { RANK, SCORE, LEX }

    /** A parsed range request: its bounds (as given), direction, limit and whether scores are answered. */
    record Range(By by, byte[] min, byte[] max, boolean rev, long offset, long count, boolean withScores) {
    }

    static void register(CommandTable.Registry r) {
        r.add("zrange", -4, (c, s, a) -> range(c, s, a, 1, By.RANK, false, false));
        r.add("zrangestore", -5, (c, s, a) -> range(c, s, a, 2, By.RANK, false, true));
        r.add("zrevrange", -4, (c, s, a) -> range(c, s, a, 1, By.RANK, true, false));
        r.add("zrangebyscore", -4, (c, s, a) -> range(c, s, a, 1, By.SCORE, false, false));
        r.add("zrevrangebyscore", -4, (c, s, a) -> range(c, s, a, 1, By.SCORE, true, false));
        r.add("zrangebylex", -4, (c, s, a) -> range(c, s, a, 1, By.LEX, false, false));
        r.add("zrevrangebylex", -4, (c, s, a) -> range(c, s, a, 1, By.LEX, true, false));
        r.add("zcount", 4, (c, s, a) -> count(c, s, a, By.SCORE));
        r.add("zlexcount", 4, (c, s, a) -> count(c, s, a, By.LEX));
        r.add("zremrangebyscore", 4, (c, s, a) -> removeRange(c, s, a, By.SCORE, "zremrangebyscore"));
        r.add("zremrangebyrank", 4, (c, s, a) -> removeRange(c, s, a, By.RANK, "zremrangebyrank"));
        r.add("zremrangebylex", 4, (c, s, a) -> removeRange(c, s, a, By.LEX, "zremrangebylex"));
    }

    /**
     * The ZRANGE family, parsed as Redis's {@code zrangeGenericCommand} parses it.
     *
     * @param keyAt  where the source key is (2 for ZRANGESTORE)
     * @param preset the kind of range the command's name sets (RANK: ZRANGE and ZRANGESTORE, which
     *               take BYSCORE or BYLEX)
     * @param rev    whether the name sets the reverse direction (then REV is not an option)
     * @param store  whether the result goes to the key before the source (ZRANGESTORE)
     */
    private static RedisMessage range(ServerContext c, ClientSession s, byte[][] a, int keyAt, By preset, boolean rev,
                                      boolean store) {
        boolean general = preset == By.RANK && !rev; // ZRANGE and ZRANGESTORE take every option
        By by = preset;
        boolean reverse = rev, withScores = false, limited = false, byChosen = false;
        long offset = 0, count = -1;
        for (int j = keyAt + 3; j < a.length; j++) {
            String opt = Args.lower(a[j]);
            if (opt.equals("withscores") && !store) {
                withScores = true;
            } else if (opt.equals("limit") && a.length - j - 1 >= 2) {
                Long o = Args.parseLong(a[j + 1]);
                Long n = Args.parseLong(a[j + 2]);
                if (o == null || n == null) {
                    return Replies.NOT_INTEGER;
                }
                offset = o;
                count = n;
                limited = true;
                j += 2;
            } else if (general && !reverse && opt.equals("rev")) {
                reverse = true;
            } else if (general && !byChosen && opt.equals("bylex")) {
                by = By.LEX;
                byChosen = true;
            } else if (general && !byChosen && opt.equals("byscore")) {
                by = By.SCORE;
                byChosen = true;
            } else {
                return Replies.SYNTAX;
            }
        }
        if (limited && by == By.RANK) {
            return Replies.error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        }
        if (withScores && by == By.LEX) {
            return Replies.error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        }
        boolean swapped = reverse && by != By.RANK; // the range is given as max, min
        Range range = new Range(by, a[swapped ? keyAt + 2 : keyAt + 1], a[swapped ? keyAt + 1 : keyAt + 2], reverse,
                offset, count, withScores);
        RedisMessage invalid = check(range);
        if (invalid != null) {
            return invalid;
        }
        CollectionStore collections = c.databases.collections();
        long id = SortedSetCommands.id(c, s, a[keyAt]);
        if (!store) {
            return id == 0 ? Replies.array(List.of()) : collections.locked(() ->
                    SortedSetCommands.members(select(collections, id, range), range.withScores()));
        }
        return collections.locked(() -> {
            List<byte[]> keys = id == 0 ? List.of() : select(collections, id, range);
            return CollectionWrite.replace(c, s, a[1], ValueLayout.ZSET, keys.size(), made -> {
                for (byte[] k : keys) {
                    SortedSetStore.add(collections, made, CollectionLayout.scoreMember(k), CollectionLayout.scoreOf(k));
                }
            }, "zrangestore");
        });
    }

    /** @return the error reply if the range's bounds are not valid for its kind, else null */
    private static RedisMessage check(Range range) {
        return switch (range.by()) {
            case RANK -> Args.parseLong(range.min()) == null || Args.parseLong(range.max()) == null ? Replies.NOT_INTEGER : null;
            case SCORE -> scoreBound(range.min()) == null || scoreBound(range.max()) == null ? NOT_FLOAT_RANGE : null;
            case LEX -> validLex(range.min()) && validLex(range.max()) ? null : NOT_LEX_RANGE;
        };
    }

    /** @return the keys by score of the range's members, in its order; under the store's lock */
    static List<byte[]> select(CollectionStore store, long id, Range range) {
        return SortedSetStore.keys(store, id, ranks(store, id, range), range.rev(), range.offset(), range.count());
    }

    /** @return the ranks a (checked) range names in sorted set {@code id}; under the store's lock */
    private static SortedSetStore.Ranks ranks(CollectionStore store, long id, Range range) {
        return switch (range.by()) {
            case RANK -> SortedSetStore.byIndex(store, id, Args.parseLong(range.min()), Args.parseLong(range.max()), range.rev());
            case SCORE -> SortedSetStore.between(store, id, scoreKey(id, range.min(), true), scoreKey(id, range.max(), false));
            case LEX -> lexRanks(store, id, range.min(), range.max(), range.rev());
        };
    }

    /** A score bound: {@code (} before the number makes it exclusive. */
    private record ScoreBound(double value, boolean exclusive) {
    }

    /** @return the bound, or null if it is not a float (NaN included); no digits read as 0, as Redis's {@code strtod} reads them */
    private static ScoreBound scoreBound(byte[] text) {
        boolean exclusive = text.length > 0 && text[0] == '(';
        byte[] number = exclusive ? Arrays.copyOfRange(text, 1, text.length) : text;
        Double v = number.length == 0 ? Double.valueOf(0) : Scores.parse(number);
        return v == null ? null : new ScoreBound(v, exclusive);
    }

    /**
     * @param lower whether it is the range's lower bound (then the key is the first inside, else
     *              the first above)
     * @return the key by score a score bound stands for
     */
    private static byte[] scoreKey(long id, byte[] text, boolean lower) {
        ScoreBound b = scoreBound(text);
        long order = CollectionLayout.order(b.value());
        return CollectionLayout.scoreFrom(id, lower == b.exclusive() ? order + 1 : order);
    }

    /** @return whether the text is a lexicographic bound: {@code -}, {@code +}, {@code [member} or {@code (member} */
    private static boolean validLex(byte[] text) {
        return text.length > 0 && (text[0] == '[' || text[0] == '(' || text.length == 1 && (text[0] == '-' || text[0] == '+'));
    }

    /**
     * @param rev whether the range is walked from the highest score down
     * @return the ranks of the members between two lexicographic bounds: in O(log n) when every
     *         member has one score, else by a walk as Redis's compact encoding walks (nothing if the
     *         last member is below {@code min} or the first above {@code max}; else from the first
     *         member at or above {@code min} while at or below {@code max}, or, walking down, from
     *         the last at or below {@code max} while at or above {@code min})
     */
    private static SortedSetStore.Ranks lexRanks(CollectionStore store, long id, byte[] min, byte[] max, boolean rev) {
        long n = store.size(id);
        byte[] first = store.positions().scoreAt(id, 0);
        byte[] last = store.positions().scoreAt(id, n - 1);
        if (first == null || last == null) {
            return SortedSetStore.Ranks.NONE;
        }
        long order = CollectionLayout.order(CollectionLayout.scoreOf(first));
        if (CollectionLayout.order(CollectionLayout.scoreOf(last)) == order) {
            return SortedSetStore.between(store, id, lexKey(id, order, min, true), lexKey(id, order, max, false));
        }
        if (!aboveMin(CollectionLayout.scoreMember(last), min) || !belowMax(CollectionLayout.scoreMember(first), max)) {
            return SortedSetStore.Ranks.NONE;
        }
        java.util.Iterator<byte[]> walk = rev ? store.scores(id).descendingKeySet().iterator() : store.scores(id).keySet().iterator();
        long step = rev ? -1 : 1;
        long rank = rev ? n - 1 : 0;
        long start = -1;
        while (walk.hasNext()) {
            byte[] member = CollectionLayout.scoreMember(walk.next());
            boolean inside = rev ? aboveMin(member, min) : belowMax(member, max);
            if (start < 0 && (rev ? belowMax(member, max) : aboveMin(member, min))) {
                start = rank;
            }
            if (start >= 0 && !inside) {
                break;
            }
            rank += step;
        }
        if (start < 0) {
            return SortedSetStore.Ranks.NONE;
        }
        return rev ? new SortedSetStore.Ranks(rank + 1, start + 1) : new SortedSetStore.Ranks(start, rank);
    }

    /** @return the key by score a lexicographic bound stands for, among the members of score order {@code order} */
    private static byte[] lexKey(long id, long order, byte[] bound, boolean lower) {
        if (bound[0] == '-' || bound[0] == '+') {
            return CollectionLayout.scoreFrom(id, bound[0] == '+' ? order + 1 : order);
        }
        byte[] base = CollectionLayout.scoreFrom(id, order);
        boolean after = lower == (bound[0] == '('); // just above the member: the member with a 0 byte after it
        byte[] k = Arrays.copyOf(base, base.length + bound.length - 1 + (after ? 1 : 0));
        System.arraycopy(bound, 1, k, base.length, bound.length - 1);
        return k;
    }

    private static boolean aboveMin(byte[] member, byte[] min) {
        if (min[0] == '-' || min[0] == '+') {
            return min[0] == '-';
        }
        int cmp = Arrays.compareUnsigned(member, 0, member.length, min, 1, min.length);
        return min[0] == '[' ? cmp >= 0 : cmp > 0;
    }

    private static boolean belowMax(byte[] member, byte[] max) {
        if (max[0] == '-' || max[0] == '+') {
            return max[0] == '+';
        }
        int cmp = Arrays.compareUnsigned(member, 0, member.length, max, 1, max.length);
        return max[0] == '[' ? cmp <= 0 : cmp < 0;
    }

    /** ZCOUNT and ZLEXCOUNT key min max. */
    private static RedisMessage count(ServerContext c, ClientSession s, byte[][] a, By by) {
        Range range = new Range(by, a[2], a[3], false, 0, -1, false);
        RedisMessage invalid = check(range);
        if (invalid != null) {
            return invalid;
        }
        long id = SortedSetCommands.id(c, s, a[1]);
        CollectionStore store = c.databases.collections();
        return Replies.integer(id == 0 ? 0 : store.locked(() -> ranks(store, id, range).size()));
    }

    /** ZREMRANGEBYSCORE, ZREMRANGEBYRANK and ZREMRANGEBYLEX key min max: how many were removed. */
    private static RedisMessage removeRange(ServerContext c, ClientSession s, byte[][] a, By by, String event) {
        Range range = new Range(by, a[2], a[3], false, 0, -1, false);
        RedisMessage invalid = check(range);
        if (invalid != null) {
            return invalid;
        }
        CollectionStore store = c.databases.collections();
        long removed = CollectionWrite.run(c, s, a[1], ValueLayout.ZSET, false, KeyspaceEvents.ZSET, event, op -> {
            List<byte[]> keys = select(store, op.id, range);
            SortedSetStore.removeAll(store, op.id, keys);
            op.changed = !keys.isEmpty();
            return (long) keys.size();
        }, () -> 0L);
        return Replies.integer(removed);
    }
}
