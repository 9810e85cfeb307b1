package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import dev.ferrite.kv.FerriteMap;

/**
 * Reads and writes of Redis strings in one database with their expiry ({@link ValueLayout}): an
 * expired key is never returned and is removed when met. Every read-modify-write is one atomic
 * {@link FerriteMap#compute} on the key, in every thread and process; a write that a condition
 * forbids (SET NX on a live key) is decided by a read first and does not touch the map. What a
 * read or write did to a key is published as Redis's keyspace events ({@link KeyspaceEvents}):
 * {@code expired} for an expired value met and removed, then {@code new} for a key created, then
 * the command's own event. Thread-safe.
 */
final class Keyspace implements CollectionWrite.Keys {

    /** A condition on the key's current state for a write. */
    enum Condition { ALWAYS, NX, XX }

    private final Databases databases;
    private final int db;
    private final ServerStats stats;
    private final KeyspaceEvents events;
    private final boolean deferCreation;

    /**
     * @param databases the server's databases
     * @param db        the index of this keyspace's database, 0 to {@link Databases#COUNT} - 1
     * @param stats     where hits, misses and expired keys are counted
     * @param events    where changes of keys are published
     * @param deferCreation whether a write to a database that does not exist yet throws
     *                  {@link DatabaseCreating} (on an event loop) instead of creating it in place
     */
    Keyspace(Databases databases, int db, ServerStats stats, KeyspaceEvents events, boolean deferCreation) {
        this.databases = databases;
        this.db = db;
        this.stats = stats;
        this.events = events;
        this.deferCreation = deferCreation;
    }

    /**
     * @return the database's map for a write, created if it does not exist yet
     * @throws DatabaseCreating if it does not exist and its creation is deferred (nothing written)
     */
    FerriteMap<byte[], byte[]> writable() {
        return deferCreation ? databases.getOrCreateLater(db) : databases.get(db);
    }

    /**
     * @return the database's map, or null if it was never written: a read of a database that
     *         does not exist finds nothing and creates nothing, as in Redis
     */
    FerriteMap<byte[], byte[]> existing() {
        return databases.ifOpen(db);
    }

    /**
     * @return the stored value of a key that has not expired, or null (an expired one is removed)
     * @throws FerriteException if the stored value is not in the server's layout
     */
    byte[] live(byte[] key) {
        FerriteMap<byte[], byte[]> map = existing();
        byte[] stored = map == null ? null : map.get(key);
        if (stored == null) {
            stats.keyspaceMisses.increment();
            return null;
        }
        check(key, stored);
        if (ValueLayout.expired(stored, System.currentTimeMillis())) {
            removeExpired(key, stored);
            stats.keyspaceMisses.increment();
            return null;
        }
        stats.keyspaceHits.increment();
        return stored;
    }

    /**
     * Removes a key's expired value, if it is still the one stored, and publishes {@code expired}.
     *
     * @param stored the expired value read
     */
    void removeExpired(byte[] key, byte[] stored) {
        FerriteMap<byte[], byte[]> map = existing();
        if (map != null && map.remove(key, stored)) {
            stats.expiredKeys.increment();
            events.emit(KeyspaceEvents.EXPIRED, "expired", db, key);
        }
    }

    /** Marks a value read in place that has expired (compared by identity). */
    private static final byte[] EXPIRED = new byte[0];
    /** Marks a value read in place that is too short for the layout (compared by identity). */
    private static final byte[] DAMAGED = new byte[0];
    /** Marks a value read in place that is a collection's (compared by identity). */
    private static final byte[] COLLECTION = new byte[0];

    /**
     * As {@link #live(byte[])} but returns only the string's bytes, copied once from the map's
     * memory (the value is read in place: no copy of the stored form).
     *
     * @return the string of a key that has not expired, or null
     */
    byte[] liveData(byte[] key) {
        FerriteMap<byte[], byte[]> map = existing();
        byte[] data = map == null ? null : map.readValue(key, Keyspace::liveDataInPlace);
        if (data == null) {
            stats.keyspaceMisses.increment();
            return null;
        }
        if (data == EXPIRED || data == DAMAGED || data == COLLECTION) {
            byte[] stored = string(key); // removes the expired value (or reports the damage or type) and counts
            return stored == null ? null : ValueLayout.data(stored);
        }
        stats.keyspaceHits.increment();
        return data;
    }

    /**
     * Reads a stored value in place for {@link #liveData}. The clock is read only for a value with
     * an expiry, and the reader captures nothing, so a GET of a key without one makes no object
     * but its reply and reads no clock.
     */
    private static byte[] liveDataInPlace(Segment seg, long off, int len) {
        if (len < ValueLayout.DATA) {
            return DAMAGED;
        }
        long word = seg.getLong(off + ValueLayout.EXPIRE_AT);
        long at = ValueLayout.expireAtOfWord(word);
        if (at != ValueLayout.NO_EXPIRY && at <= System.currentTimeMillis()) {
            return EXPIRED;
        }
        if ((word & ValueLayout.FORM_MASK) == ValueLayout.COLLECTION) {
            return COLLECTION;
        }
        byte[] d = new byte[len - ValueLayout.DATA];
        seg.copyTo(off + ValueLayout.DATA, d, 0, d.length);
        return d;
    }

    /**
     * As {@link #live(byte[])}, for a command on strings.
     *
     * @return the stored value of a string key that has not expired, or null
     * @throws WrongType if the key holds a collection
     */
    byte[] string(byte[] key) {
        byte[] stored = live(key);
        if (stored != null && ValueLayout.isCollection(stored)) {
            throw new WrongType();
        }
        return stored;
    }

    /**
     * As {@link #live(byte[])}, for a command on collections of one type.
     *
     * @param type the type the command works on ({@link ValueLayout#HASH}...)
     * @return the collection's stored value, or null if the key holds none (or it expired)
     * @throws WrongType if the key holds a string or a collection of another type
     */
    @Override
    public byte[] collection(byte[] key, byte type) {
        byte[] stored = live(key);
        if (stored != null && ValueLayout.type(stored) != type) {
            throw new WrongType();
        }
        return stored;
    }

    /** @return this database's file name with a key: who names a collection ({@link CollectionStore}) */
    @Override
    public CollectionLayout.Owner owner(byte[] key) {
        writable();
        String name = databases.fileName(db);
        if (name == null) {
            throw new FerriteException("database " + db + " was dropped while a command ran");
        }
        return new CollectionLayout.Owner(name, key);
    }

    /** Asks the sweep to drop a new collection no key names. */
    @Override
    public void abandoned(long id) {
        databases.collections().hint(id);
    }

    /**
     * Makes a key name a new collection, unless a live value appeared there meanwhile, and
     * publishes {@code new}.
     *
     * @param stored the collection's stored value ({@link ValueLayout#collection})
     * @throws WrongType if the key holds a live value now (the new collection is an orphan)
     */
    @Override
    public void publishCollection(byte[] key, byte[] stored) {
        long now = System.currentTimeMillis();
        byte[][] before = {null};
        writable().compute(key, (k, current) -> {
            if (current != null && liveAt(current, now) != null) {
                throw new WrongType();
            }
            before[0] = current;
            return stored;
        });
        found(key, before[0], now);
        events.emit(KeyspaceEvents.NEW, "new", db, key);
    }

    /**
     * Removes a key's collection, if the key still names it (a command took its last element).
     *
     * @param stored the collection's stored value
     * @return whether it was removed
     */
    @Override
    public boolean dropCollection(byte[] key, byte[] stored) {
        FerriteMap<byte[], byte[]> map = existing();
        if (map != null && map.remove(key, stored)) {
            databases.collections().hint(ValueLayout.id(stored));
            return true;
        }
        return false;
    }

    /** @return {@code stored} if it is live at {@code now} (null if absent or expired) */
    static byte[] liveAt(byte[] stored, long now) {
        return stored != null && !ValueLayout.expired(stored, now) ? stored : null;
    }

    /**
     * As {@link #check}, for a command on strings.
     *
     * @throws WrongType if the value is a collection's
     */
    static void checkString(byte[] key, byte[] stored) {
        check(key, stored);
        if (ValueLayout.isCollection(stored)) {
            throw new WrongType();
        }
    }

    /** Refuses a stored value too short for the layout (a map written by something else). */
    static void check(byte[] key, byte[] stored) {
        if (stored.length < ValueLayout.DATA) {
            throw new FerriteException("the stored value of key '" + Replies.printable(key, 64) + "' has "
                    + stored.length + " bytes, fewer than the " + ValueLayout.DATA
                    + " of the server's value layout: the database was not written by the KV server");
        }
    }

    /**
     * Sets a key atomically.
     *
     * @param keepTtl keep the old value's expiry (SET ... KEEPTTL)
     * @param oldOut  if not null, receives the value replaced (stored form) or null, in element 0
     * @return whether the value was written (false: the condition failed)
     */
    boolean store(byte[] key, byte[] data, Condition condition, long expireAt, boolean keepTtl, byte[][] oldOut) {
        if (condition == Condition.XX && existing() == null) {
            return false; // no key exists in a database never written (and oldOut[0] stays null)
        }
        if (condition == Condition.ALWAYS && oldOut == null && !keepTtl
                && !events.on(KeyspaceEvents.NEW | KeyspaceEvents.EXPIRED)) {
            writable().putBytes(key, ValueLayout.encode(expireAt, data)); // a blind write: no read of the old value
            stored(key, null, expireAt, true, 0); // no old value read: no expired or new event is on
            return true;
        }
        if (condition != Condition.ALWAYS && oldOut == null) {
            // Decide by a read first: a failing condition then costs no write at all.
            boolean present = live(key) != null;
            if (present == (condition == Condition.NX)) {
                return false;
            }
        }
        long now = System.currentTimeMillis();
        boolean[] written = {false};
        byte[][] old = {null};
        byte[][] before = {null};
        writable().compute(key, (k, stored) -> {
            if (stored != null) {
                check(k, stored);
            }
            before[0] = stored;
            byte[] current = liveAt(stored, now);
            if (oldOut != null && current != null && ValueLayout.isCollection(current)) {
                throw new WrongType(); // SET ... GET and GETSET answer with the old string
            }
            old[0] = current;
            if (condition == Condition.NX && current != null || condition == Condition.XX && current == null) {
                return current; // unchanged (an expired value is removed)
            }
            written[0] = true;
            long at = keepTtl && current != null ? ValueLayout.expireAt(current) : expireAt;
            return ValueLayout.encode(at, data);
        });
        if (oldOut != null) {
            oldOut[0] = old[0];
        }
        stored(key, before[0], keepTtl ? ValueLayout.NO_EXPIRY : expireAt, written[0], now);
        return written[0];
    }

    /** Publishes what a SET-like write did: expired, new, set, and expire if it gave an expiry. */
    private void stored(byte[] key, byte[] before, long expireAt, boolean written, long now) {
        if (!written) {
            found(key, before, now);
            return;
        }
        wrote(key, before, now, KeyspaceEvents.STRING, "set");
        if (expireAt != ValueLayout.NO_EXPIRY) {
            events.emit(KeyspaceEvents.GENERIC, "expire", db, key);
        }
    }

    /**
     * Publishes that a command met a key's stored value and changed nothing else: {@code expired} if
     * the value had expired (the command's write removed it).
     *
     * @param before the stored value found (null: none)
     * @param now    the time the command judged expiry by
     */
    void found(byte[] key, byte[] before, long now) {
        if (before != null && ValueLayout.expired(before, now)) {
            stats.expiredKeys.increment();
            events.emit(KeyspaceEvents.EXPIRED, "expired", db, key);
        }
    }

    /**
     * Publishes a write of a key: {@code expired} if the value found had expired, {@code new} if
     * there was no live value, then the command's event.
     *
     * @param before the stored value found (null: none)
     * @param now    the time the command judged expiry by
     * @param type   the event's class
     * @param event  the event's name
     */
    void wrote(byte[] key, byte[] before, long now, int type, String event) {
        found(key, before, now);
        if (liveAt(before, now) == null) {
            events.emit(KeyspaceEvents.NEW, "new", db, key);
        }
        events.emit(type, event, db, key);
    }

    /**
     * Publishes an event of a key in this keyspace's database.
     *
     * @param type  the event's class
     * @param event the event's name
     */
    void emit(byte[] key, int type, String event) {
        events.emit(type, event, db, key);
    }

    /**
     * Removes a key (published as {@code del}, or {@code expired} if its value had expired).
     *
     * @return the removed value if it was live, else null
     */
    byte[] remove(byte[] key) {
        FerriteMap<byte[], byte[]> map = existing();
        return removed(key, map == null ? null : map.remove(key));
    }

    /**
     * As {@link #remove}, for a command on strings (GETDEL).
     *
     * @throws WrongType if the key holds a live collection (it stays)
     */
    byte[] removeString(byte[] key) {
        FerriteMap<byte[], byte[]> map = existing();
        if (map == null) {
            return null;
        }
        long now = System.currentTimeMillis();
        byte[][] removed = {null};
        map.computeIfPresent(key, (k, stored) -> {
            check(k, stored);
            if (liveAt(stored, now) != null && ValueLayout.isCollection(stored)) {
                throw new WrongType();
            }
            removed[0] = stored;
            return null;
        });
        return removed(key, removed[0]);
    }

    private byte[] removed(byte[] key, byte[] removed) {
        if (removed == null) {
            return null;
        }
        long collection = ValueLayout.collectionId(removed);
        if (collection != 0) {
            databases.collections().hint(collection); // its elements go soon
        }
        if (removed.length >= ValueLayout.DATA && ValueLayout.expired(removed, System.currentTimeMillis())) {
            stats.expiredKeys.increment();
            events.emit(KeyspaceEvents.EXPIRED, "expired", db, key);
            return null;
        }
        events.emit(KeyspaceEvents.GENERIC, "del", db, key);
        return removed;
    }
}
