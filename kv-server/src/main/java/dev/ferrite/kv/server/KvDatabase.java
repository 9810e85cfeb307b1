package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * One database of a KV server's data directory, opened in this process: strings, hashes and sorted
 * sets read and written in place, in the files the server serves, while the server runs (or not).
 * Redis clients and HTTP see a write as soon as the call returns, and this process sees theirs;
 * an expiry set on either side holds on both. Keys, fields, members and values are UTF-8 text.
 *
 * <p>Every method is atomic as the Redis command of the same name is, also across a crash of
 * either process: a write lands whole or not at all, and a collection's change is one atomic
 * change of the server's collection store, under the lock the server's collection commands take.
 * What the server does around its own commands does not happen here: writes publish no keyspace
 * event, wake no client blocked on a key, and do not fail a transaction watching the key. After
 * the server's FLUSHDB, FLUSHALL or SWAPDB, the next call follows the manifest to the database's
 * file now; a call running at that instant counts as before it, as a command the server runs then.
 *
 * <p>Thread-safe. Obtained from {@link KvServer#openDatabase}; close it to unmap its files (a close
 * waits for the calls other threads are running).
 */
public final class KvDatabase implements AutoCloseable {

    /** The latest expiry the value layout keeps, milliseconds since the epoch ({@link ValueLayout#EXPIRE_AT}). */
    private static final long MAX_EXPIRE_AT = ~ValueLayout.FORM_MASK;

    private final int index;
    private final CollectionStore store;
    private final DatabaseFile file;
    /** Calls hold its read side, {@link #close} its write side. */
    private final ReentrantReadWriteLock open = new ReentrantReadWriteLock();
    /** Guarded by {@link #open}. */
    private boolean closed;

    KvDatabase(Path directory, int index, String backend) {
        if (index < 0 || index >= Databases.COUNT) {
            throw new IllegalArgumentException("database index " + index + " is outside 0.." + (Databases.COUNT - 1));
        }
        this.index = index;
        // The store first: it refuses a directory no server made, before anything is created in it.
        this.store = new CollectionStore(Objects.requireNonNull(directory, "directory"), backend);
        try {
            this.file = new DatabaseFile(new DataDirectory(directory), index, backend, store);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** @return the database's index, 0 to 15 */
    public int index() {
        return index;
    }

    // ------------------------------------------------------------------ keys and strings

    /**
     * GET.
     *
     * @return the string at {@code key}, or null if the key is absent or expired
     * @throws KvWrongTypeException if the key holds a hash, set, list or sorted set
     */
    public String get(String key) {
        return guarded(() -> {
            byte[] stored = live(key);
            if (stored == null) {
                return null;
            }
            if (ValueLayout.isCollection(stored)) {
                throw wrongType(key, stored, "string");
            }
            return new String(stored, ValueLayout.DATA, stored.length - ValueLayout.DATA, StandardCharsets.UTF_8);
        });
    }

    /** SET: stores a string at {@code key} with no expiry, replacing whatever the key held. */
    public void set(String key, String value) {
        guarded(() -> {
            put(key, value, ValueLayout.NO_EXPIRY);
            return null;
        });
    }

    /**
     * SET with PX: stores a string that expires after {@code ttl}, replacing whatever the key held.
     *
     * @param ttl time to live, at least 1 ms
     * @throws IllegalArgumentException if {@code ttl} is under 1 ms
     */
    public void set(String key, String value, Duration ttl) {
        guarded(() -> {
            put(key, value, expireAt(ttl));
            store.countSharedExpiryWrite();
            return null;
        });
    }

    private void put(String key, String value, long expireAt) {
        byte[] data = value.getBytes(StandardCharsets.UTF_8);
        byte[] k = bytes(key);
        file.write(map -> map.putBytes(k, ValueLayout.encode(expireAt, data)));
    }

    /**
     * DEL (a collection's elements are dropped by the server's sweep).
     *
     * @return whether the key held a value that had not expired
     */
    public boolean delete(String key) {
        return guarded(() -> {
            byte[] k = bytes(key);
            byte[] old = file.read(map -> map == null ? null : map.remove(k));
            return old != null && !ValueLayout.expired(old, System.currentTimeMillis());
        });
    }

    /** @return TYPE: {@code none}, {@code string}, {@code hash}, {@code set}, {@code list} or {@code zset} */
    public String type(String key) {
        return guarded(() -> {
            byte[] stored = live(key);
            return stored == null ? "none" : ValueLayout.typeName(stored);
        });
    }

    /**
     * PEXPIRE: gives the key's value, of any type, an expiry {@code ttl} from now.
     *
     * @param ttl time to live, at least 1 ms
     * @return whether the key exists (else nothing changed)
     */
    public boolean expire(String key, Duration ttl) {
        return guarded(() -> {
            long at = expireAt(ttl);
            byte[] k = bytes(key);
            long now = System.currentTimeMillis();
            boolean set = file.read(map -> {
                if (map == null) {
                    return false;
                }
                boolean[] found = {false};
                map.computeIfPresent(k, (x, stored) -> {
                    if (Keyspace.liveAt(checked(key, stored), now) == null) {
                        return stored; // expired: as absent, left to the reaper
                    }
                    byte[] changed = stored.clone();
                    ValueLayout.setExpireAt(changed, at);
                    found[0] = true;
                    return changed;
                });
                return found[0];
            });
            if (set) {
                store.countSharedExpiryWrite();
            }
            return set;
        });
    }

    /**
     * PTTL.
     *
     * @return the key's remaining time to live in milliseconds, -1 if it has no expiry, -2 if it is absent
     */
    public long pttl(String key) {
        return guarded(() -> {
            byte[] stored = live(key);
            if (stored == null) {
                return -2L;
            }
            long at = ValueLayout.expireAt(stored);
            return at == ValueLayout.NO_EXPIRY ? -1L : Math.max(0L, at - System.currentTimeMillis());
        });
    }

    // ------------------------------------------------------------------ hashes

    /**
     * HSET of one field.
     *
     * @return whether the field is new
     * @throws KvWrongTypeException if the key holds another type than a hash
     */
    public boolean hset(String key, String field, String value) {
        return guarded(() -> {
            byte[] f = member(field);
            byte[] v = value.getBytes(StandardCharsets.UTF_8);
            return change(key, ValueLayout.HASH, true, op -> {
                boolean added = store.put(op.id, f, v) == null;
                op.changed = true;
                op.holdsElements = true; // the field: no descent to ask whether the hash is empty now
                return added;
            }, false);
        });
    }

    /** @return HGET: the field's value, or null if the hash or the field is absent */
    public String hget(String key, String field) {
        return guarded(() -> {
            byte[] f = bytes(field);
            long id = collection(key, ValueLayout.HASH);
            byte[] v = id == 0 ? null : store.get(id, f);
            return v == null ? null : text(v);
        });
    }

    /** @return HDEL of one field: whether it was there (the key goes with the hash's last field) */
    public boolean hdel(String key, String field) {
        return guarded(() -> {
            byte[] f = bytes(field);
            return change(key, ValueLayout.HASH, false, op -> {
                op.changed = store.remove(op.id, f) != null;
                return op.changed;
            }, false);
        });
    }

    /** @return HGETALL: the hash's fields and values in the order of their bytes, read at one instant; empty if absent */
    public Map<String, String> hgetAll(String key) {
        return guarded(() -> file.read(map -> store.locked(() -> {
            long id = collectionIn(map, key, ValueLayout.HASH);
            Map<String, String> all = new LinkedHashMap<>();
            if (id != 0) {
                store.elements(id).forEach((k, v) -> all.put(text(CollectionLayout.member(k)), text(v)));
            }
            return all;
        })));
    }

    // ------------------------------------------------------------------ sorted sets

    /**
     * ZADD of one member.
     *
     * @return whether the member is new (a member there gets the new score)
     * @throws IllegalArgumentException if {@code score} is NaN
     * @throws KvWrongTypeException if the key holds another type than a sorted set
     */
    public boolean zadd(String key, double score, String member) {
        return guarded(() -> {
            if (Double.isNaN(score)) {
                throw new IllegalArgumentException("score of member '" + member + "' is NaN, which a sorted set cannot order");
            }
            byte[] m = member(member);
            double s = score == 0 ? 0 : score; // -0 is stored as 0, as Redis does
            return change(key, ValueLayout.ZSET, true, op -> {
                boolean[] added = {false};
                op.changed = SortedSetStore.update(store, op.id, m, old -> {
                    added[0] = old == null;
                    return s;
                });
                op.holdsElements = true; // the member: no descent to ask whether the set is empty now
                return added[0];
            }, false);
        });
    }

    /** @return ZSCORE: the member's score, or null if the set or the member is absent */
    public Double zscore(String key, String member) {
        return guarded(() -> {
            byte[] m = bytes(member);
            long id = collection(key, ValueLayout.ZSET);
            return id == 0 ? null : SortedSetStore.score(store, id, m);
        });
    }

    /** @return ZREM of one member: whether it was there (the key goes with the set's last member) */
    public boolean zrem(String key, String member) {
        return guarded(() -> {
            byte[] m = bytes(member);
            return change(key, ValueLayout.ZSET, false, op -> {
                op.changed = SortedSetStore.remove(store, op.id, m);
                return op.changed;
            }, false);
        });
    }

    /** @return ZCARD: the number of members, 0 if the set is absent */
    public long zcard(String key) {
        return guarded(() -> {
            long id = collection(key, ValueLayout.ZSET);
            return id == 0 ? 0 : store.size(id);
        });
    }

    /**
     * ZRANGE key start stop WITHSCORES: members by rank from the lowest score, read at one instant.
     *
     * @param start the first rank (negative: from the end, -1 the last)
     * @param stop  the last rank, inclusive (negative: from the end)
     * @return the members and their scores in rank order; empty if the range or the set is empty
     */
    public Map<String, Double> zrange(String key, long start, long stop) {
        return guarded(() -> file.read(map -> store.locked(() -> {
            long id = collectionIn(map, key, ValueLayout.ZSET);
            Map<String, Double> out = new LinkedHashMap<>();
            if (id != 0) {
                SortedSetStore.Ranks ranks = SortedSetStore.byIndex(store, id, start, stop, false);
                for (byte[] k : SortedSetStore.keys(store, id, ranks, false, 0, -1)) {
                    out.put(text(CollectionLayout.scoreMember(k)), CollectionLayout.scoreOf(k));
                }
            }
            return Collections.unmodifiableMap(out);
        })));
    }

    // ------------------------------------------------------------------ the frame

    /** @return the live stored value at {@code key}, or null */
    private byte[] live(String key) {
        return file.read(map -> liveIn(map, key));
    }

    /** @return the live stored value at {@code key} in {@code map} (null: the database has no file), or null */
    private byte[] liveIn(FerriteMap<byte[], byte[]> map, String key) {
        byte[] stored = map == null ? null : map.get(bytes(key));
        return stored == null ? null : Keyspace.liveAt(checked(key, stored), System.currentTimeMillis());
    }

    /** @return the id of the live collection of type {@code type} at {@code key}, 0 if absent */
    private long collection(String key, byte type) {
        return file.read(map -> collectionIn(map, key, type));
    }

    /**
     * As {@link #collection}, in the map a call of {@link DatabaseFile#read} was given: a call that
     * holds the collection store's lock takes it inside the file's read lock, as a change does.
     */
    private long collectionIn(FerriteMap<byte[], byte[]> map, String key, byte type) {
        byte[] stored = liveIn(map, key);
        if (stored == null) {
            return 0;
        }
        if (ValueLayout.type(stored) != type) {
            throw wrongType(key, stored, ValueLayout.typeName(ValueLayout.collection(type, 0)));
        }
        return ValueLayout.id(stored);
    }

    /** Runs a change of the collection at {@code key} as the server's collection commands run theirs. */
    private <T> T change(String key, byte type, boolean create, CollectionWrite.Change<T> change, T absent) {
        byte[] k = bytes(key);
        return file.write(map -> store.locked(() -> {
            try {
                DatabaseKeys keys = new DatabaseKeys(map, key, file, this::checked);
                CollectionWrite.Outcome<T> o = CollectionWrite.apply(store, keys, k, type, create, change);
                return o == null ? absent : o.result;
            } catch (WrongType e) {
                byte[] stored = map.get(k);
                throw wrongType(key, stored, ValueLayout.typeName(ValueLayout.collection(type, 0)));
            }
        }));
    }

    private byte[] checked(String key, byte[] stored) {
        if (stored.length < ValueLayout.DATA) {
            throw new FerriteException("the stored value of key '" + key + "' in " + file + " has " + stored.length
                    + " bytes, fewer than the " + ValueLayout.DATA + " of the server's value layout");
        }
        return stored;
    }

    private KvWrongTypeException wrongType(String key, byte[] stored, String wanted) {
        return new KvWrongTypeException(key, stored == null ? "none" : ValueLayout.typeName(stored), wanted);
    }

    private byte[] member(String member) {
        byte[] m = bytes(member);
        if (m.length > store.maxMemberBytes()) {
            throw new IllegalArgumentException("member '" + member + "' has " + m.length
                    + " bytes in UTF-8, more than the longest a collection keeps, " + store.maxMemberBytes());
        }
        return m;
    }

    private static long expireAt(Duration ttl) {
        long ms = ttl.toMillis();
        if (ms < 1) {
            throw new IllegalArgumentException("time to live " + ttl + " is under 1 ms");
        }
        long at = System.currentTimeMillis() + Math.min(ms, MAX_EXPIRE_AT);
        if (at > MAX_EXPIRE_AT) {
            throw new IllegalArgumentException("time to live " + ttl + " ends after the latest expiry a value keeps, "
                    + MAX_EXPIRE_AT + " ms after the epoch");
        }
        return at;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /**
     * Runs a call of this database's API: calls run together, and {@link #close} waits for those
     * running before it unmaps anything.
     *
     * @throws FerriteException if the database is closed
     */
    private <T> T guarded(Supplier<T> call) {
        open.readLock().lock();
        try {
            if (closed) {
                throw new FerriteException(this + " is closed");
            }
            return call.get();
        } finally {
            open.readLock().unlock();
        }
    }

    /**
     * Unmaps the database's files once the calls other threads are running have returned; the data
     * stays. Later calls throw {@link FerriteException}. Idempotent.
     */
    @Override
    public void close() {
        open.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            try {
                file.close();
            } finally {
                store.close();
            }
        } finally {
            open.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "KvDatabase[" + file + "]";
    }
}
