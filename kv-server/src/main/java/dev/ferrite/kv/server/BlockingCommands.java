package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;

/**
 * The blocking commands: BLPOP BRPOP (key [key ...] timeout), BLMPOP (and its non-blocking
 * LMPOP), BLMOVE (source destination LEFT|RIGHT LEFT|RIGHT timeout) and BRPOPLPUSH (source
 * destination timeout) of lists; BZPOPMIN BZPOPMAX and BZMPOP (and ZMPOP) of sorted sets; with
 * Redis's replies and errors. One that finds an element answers at once, as its non-blocking kin;
 * one that finds none waits ({@link Blocked}, {@link BlockingWaits}) until a write gives one of its
 * keys an element or its timeout (seconds, fractions allowed, 0 for ever) passes, then answers nil.
 * Inside EXEC it does not wait. Stateless.
 */
final class BlockingCommands {

    private static final RedisMessage NOT_FLOAT = Replies.error("ERR timeout is not a float or out of range");
    private static final RedisMessage NEGATIVE = Replies.error("ERR timeout is negative");
    private static final RedisMessage TOO_FAR = Replies.error("ERR timeout is out of range");

    private BlockingCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("blpop", -3, (c, s, a) -> pop(c, s, a, true));
        r.add("brpop", -3, (c, s, a) -> pop(c, s, a, false));
        r.add("lmpop", -4, (c, s, a) -> mpop(c, s, a, 1, -1, ValueLayout.LIST));
        r.add("blmpop", -5, (c, s, a) -> mpop(c, s, a, 2, timeout(a[1]), ValueLayout.LIST));
        r.add("zmpop", -4, (c, s, a) -> mpop(c, s, a, 1, -1, ValueLayout.ZSET));
        r.add("bzmpop", -5, (c, s, a) -> mpop(c, s, a, 2, timeout(a[1]), ValueLayout.ZSET));
        r.add("bzpopmin", -3, (c, s, a) -> zpop(c, s, a, false));
        r.add("bzpopmax", -3, (c, s, a) -> zpop(c, s, a, true));
        r.add("blmove", 6, (c, s, a) -> move(c, s, a, Arrays.copyOfRange(a, 0, 5), a[5]));
        r.add("brpoplpush", 4, (c, s, a) -> move(c, s, a, new byte[][] {a[0], a[1], a[2],
                "right".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                "left".getBytes(java.nio.charset.StandardCharsets.US_ASCII)}, a[3]));
    }

    /**
     * @return the timeout in milliseconds (0 for ever), or -1 if it is not a number, -2 if negative,
     *         -3 if too far
     */
    private static long timeout(byte[] text) {
        LongDouble.Value parsed = LongDouble.parse(text); // as Redis's strtold: hexadecimal too
        if (parsed == null) {
            return -1;
        }
        if (parsed.infinite()) {
            return -3;
        }
        BigDecimal seconds = parsed.value();
        if (seconds.signum() < 0) {
            return -2;
        }
        BigDecimal millis = seconds.movePointRight(3);
        if (millis.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 2)) > 0) {
            return -3;
        }
        long ms = millis.setScale(0, java.math.RoundingMode.CEILING).longValueExact();
        return seconds.signum() > 0 && ms == 0 ? 1 : ms;
    }

    /** @return the timeout's error reply, or null if it is valid */
    private static RedisMessage timeoutError(long ms) {
        return ms == -1 ? NOT_FLOAT : ms == -2 ? NEGATIVE : ms == -3 ? TOO_FAR : null;
    }

    private static RedisMessage pop(ServerContext c, ClientSession s, byte[][] a, boolean left) {
        long ms = timeout(a[a.length - 1]);
        RedisMessage e = timeoutError(ms);
        if (e != null) {
            return e;
        }
        RedisMessage taken = takeOne(c, s, a, left);
        return taken != null ? taken : block(c, s, Arrays.copyOfRange(a, 1, a.length - 1), ms,
                ArrayRedisMessage.NULL_INSTANCE, () -> laned(c, () -> takeOne(c, s, a, left)));
    }

    /** @return BLPOP's or BRPOP's reply if one of its lists has an element (taken), else null */
    private static RedisMessage takeOne(ServerContext c, ClientSession s, byte[][] a, boolean left) {
        CollectionStore store = c.databases.collections();
        Keyspace ks = c.keyspace(s);
        for (int i = 1; i < a.length - 1; i++) {
            byte[] key = a[i];
            if (!holds(ks, s, key, ValueLayout.LIST)) {
                continue;
            }
            byte[] value = CollectionWrite.run(c, s, key, ValueLayout.LIST, false, KeyspaceEvents.LIST,
                    left ? "lpop" : "rpop", op -> {
                        byte[] v = ListStore.popOne(store, op.id, left);
                        op.changed = v != null;
                        return v;
                    }, () -> null);
            if (value != null) {
                s.blockedUntil = 0;
                return Replies.array(List.of(Replies.bulk(key), Replies.bulk(value)));
            }
        }
        return null;
    }

    /**
     * LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] and BLMPOP timeout numkeys ...: up to
     * count elements from one end of the first non-empty list, as [key, [elements]]; ZMPOP and
     * BZMPOP (MIN|MAX) the same of sorted sets, as [key, [[member, score] ...]].
     *
     * @param at   where numkeys is
     * @param ms   the timeout (-1 for LMPOP and ZMPOP: no waiting; else as {@link #timeout})
     * @param type the type it pops from: LIST or ZSET
     */
    private static RedisMessage mpop(ServerContext c, ClientSession s, byte[][] a, int at, long ms, byte type) {
        if (ms != -1 || at == 2) {
            RedisMessage e = timeoutError(ms);
            if (e != null) {
                return e;
            }
        }
        Long n = Args.parseLong(a[at]);
        if (n == null || n <= 0) {
            return Replies.error("ERR numkeys should be greater than 0");
        }
        if (n > a.length - at - 2) {
            return Replies.SYNTAX;
        }
        int firstKey = at + 1;
        int whereAt = firstKey + (int) (long) n;
        String where = Args.lower(a[whereAt]);
        String front = type == ValueLayout.LIST ? "left" : "min";
        if (!where.equals(front) && !where.equals(type == ValueLayout.LIST ? "right" : "max")) {
            return Replies.SYNTAX;
        }
        long count = 1;
        if (whereAt + 1 < a.length) {
            if (whereAt + 3 != a.length || !Args.lower(a[whereAt + 1]).equals("count")) {
                return Replies.SYNTAX;
            }
            Long cnt = Args.parseLong(a[whereAt + 2]);
            if (cnt == null || cnt <= 0) {
                return Replies.error("ERR count should be greater than 0");
            }
            count = cnt;
        }
        boolean left = where.equals(front);
        long most = count;
        byte[][] keys = Arrays.copyOfRange(a, firstKey, whereAt);
        RedisMessage taken = takeMany(c, s, keys, left, most, type);
        if (taken != null || at == 1) {
            return taken != null ? taken : ArrayRedisMessage.NULL_INSTANCE;
        }
        return block(c, s, keys, ms, ArrayRedisMessage.NULL_INSTANCE,
                () -> laned(c, () -> takeMany(c, s, keys, left, most, type)));
    }

    /**
     * @param left for a sorted set: take the lowest scores
     * @return LMPOP's or ZMPOP's reply if one of the keys holds elements (up to {@code most}
     *         taken), else null
     */
    private static RedisMessage takeMany(ServerContext c, ClientSession s, byte[][] keys, boolean left, long most, byte type) {
        CollectionStore store = c.databases.collections();
        Keyspace ks = c.keyspace(s);
        for (byte[] key : keys) {
            if (!holds(ks, s, key, type)) {
                continue;
            }
            if (type == ValueLayout.ZSET) {
                RedisMessage popped = SortedSetCommands.popFrom(c, s, key, most, !left);
                if (popped != null) {
                    s.blockedUntil = 0;
                    return popped;
                }
                continue;
            }
            List<RedisMessage> values = CollectionWrite.run(c, s, key, ValueLayout.LIST, false, KeyspaceEvents.LIST,
                    left ? "lpop" : "rpop", op -> {
                        List<RedisMessage> out = new java.util.ArrayList<>();
                        for (long j = 0; j < most; j++) {
                            byte[] v = ListStore.popOne(store, op.id, left);
                            if (v == null) {
                                break;
                            }
                            out.add(Replies.bulk(v));
                        }
                        op.changed = !out.isEmpty();
                        return out;
                    }, List::of);
            if (!values.isEmpty()) {
                s.blockedUntil = 0;
                return Replies.array(List.of(Replies.bulk(key), Replies.array(values)));
            }
        }
        return null;
    }

    /** BZPOPMIN and BZPOPMAX key [key ...] timeout: [key, member, score] from the first sorted set with members. */
    private static RedisMessage zpop(ServerContext c, ClientSession s, byte[][] a, boolean highest) {
        long ms = timeout(a[a.length - 1]);
        RedisMessage e = timeoutError(ms);
        if (e != null) {
            return e;
        }
        byte[][] keys = Arrays.copyOfRange(a, 1, a.length - 1);
        RedisMessage taken = zpopOne(c, s, keys, highest);
        return taken != null ? taken : block(c, s, keys, ms, ArrayRedisMessage.NULL_INSTANCE,
                () -> laned(c, () -> zpopOne(c, s, keys, highest)));
    }

    private static RedisMessage zpopOne(ServerContext c, ClientSession s, byte[][] keys, boolean highest) {
        for (byte[] key : keys) {
            if (holds(c.keyspace(s), s, key, ValueLayout.ZSET)) {
                List<byte[]> one = SortedSetCommands.take(c, s, key, 1, highest);
                if (!one.isEmpty()) {
                    s.blockedUntil = 0;
                    return Replies.array(List.of(Replies.bulk(key), Replies.bulk(CollectionLayout.scoreMember(one.get(0))),
                            Replies.bulk(Scores.format(CollectionLayout.scoreOf(one.get(0))))));
                }
            }
        }
        return null;
    }

    private static RedisMessage move(ServerContext c, ClientSession s, byte[][] a, byte[][] lmove, byte[] timeoutText) {
        long ms = timeout(timeoutText);
        RedisMessage e = timeoutError(ms);
        if (e != null) {
            return e;
        }
        String from = Args.lower(lmove[3]);
        String to = Args.lower(lmove[4]);
        if (!(from.equals("left") || from.equals("right")) || !(to.equals("left") || to.equals("right"))) {
            return Replies.SYNTAX;
        }
        RedisMessage moved = moveOne(c, s, a, lmove);
        return moved != null ? moved : block(c, s, new byte[][] {a[1]}, ms, Replies.NIL, () -> {
            // served after another command: alone and journaled, as LMOVE runs
            List<UndoJournal.Entry> entries = List.of(new UndoJournal.Entry(s.db, a[1]), new UndoJournal.Entry(s.db, a[2]));
            return c.gate.exclusive(() -> CommandTable.journaled(c, entries, true, () -> {
                try {
                    return moveOne(c, s, a, lmove);
                } catch (WrongType wrong) {
                    return WrongType.REPLY;
                }
            }));
        });
    }

    /**
     * @return BLMOVE's reply if its source has an element (moved), else null
     * @throws WrongType if the destination holds another type (the element stays)
     */
    private static RedisMessage moveOne(ServerContext c, ClientSession s, byte[][] a, byte[][] lmove) {
        Keyspace ks = c.keyspace(s);
        if (!holds(ks, s, a[1], ValueLayout.LIST)) {
            return null;
        }
        s.blockedUntil = 0; // served, or WRONGTYPE for a destination of another type: the wait ends
        try {
            return ListCommands.lmove(c, s, lmove);
        } catch (WrongType wrong) {
            c.blocking.signal(s.db, a[1]); // the element stays: the next blocked client's turn
            throw wrong;
        }
    }

    /** Runs a served command's attempt through the command gate, as a command runs. */
    private static RedisMessage laned(ServerContext c, java.util.function.Supplier<RedisMessage> attempt) {
        CommandGate.Lane lane = c.gate.enter();
        try {
            return attempt.get();
        } finally {
            c.gate.exit(lane);
        }
    }

    /**
     * @return whether {@code key} holds a collection of that type; a key of another type is
     *         WRONGTYPE when the command first runs, and is passed over while it waits (Redis
     *         serves a blocked client only from its type)
     */
    private static boolean holds(Keyspace ks, ClientSession s, byte[] key, byte type) {
        try {
            return ks.collection(key, type) != null;
        } catch (WrongType e) {
            if (s.blockedUntil == 0) {
                throw e;
            }
            return false;
        }
    }

    /**
     * Waits on the keys, or answers {@code nil} if the wait is over (its timeout passed, or inside
     * EXEC).
     *
     * @param attempt what the command does when a write serves it: its reply, or null if it finds
     *                nothing (it runs on the writer's thread, with this client's session)
     */
    private static RedisMessage block(ServerContext c, ClientSession s, byte[][] keys, long ms, RedisMessage nil,
                                      java.util.function.Supplier<RedisMessage> attempt) {
        long now = System.currentTimeMillis();
        if (s.blockedUntil == 0) {
            s.blockedUntil = ms == 0 ? -1 : now + ms;
        }
        if (s.executing || s.blockedUntil > 0 && now >= s.blockedUntil) {
            s.blockedUntil = 0;
            return nil;
        }
        long left = s.blockedUntil < 0 ? 0 : s.blockedUntil - now;
        throw new Blocked(c.blocking.await(s.db, keys, left, attempt));
    }
}
