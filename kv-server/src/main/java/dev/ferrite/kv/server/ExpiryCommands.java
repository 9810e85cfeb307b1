package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

/**
 * Expiry: EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL PERSIST. The expiry lives in the stored value
 * ({@link ValueLayout}), so it survives a restart; a key whose time has come is never returned and
 * is removed when met (and by {@link ExpiryReaper} in the background). Stateless.
 */
final class ExpiryCommands {

    private ExpiryCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("ttl", 2, (c, s, a) -> ttl(c, s, a[1], false));
        r.add("pttl", 2, (c, s, a) -> ttl(c, s, a[1], true));
        r.add("expire", 3, (c, s, a) -> expire(c, s, a, 1000, false));
        r.add("pexpire", 3, (c, s, a) -> expire(c, s, a, 1, false));
        r.add("expireat", 3, (c, s, a) -> expire(c, s, a, 1000, true));
        r.add("pexpireat", 3, (c, s, a) -> expire(c, s, a, 1, true));
        r.add("persist", 2, ExpiryCommands::persist);
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

    private static RedisMessage expire(ServerContext c, ClientSession s, byte[][] a, long unitMillis, boolean absolute) {
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
        if (!absolute && (ms > 0 && ms > Long.MAX_VALUE - now)) {
            return Replies.invalidExpire(name);
        }
        long at = absolute ? ms : now + ms;
        boolean[] found = {false};
        c.databases.get(s.db).computeIfPresent(a[1], (k, stored) -> {
            Keyspace.check(k, stored);
            if (Keyspace.liveAt(stored, now) == null) {
                return null;
            }
            found[0] = true;
            if (at <= now) {
                return null; // an expiry in the past deletes the key, as in Redis
            }
            byte[] copy = stored.clone();
            ValueLayout.putLong(copy, ValueLayout.EXPIRE_AT, at);
            return copy;
        });
        return Replies.integer(found[0] ? 1 : 0);
    }

    private static RedisMessage persist(ServerContext c, ClientSession s, byte[][] a) {
        Keyspace ks = c.keyspace(s);
        byte[] v = ks.live(a[1]);
        if (v == null || ValueLayout.expireAt(v) == ValueLayout.NO_EXPIRY) {
            return Replies.ZERO; // nothing to change: decided by a read, no write
        }
        long now = System.currentTimeMillis();
        boolean[] changed = {false};
        ks.map().computeIfPresent(a[1], (k, stored) -> {
            if (Keyspace.liveAt(stored, now) == null) {
                return null;
            }
            if (ValueLayout.expireAt(stored) == ValueLayout.NO_EXPIRY) {
                return stored;
            }
            changed[0] = true;
            byte[] copy = stored.clone();
            ValueLayout.putLong(copy, ValueLayout.EXPIRE_AT, ValueLayout.NO_EXPIRY);
            return copy;
        });
        return Replies.integer(changed[0] ? 1 : 0);
    }
}
