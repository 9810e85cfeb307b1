package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import io.netty.handler.codec.redis.RedisMessage;

/**
 * Expiry: EXPIRE PEXPIRE EXPIREAT PEXPIREAT (with Redis 7's NX XX GT LT) TTL PTTL EXPIRETIME
 * PEXPIRETIME PERSIST. The expiry lives in the stored value
 * ({@link ValueLayout}), so it survives a restart; a key whose time has come is never returned and
 * is removed when met (and by {@link ExpiryReaper} in the background). Stateless.
 */
final class ExpiryCommands {

    private ExpiryCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("ttl", 2, (c, s, a) -> ttl(c, s, a[1], false));
        r.add("pttl", 2, (c, s, a) -> ttl(c, s, a[1], true));
        r.add("expire", -3, (c, s, a) -> expire(c, s, a, 1000, false));
        r.add("pexpire", -3, (c, s, a) -> expire(c, s, a, 1, false));
        r.add("expireat", -3, (c, s, a) -> expire(c, s, a, 1000, true));
        r.add("pexpireat", -3, (c, s, a) -> expire(c, s, a, 1, true));
        r.add("persist", 2, ExpiryCommands::persist);
        r.add("expiretime", 2, (c, s, a) -> expireTime(c, s, a[1], false));
        r.add("pexpiretime", 2, (c, s, a) -> expireTime(c, s, a[1], true));
    }

    private static RedisMessage ttl(ServerContext c, ClientSession s, byte[] key, boolean millis) {
        byte[] v = c.keyspace(s).live(key);
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

    /** EXPIRETIME and PEXPIRETIME: the absolute expiry in seconds or ms, -1 without one, -2 without the key. */
    private static RedisMessage expireTime(ServerContext c, ClientSession s, byte[] key, boolean millis) {
        byte[] v = c.keyspace(s).live(key);
        if (v == null) {
            return Replies.integer(-2);
        }
        long at = ValueLayout.expireAt(v);
        return Replies.integer(at == ValueLayout.NO_EXPIRY ? -1 : millis ? at : at / 1000);
    }

    /** EXPIRE's options (Redis 7): NX, XX, GT, LT, as bits. */
    private static final int NX = 1;
    private static final int XX = 2;
    private static final int GT = 4;
    private static final int LT = 8;
    private static final RedisMessage NX_CONFLICT =
            Replies.error("ERR NX and XX, GT or LT options at the same time are not compatible");
    private static final RedisMessage GT_LT_CONFLICT =
            Replies.error("ERR GT and LT options at the same time are not compatible");

    /**
     * EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT key time [NX | XX | GT | LT], checked in Redis's order:
     * the options, the number, its range; then, on a live key, the condition (no expiry counts as
     * an infinite one: GT never holds for it, LT always does). A time already past deletes the key.
     */
    private static RedisMessage expire(ServerContext c, ClientSession s, byte[][] a, long unitMillis, boolean absolute) {
        int flags = 0;
        for (int i = 3; i < a.length; i++) {
            switch (Args.lower(a[i])) {
                case "nx" -> flags |= NX;
                case "xx" -> flags |= XX;
                case "gt" -> flags |= GT;
                case "lt" -> flags |= LT;
                default -> {
                    return new ErrorLine().text("ERR Unsupported option ").quote(a[i], ErrorLine.WHOLE).build();
                }
            }
        }
        if ((flags & NX) != 0 && (flags & (XX | GT | LT)) != 0) {
            return NX_CONFLICT;
        }
        if ((flags & (GT | LT)) == (GT | LT)) {
            return GT_LT_CONFLICT;
        }
        Long n = Args.parseLong(a[2]);
        if (n == null) {
            return Replies.NOT_INTEGER;
        }
        long now = System.currentTimeMillis();
        String name = Args.lower(a[0]);
        if (unitMillis > 1 && (n > Long.MAX_VALUE / unitMillis || n < Long.MIN_VALUE / unitMillis)) {
            return Replies.invalidExpire(name);
        }
        long ms = n * unitMillis;
        if (!absolute && ms > Long.MAX_VALUE - now) {
            return Replies.invalidExpire(name);
        }
        long at = absolute ? ms : now + ms;
        int conditions = flags;
        boolean[] changed = {false};
        byte[][] before = {null};
        FerriteMap<byte[], byte[]> map = c.databases.ifOpen(s.db);
        if (map == null) {
            return Replies.ZERO; // no key exists in a database never written
        }
        map.computeIfPresent(a[1], (k, stored) -> {
            Keyspace.check(k, stored);
            before[0] = stored;
            if (Keyspace.liveAt(stored, now) == null) {
                return null;
            }
            if (!conditionHolds(conditions, ValueLayout.expireAt(stored), at)) {
                return stored;
            }
            changed[0] = true;
            if (at <= now) {
                return null; // an expiry in the past deletes the key, as in Redis
            }
            byte[] copy = stored.clone();
            ValueLayout.setExpireAt(copy, at);
            return copy;
        });
        Keyspace ks = c.keyspace(s);
        if (changed[0]) {
            ks.emit(a[1], KeyspaceEvents.GENERIC, at <= now ? "del" : "expire");
        } else {
            ks.found(a[1], before[0], now);
        }
        return Replies.integer(changed[0] ? 1 : 0);
    }

    /** @return whether EXPIRE's options allow the change from the current expiry to {@code at} */
    private static boolean conditionHolds(int flags, long current, long at) {
        boolean none = current == ValueLayout.NO_EXPIRY;
        if ((flags & NX) != 0 && !none || (flags & XX) != 0 && none) {
            return false;
        }
        if ((flags & GT) != 0 && (none || at <= current)) {
            return false;
        }
        return (flags & LT) == 0 || none || at < current;
    }

    private static RedisMessage persist(ServerContext c, ClientSession s, byte[][] a) {
        Keyspace ks = c.keyspace(s);
        byte[] v = ks.live(a[1]);
        if (v == null || ValueLayout.expireAt(v) == ValueLayout.NO_EXPIRY) {
            return Replies.ZERO; // nothing to change: decided by a read, no write
        }
        long now = System.currentTimeMillis();
        boolean[] changed = {false};
        byte[][] before = {null};
        ks.writable().computeIfPresent(a[1], (k, stored) -> {
            before[0] = stored;
            if (Keyspace.liveAt(stored, now) == null) {
                return null;
            }
            if (ValueLayout.expireAt(stored) == ValueLayout.NO_EXPIRY) {
                return stored;
            }
            changed[0] = true;
            byte[] copy = stored.clone();
            ValueLayout.setExpireAt(copy, ValueLayout.NO_EXPIRY);
            return copy;
        });
        if (changed[0]) {
            ks.emit(a[1], KeyspaceEvents.GENERIC, "persist");
        } else {
            ks.found(a[1], before[0], now);
        }
        return Replies.integer(changed[0] ? 1 : 0);
    }
}
