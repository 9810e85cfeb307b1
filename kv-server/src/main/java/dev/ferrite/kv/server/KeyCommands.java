package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Commands on keys whatever their value: DEL UNLINK EXISTS TOUCH TYPE KEYS SCAN (MATCH COUNT TYPE)
 * RANDOMKEY RENAME RENAMENX COPY MOVE SWAPDB OBJECT. SCAN is {@link FerriteMap#scan}: Redis's
 * reverse-binary cursor, no state kept between calls. RENAME, RENAMENX and MOVE run alone and
 * journaled ({@link CommandTable}): all or nothing for readers and across a crash. Stateless.
 */
final class KeyCommands {

    /** SCAN's default COUNT, as Redis's. */
    private static final int DEFAULT_SCAN_COUNT = 10;

    private KeyCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("del", -2, KeyCommands::del);
        r.add("unlink", -2, KeyCommands::del);
        r.add("exists", -2, KeyCommands::countLive);
        r.add("type", 2, (c, s, a) -> {
            byte[] v = c.keyspace(s).live(a[1]);
            return Replies.simple(v == null ? "none" : ValueLayout.typeName(v));
        });
        r.add("keys", 2, KeyCommands::keys);
        r.add("scan", -2, KeyCommands::scan);
        r.add("randomkey", 1, KeyCommands::randomKey);
        r.add("rename", 3, (c, s, a) -> rename(c, s, a, false));
        r.add("renamenx", 3, (c, s, a) -> rename(c, s, a, true));
        r.add("touch", -2, KeyCommands::countLive); // no access times are kept: TOUCH counts as EXISTS
        r.add("copy", -3, KeyCommands::copy);
        r.add("move", 3, KeyCommands::move);
        r.add("swapdb", 3, KeyCommands::swapDb);
        r.add("object", -2, KeyCommands::object);
    }

    /** EXISTS and TOUCH: how many of the keys (a key named twice counts twice) are live. */
    private static RedisMessage countLive(ServerContext c, ClientSession s, byte[][] a) {
        Keyspace ks = c.keyspace(s);
        long n = 0;
        for (int i = 1; i < a.length; i++) {
            if (ks.live(a[i]) != null) {
                n++;
            }
        }
        return Replies.integer(n);
    }

    /** COPY source destination [DB index] [REPLACE]: the value and its expiry, under the new name. */
    private static RedisMessage copy(ServerContext c, ClientSession s, byte[][] a) {
        int db = s.db;
        boolean replace = false;
        for (int i = 3; i < a.length; i++) {
            String opt = Args.lower(a[i]);
            if (opt.equals("replace")) {
                replace = true;
            } else if (opt.equals("db") && i + 1 < a.length) {
                Long n = Args.parseLong(a[++i]);
                if (n == null) {
                    return Replies.NOT_INTEGER;
                }
                if (n < 0 || n >= Databases.COUNT) {
                    return Replies.DB_RANGE;
                }
                db = (int) (long) n;
            } else {
                return Replies.SYNTAX;
            }
        }
        if (db == s.db && Arrays.equals(a[1], a[2])) {
            return Replies.error("ERR source and destination objects are the same");
        }
        byte[] v = c.keyspace(s).live(a[1]);
        if (v == null) {
            return Replies.ZERO;
        }
        Keyspace target = new Keyspace(c.databases, db, c.stats, c.events, !s.createInline);
        if (!replace && target.live(a[2]) != null) {
            return Replies.ZERO;
        }
        long now = System.currentTimeMillis();
        byte[] old = ValueLayout.isCollection(v) ? copyCollection(c, v, target, a[2]) : target.writable().put(a[2], v);
        target.found(a[2], replaced(c, old), now); // an expired value replaced
        target.emit(a[2], KeyspaceEvents.NEW, "new"); // as in Redis, a replaced key is made anew
        target.emit(a[2], KeyspaceEvents.GENERIC, "copy_to");
        arrived(c, db, a[2], v);
        return Replies.ONE;
    }

    /** MOVE key db: to another database if it is not there; runs alone and journaled. */
    private static RedisMessage move(ServerContext c, ClientSession s, byte[][] a) {
        Long n = Args.parseLong(a[2]);
        if (n == null) {
            return Replies.NOT_INTEGER;
        }
        if (n < 0 || n >= Databases.COUNT) {
            return Replies.DB_RANGE;
        }
        int db = (int) (long) n;
        if (db == s.db) {
            return Replies.error("ERR source and destination objects are the same");
        }
        Keyspace source = c.keyspace(s);
        byte[] v = source.live(a[1]);
        if (v == null) {
            return Replies.ZERO;
        }
        Keyspace target = new Keyspace(c.databases, db, c.stats, c.events, !s.createInline);
        if (target.live(a[1]) != null) {
            return Replies.ZERO;
        }
        addOwner(c, v, target, a[1]);
        target.writable().putBytes(a[1], v);
        source.writable().removeBytes(a[1]);
        removeOwner(c, v, source, a[1]);
        target.emit(a[1], KeyspaceEvents.NEW, "new");
        source.emit(a[1], KeyspaceEvents.GENERIC, "move_from");
        target.emit(a[1], KeyspaceEvents.GENERIC, "move_to");
        arrived(c, db, a[1], v);
        return Replies.ONE;
    }

    /** SWAPDB index1 index2: runs alone; the databases trade their maps in one step. */
    private static RedisMessage swapDb(ServerContext c, ClientSession s, byte[][] a) {
        Long x = Args.parseLong(a[1]);
        Long y = Args.parseLong(a[2]);
        if (x == null) {
            return Replies.error("ERR invalid first DB index");
        }
        if (y == null) {
            return Replies.error("ERR invalid second DB index");
        }
        if (x < 0 || x >= Databases.COUNT || y < 0 || y >= Databases.COUNT) {
            return Replies.DB_RANGE;
        }
        if (!x.equals(y)) {
            c.databases.swap((int) (long) x, (int) (long) y);
        }
        return Replies.OK;
    }

    /**
     * OBJECT ENCODING | FREQ | IDLETIME | REFCOUNT | HELP. A string's encoding is the one Redis would
     * report for it ({@link ValueLayout#encoding}).
     */
    private static RedisMessage object(ServerContext c, ClientSession s, byte[][] a) {
        String sub = Args.lower(a[1]);
        if (sub.equals("help")) {
            return Replies.array(List.of(Replies.simple("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
                    Replies.simple("ENCODING <key>"), Replies.simple("FREQ <key>"), Replies.simple("IDLETIME <key>"),
                    Replies.simple("REFCOUNT <key>"), Replies.simple("HELP")));
        }
        if (!List.of("encoding", "freq", "idletime", "refcount").contains(sub)) {
            return Replies.unknownSubcommand(a[1], "OBJECT");
        }
        if (a.length != 3) {
            return Replies.arity("object|" + sub);
        }
        byte[] v = c.keyspace(s).live(a[2]);
        if (v == null) {
            return Replies.NIL;
        }
        switch (sub) {
            case "encoding":
                return Replies.bulk(encoding(c, v));
            case "freq":
                return Replies.error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                        + "Please note that when switching between policies at runtime LRU and LFU data will take some "
                        + "time to adjust.");
            case "idletime":
                return Replies.ZERO;
            default:
                return Replies.ONE;
        }
    }

    /** @return Redis's OBJECT ENCODING of a stored value */
    private static String encoding(ServerContext c, byte[] stored) {
        if (!ValueLayout.isCollection(stored)) {
            return ValueLayout.encoding(stored);
        }
        long id = ValueLayout.id(stored);
        return switch (ValueLayout.type(stored)) {
            case ValueLayout.HASH -> HashCommands.encoding(c, id);
            case ValueLayout.SET -> SetCommands.encoding(c, id);
            case ValueLayout.LIST -> ListCommands.encoding(c, id);
            case ValueLayout.ZSET -> SortedSetCommands.encoding(c, id);
            default -> throw new IllegalStateException("no encoding for type " + ValueLayout.type(stored));
        };
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
        String type = null;
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
                    type = Args.lower(a[++i]);
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
        String only = type;
        List<RedisMessage> keys = new ArrayList<>();
        List<byte[][]> expired = new ArrayList<>();
        long next = map.scan(cursor, count, (k, v) -> {
            if (Keyspace.liveAt(v, now) == null) {
                expired.add(new byte[][] {k, v});
            } else if ((only == null || only.equals(ValueLayout.typeName(v))) && (match == null || Glob.matches(match, k))) {
                keys.add(Replies.bulk(k));
            }
        });
        Keyspace ks = c.keyspace(s);
        for (byte[][] e : expired) {
            ks.removeExpired(e[0], e[1]); // as Redis's SCAN does with the expired keys it meets
        }
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
     * RENAME key newkey (RENAMENX: only if newkey does not exist): the value with its expiry under
     * the new name. Runs alone and journaled ({@link CommandTable}): no reader sees both names or
     * neither, and a crash midway leaves the old name.
     */
    private static RedisMessage rename(ServerContext c, ClientSession s, byte[][] a, boolean onlyIfAbsent) {
        Keyspace ks = c.keyspace(s);
        byte[] v = ks.live(a[1]);
        if (v == null) {
            return Replies.error("ERR no such key");
        }
        if (Arrays.equals(a[1], a[2])) {
            return onlyIfAbsent ? Replies.ZERO : Replies.OK;
        }
        if (onlyIfAbsent && ks.live(a[2]) != null) {
            return Replies.ZERO;
        }
        FerriteMap<byte[], byte[]> map = ks.writable(); // it exists: it holds the key
        addOwner(c, v, ks, a[2]);
        ks.found(a[2], replaced(c, map.put(a[2], v)), System.currentTimeMillis()); // an expired value replaced
        map.removeBytes(a[1]);
        removeOwner(c, v, ks, a[1]);
        ks.emit(a[2], KeyspaceEvents.NEW, "new"); // as in Redis, the new name is made anew
        ks.emit(a[1], KeyspaceEvents.GENERIC, "rename_from");
        ks.emit(a[2], KeyspaceEvents.GENERIC, "rename_to");
        arrived(c, s.db, a[2], v);
        return onlyIfAbsent ? Replies.ONE : Replies.OK;
    }

    /**
     * Before another key names a collection too (RENAME, MOVE): that key joins the collection's
     * owners, so a sweep never takes the collection for an orphan. Inside the command's atomic
     * change of the store ({@link CommandTable#changesCollectionStore}): a crash leaves the owners
     * as they were with the journal's record to undo the keys, or both changes made.
     */
    private static void addOwner(ServerContext c, byte[] stored, Keyspace target, byte[] key) {
        if (ValueLayout.isCollection(stored)) {
            CollectionStore store = c.databases.collections();
            long id = ValueLayout.id(stored);
            CollectionLayout.Owner owner = target.owner(key);
            store.locked(() -> store.change(() -> {
                store.addOwner(id, owner);
                return null;
            }));
        }
    }

    /** After a key stopped naming a collection another key names now: it leaves the owners. */
    private static void removeOwner(ServerContext c, byte[] stored, Keyspace source, byte[] key) {
        if (ValueLayout.isCollection(stored)) {
            CollectionStore store = c.databases.collections();
            long id = ValueLayout.id(stored);
            CollectionLayout.Owner owner = source.owner(key);
            store.locked(() -> store.change(() -> {
                store.removeOwner(id, owner);
                return null;
            }));
        }
    }

    /**
     * Makes {@code key} of {@code target} name a new collection with the elements of
     * {@code stored}'s and the same expiry (under the store's lock: no sweep takes it for an
     * orphan before the key names it).
     *
     * @return the value the key held before, or null
     */
    private static byte[] copyCollection(ServerContext c, byte[] stored, Keyspace target, byte[] key) {
        CollectionStore store = c.databases.collections();
        CollectionLayout.Owner owner = target.owner(key);
        return store.locked(() -> {
            long id = store.change(() -> store.copy(ValueLayout.id(stored), owner));
            byte[] copy = ValueLayout.collection(ValueLayout.type(stored), id);
            ValueLayout.setExpireAt(copy, ValueLayout.expireAt(stored));
            return target.writable().put(key, copy);
        });
    }

    /** Wakes a client blocked on {@code key} if a list or a sorted set arrived there. */
    private static void arrived(ServerContext c, int db, byte[] key, byte[] stored) {
        if (ValueLayout.type(stored) == ValueLayout.LIST || ValueLayout.type(stored) == ValueLayout.ZSET) {
            c.blocking.signal(db, key);
        }
    }

    /** @return a value a write replaced; a collection's elements go soon ({@link CollectionStore#hint}) */
    static byte[] replaced(ServerContext c, byte[] old) {
        long collection = ValueLayout.collectionId(old);
        if (collection != 0) {
            c.databases.collections().hint(collection);
        }
        return old;
    }
}
