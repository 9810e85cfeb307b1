package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Commands on keys whatever their value: DEL UNLINK EXISTS TYPE KEYS SCAN (MATCH COUNT TYPE)
 * RANDOMKEY RENAME RENAMENX. SCAN is {@link FerriteMap#scan}: Redis's reverse-binary cursor, no
 * state kept between calls. Stateless.
 */
final class KeyCommands {

    /** SCAN's default COUNT, as Redis's. */
    private static final int DEFAULT_SCAN_COUNT = 10;

    private KeyCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("del", -2, KeyCommands::del);
        r.add("unlink", -2, KeyCommands::del);
        r.add("exists", -2, (c, s, a) -> {
            Keyspace ks = c.keyspace(s);
            long n = 0;
            for (int i = 1; i < a.length; i++) {
                if (ks.live(a[i]) != null) {
                    n++;
                }
            }
            return Replies.integer(n);
        });
        r.add("type", 2, (c, s, a) -> Replies.simple(c.keyspace(s).live(a[1]) == null ? "none" : "string"));
        r.add("keys", 2, KeyCommands::keys);
        r.add("scan", -2, KeyCommands::scan);
        r.add("randomkey", 1, KeyCommands::randomKey);
        r.add("rename", 3, (c, s, a) -> rename(c, s, a, false));
        r.add("renamenx", 3, (c, s, a) -> rename(c, s, a, true));
    }

    private static RedisMessage del(ServerContext c, ClientSession s, byte[][] a) {
        Keyspace ks = c.keyspace(s);
        long n = 0;
        for (int i = 1; i < a.length; i++) {
            if (ks.remove(a[i]) != null) {
                n++;
            }
        }
        return Replies.integer(n);
    }

    /** KEYS pattern: every live key matching, from one full scan. */
    private static RedisMessage keys(ServerContext c, ClientSession s, byte[][] a) {
        FerriteMap<byte[], byte[]> map = c.databases.ifOpen(s.db);
        if (map == null) {
            return Replies.array(List.of()); // a database never written has no keys
        }
        long now = System.currentTimeMillis();
        boolean all = a[1].length == 1 && a[1][0] == '*';
        List<RedisMessage> out = new ArrayList<>();
        long cursor = 0;
        do {
            cursor = map.scan(cursor, 1024, (k, v) -> {
                if (Keyspace.liveAt(v, now) != null && (all || Glob.matches(a[1], k))) {
                    out.add(Replies.bulk(k));
                }
            });
        } while (cursor != 0);
        return Replies.array(out);
    }

    /** SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. */
    private static RedisMessage scan(ServerContext c, ClientSession s, byte[][] a) {
        long cursor;
        try {
            cursor = Long.parseUnsignedLong(new String(a[1], StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            return Replies.error("ERR invalid cursor");
        }
        byte[] pattern = null;
        int count = DEFAULT_SCAN_COUNT;
        boolean stringsOnly = true;
        for (int i = 2; i < a.length; i++) {
            String opt = Args.lower(a[i]);
            if (i + 1 >= a.length) {
                return Replies.SYNTAX;
            }
            switch (opt) {
                case "match":
                    pattern = a[++i];
                    break;
                case "count": {
                    Long n = Args.parseLong(a[++i]);
                    if (n == null) {
                        return Replies.NOT_INTEGER;
                    }
                    if (n < 1) {
                        return Replies.SYNTAX;
                    }
                    count = (int) Math.min(n, 1 << 20);
                    break;
                }
                case "type":
                    stringsOnly = Args.lower(a[++i]).equals("string"); // every value is a string
                    break;
                default:
                    return Replies.SYNTAX;
            }
        }
        // A cursor this map never gave (negative as a long) ends the scan, as a foreign one does.
        if (cursor < 0) {
            return scanReply(0, List.of());
        }
        FerriteMap<byte[], byte[]> map = c.databases.ifOpen(s.db);
        if (map == null) {
            return scanReply(0, List.of()); // a database never written has no keys
        }
        long now = System.currentTimeMillis();
        byte[] match = pattern;
        boolean any = stringsOnly;
        List<RedisMessage> keys = new ArrayList<>();
        long next = map.scan(cursor, count, (k, v) -> {
            if (any && Keyspace.liveAt(v, now) != null && (match == null || Glob.matches(match, k))) {
                keys.add(Replies.bulk(k));
            }
        });
        return scanReply(next, keys);
    }

    private static RedisMessage scanReply(long cursor, List<RedisMessage> keys) {
        return Replies.array(List.of(Replies.bulk(Long.toUnsignedString(cursor)), Replies.array(keys)));
    }

    /**
     * RANDOMKEY: a live key from a random point of the keyspace (a random section and bucket of
     * {@link FerriteMap#scan}'s cursor), nil if there is none.
     */
    private static RedisMessage randomKey(ServerContext c, ClientSession s, byte[][] a) {
        FerriteMap<byte[], byte[]> map = c.databases.ifOpen(s.db);
        if (map == null) {
            return Replies.bulk((byte[]) null); // a database never written has no keys
        }
        long now = System.currentTimeMillis();
        byte[][] found = {null};
        // Start at a random section and bucket; go on (wrapping once) until a live key turns up.
        int sections = map.stats().sections();
        long cursor = (long) ThreadLocalRandom.current().nextInt(sections) << 32
                | ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE);
        boolean wrapped = false;
        while (found[0] == null && !map.isEmpty()) {
            cursor = map.scan(cursor, 1, (k, v) -> {
                if (found[0] == null && Keyspace.liveAt(v, now) != null) {
                    found[0] = k;
                }
            });
            if (cursor == 0) {
                if (wrapped) {
                    break;
                }
                wrapped = true;
            }
        }
        return Replies.bulk(found[0]);
    }

    /**
     * RENAME key newkey (RENAMENX: only if newkey does not exist). The value (with its expiry) is
     * written under the new name, then removed from the old one if no one changed it meanwhile:
     * a reader may briefly see both names, never neither, and a concurrent write to the old key
     * is kept.
     */
    private static RedisMessage rename(ServerContext c, ClientSession s, byte[][] a, boolean onlyIfAbsent) {
        Keyspace ks = c.keyspace(s);
        byte[] v = ks.live(a[1]);
        if (v == null) {
            return Replies.error("ERR no such key");
        }
        if (java.util.Arrays.equals(a[1], a[2])) {
            return onlyIfAbsent ? Replies.ZERO : Replies.OK;
        }
        FerriteMap<byte[], byte[]> map = ks.writable(); // it exists: it holds the key
        if (onlyIfAbsent) {
            if (ks.live(a[2]) != null || map.putIfAbsent(a[2], v) != null) {
                return Replies.ZERO;
            }
        } else {
            map.put(a[2], v);
        }
        map.remove(a[1], v);
        return onlyIfAbsent ? Replies.ONE : Replies.OK;
    }
}
