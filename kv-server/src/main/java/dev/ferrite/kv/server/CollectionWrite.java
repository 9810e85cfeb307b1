package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The frame of a command that changes one key's collection, all of it or nothing also across a
 * crash: under the {@link CollectionStore}'s lock, the command's changes of the elements are one
 * atomic change of the store. A new collection is made under a new id and named by its key only
 * once its elements are there (a crash before leaves an orphan, swept); a collection the command
 * empties stops being named by its key before its change is published (a crash after leaves an
 * orphan, swept). Then the keyspace events: {@code expired} and {@code new} as the key's value
 * was found and made, the command's own if it changed something, {@code del} if the key went
 * with its last element. Stateless.
 */
final class CollectionWrite {

    /** The collection a change works on, and what it reports back. */
    static final class Op {
        /** The collection's id in the {@link CollectionStore}. */
        final long id;
        /** Whether the collection is new (no element yet). */
        final boolean fresh;
        /**
         * Set by the change when it changed an element: the command's event is published. A
         * change that leaves it unset must have changed no element (an existing collection it
         * leaves is not asked whether it is empty: it is as it was).
         */
        boolean changed;
        /**
         * Set by a change that knows the collection holds an element after it (it put one and
         * removed none, or removed fewer than the collection held): its emptiness is not read
         * again (a descent of the tree a command).
         */
        boolean holdsElements;

        Op(long id, boolean fresh) {
            this.id = id;
            this.fresh = fresh;
        }
    }

    /** What a command does to a collection's elements, inside its atomic change. */
    @FunctionalInterface
    interface Change<T> {
        /** @return the command's result */
        T apply(Op op);
    }

    /** Thrown out of an atomic change to throw it out: a new collection that got no element. */
    private static final class Empty extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Object result;

        Empty(Object result) {
            super("empty", null, false, false);
            this.result = result;
        }
    }

    private CollectionWrite() {
    }

    /** Where a command finds the collection of a key, and names a new one: a database's keys. */
    interface Keys {
        /**
         * @return the stored value of a live key, or null if the key is absent or expired
         * @throws WrongType if it holds a value of another type than {@code type}
         */
        byte[] collection(byte[] key, byte type);

        /** @return who names a new collection at {@code key} (the database's file and the key) */
        CollectionLayout.Owner owner(byte[] key);

        /**
         * Makes a key name a new collection, unless a live value appeared there meanwhile.
         *
         * @throws WrongType if the key holds a live value now
         */
        void publishCollection(byte[] key, byte[] stored);

        /** Removes a key's collection if the key still names it. @return whether it was removed */
        boolean dropCollection(byte[] key, byte[] stored);

        /** A new collection that no key names (its key took another value meanwhile) is to be dropped. */
        void abandoned(long id);
    }

    /** What {@link #apply} did. */
    static final class Outcome<T> {
        /** The change's result. */
        T result;
        /** Whether the change changed an element. */
        boolean changed;
        /** Whether the key went with the collection's last element. */
        boolean dropped;
    }

    /**
     * Runs a command on the collection of type {@code type} at {@code key}.
     *
     * @param create     whether an absent key gets a new collection (else {@code absent} answers)
     * @param eventClass the class of the command's keyspace event ({@link KeyspaceEvents#HASH}...)
     * @param event      the event's name
     * @param absent     the result when the key holds no collection and none is made
     * @return the change's result
     * @throws WrongType if the key holds a value of another type
     */
    static <T> T run(ServerContext c, ClientSession s, byte[] key, byte type, boolean create, int eventClass, String event,
                     Change<T> change, Supplier<T> absent) {
        Keyspace ks = c.keyspace(s);
        CollectionStore store = c.databases.collections();
        if (create) {
            ks.writable(); // the database first: its deferred creation throws before anything is changed
        }
        return store.locked(() -> {
            Outcome<T> o = apply(store, ks, key, type, create, change);
            if (o == null) {
                return absent.get();
            }
            if (o.changed) {
                ks.emit(key, eventClass, event);
                if ((type == ValueLayout.LIST || type == ValueLayout.ZSET) && !o.dropped) {
                    c.blocking.signal(s.db, key); // elements: a client blocked on the key may take one
                }
            }
            if (o.dropped) {
                ks.emit(key, KeyspaceEvents.GENERIC, "del");
            }
            return o.result;
        });
    }

    /**
     * Changes the collection of type {@code type} at {@code key} as one atomic change of the store
     * (a new one made under a new id and named once its elements are there; one the change
     * empties unnamed before the change is published). Under the store's lock.
     *
     * @param create whether an absent key gets a new collection
     * @return what happened, or null if the key holds no collection and none is made
     * @throws WrongType if the key holds a value of another type
     */
    static <T> Outcome<T> apply(CollectionStore store, Keys keys, byte[] key, byte type, boolean create, Change<T> change) {
        byte[] stored = keys.collection(key, type);
        if (stored == null && !create) {
            return null;
        }
        long existing = stored == null ? 0 : ValueLayout.id(stored);
        CollectionLayout.Owner owner = existing == 0 ? keys.owner(key) : null;
        Op[] op = {null};
        Outcome<T> o = new Outcome<>();
        try {
            o.result = store.change(() -> {
                op[0] = new Op(existing == 0 ? store.create(owner) : existing, existing == 0);
                T r = change.apply(op[0]);
                // An existing collection the change left as it was still holds its elements.
                boolean mayBeEmpty = !op[0].holdsElements && (op[0].fresh || op[0].changed);
                if (mayBeEmpty && store.isEmpty(op[0].id)) {
                    if (existing == 0) {
                        throw new Empty(r);
                    }
                    o.dropped = keys.dropCollection(key, stored); // the key goes with its last element
                }
                return r;
            });
        } catch (Empty e) {
            @SuppressWarnings("unchecked")
            T r = (T) e.result;
            o.result = r;
            return o;
        }
        if (existing == 0) {
            try {
                keys.publishCollection(key, ValueLayout.collection(type, op[0].id));
            } catch (WrongType e) {
                keys.abandoned(op[0].id); // a string took the key meanwhile: the new elements go
                throw e;
            }
        }
        o.changed = op[0].changed;
        return o;
    }

    /**
     * Makes {@code key} name a new collection of {@code count} elements, replacing what it held, as
     * the STORE commands do (SINTERSTORE, ZUNIONSTORE, ZRANGESTORE...): the new collection is made
     * whole under a new id, then named; no elements delete the key. Under the store's lock.
     *
     * @param fill  puts the elements in the collection of the id it is given, inside its atomic change
     * @param event the command's keyspace event
     * @return the count, as the STORE commands answer
     */
    static RedisMessage replace(ServerContext c, ClientSession s, byte[] key, byte type, long count, LongConsumer fill, String event) {
        Keyspace ks = c.keyspace(s);
        CollectionStore store = c.databases.collections();
        if (count == 0) {
            ks.remove(key); // published as del (or expired)
            return Replies.ZERO;
        }
        CollectionLayout.Owner owner = ks.owner(key);
        long id = store.change(() -> {
            long made = store.create(owner);
            fill.accept(made);
            return made;
        });
        byte[] old = KeyCommands.replaced(c, ks.writable().put(key, ValueLayout.collection(type, id)));
        ks.found(key, old, System.currentTimeMillis());
        if (Keyspace.liveAt(old, System.currentTimeMillis()) == null) {
            ks.emit(key, KeyspaceEvents.NEW, "new");
        }
        ks.emit(key, type == ValueLayout.ZSET ? KeyspaceEvents.ZSET : KeyspaceEvents.SET, event);
        if (type == ValueLayout.ZSET) {
            c.blocking.signal(s.db, key);
        }
        return Replies.integer(count);
    }
}
