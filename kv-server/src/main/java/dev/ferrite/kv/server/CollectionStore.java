package dev.ferrite.kv.server;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteSortedMap;
import dev.ferrite.spi.MemoryBackend;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;

import static dev.ferrite.kv.server.CollectionLayout.Owner;

/**
 * The elements of the server's collections, in one {@link FerriteSortedMap} in the data directory
 * ({@value #FILE}), laid out by {@link CollectionLayout}. A key's stored value names its collection
 * by id ({@link ValueLayout#collection}); the collection's elements lie under that id, so renaming
 * or moving a key moves no element, and a collection whose key is gone (deleted, overwritten,
 * expired, flushed, or left by a crash between the two steps of a command) is an orphan that
 * {@link CollectionSweeper} finds by its header's owners ({@link #orphan}) and drops.
 *
 * <p>A command that changes collections holds the store's lock for its whole run ({@link #locked}:
 * the tree's writer lock, shared by every process that opens the store, the server and each
 * {@link KvDatabase}) and makes its changes of the tree in atomic changes ({@link #change}): all of
 * one or none, across a crash. Reads take no lock, but those that must see several elements of
 * one state (a sorted set's ranges, ranks, combinations) run under it. Reads by position are
 * {@link CollectionPositions}'. The pool also holds the counters every process shares
 * ({@link CountersLayout}). Thread-safe.
 */
final class CollectionStore implements AutoCloseable {

    /** The store's file in the data directory. */
    static final String FILE = "collections.ferrite";
    private static final String TREE = "tree";
    /** Chunk size of the store's pool: small, since a server may hold few collections. */
    private static final long CHUNK_SIZE = 1 << 20;
    private static final long CAPACITY = 1L << 40;
    /** Page size of the tree: members of up to 2,022 bytes (the tree's longest key, 2,031, less the prefix). */
    private static final int PAGE_SIZE = 8192;
    /** Elements an orphan's drop removes per atomic change: commands run between two. */
    static final int DROP_BATCH = 1024;

    private final ChunkPool pool;
    private final FerriteSortedMap<byte[], byte[]> tree;
    private final CollectionPositions positions;
    /** The {@link CountersLayout} segment. */
    private final Segment counters;
    /**
     * The thread running {@link #locked}, or null: written only by the thread holding the tree's
     * lock, so a thread finds itself here only while it holds it (a field, not a thread-local: its
     * entry came and went with every command).
     */
    private Thread lockHolder;
    private final ConcurrentLinkedQueue<Long> hints = new ConcurrentLinkedQueue<>();
    private volatile boolean unforced;
    /** How deep the lock holder's thread is in {@link #change}s: 1 inside one that runs alone. */
    private int changeDepth;
    /** The size and ends of the list the last change left, while no change was published since. */
    private final KnownList lists = new KnownList();
    /** Makes the tree's extents ahead of need for the server's store; null for an in-process database's. */
    private final GrowthThread growth;

    /**
     * Opens the store in the data directory, or makes it (whole under a temporary name, then
     * renamed: a crash leaves none or all of it).
     *
     * @param backend the Ferrite backend, or null for the default
     */
    CollectionStore(DataDirectory directory, String backend) {
        MemoryBackend memory = backend == null ? Ferrite.backend() : Ferrite.backend(backend);
        Path file = directory.file(FILE);
        if (!Files.exists(file)) {
            Path made = DataDirectory.inProgress(file);
            directory.drop(made);
            try (ChunkPool fresh = memory.createPool(spec(made));
                 FerriteSortedMap<byte[], byte[]> t = builder(fresh).create()) {
                t.put(CollectionLayout.NEXT_ID, CollectionLayout.idBytes(1));
                fresh.force();
            }
            directory.publish(made, file);
        }
        pool = memory.openPool(spec(file));
        growth = new GrowthThread();
        FerriteSortedMap<byte[], byte[]> t = null;
        try {
            t = builder(pool).growthExecutor(growth).open();
            counters = pool.open(CountersLayout.NAME).orElseGet(() -> pool.allocate(CountersLayout.NAME, CountersLayout.SIZE));
        } catch (RuntimeException e) {
            growth.close();
            closeAfterFailure(t, pool);
            throw e;
        }
        tree = t;
        positions = new CollectionPositions(t);
    }

    /**
     * Opens the store of a data directory a server has made, beside the server that may run on it
     * (for {@link KvDatabase}).
     *
     * @param backend the Ferrite backend, or null for the default
     * @throws FerriteException if the directory has no store, or one of a server older than the counters
     */
    CollectionStore(Path directory, String backend) {
        MemoryBackend memory = backend == null ? Ferrite.backend() : Ferrite.backend(backend);
        Path file = directory.resolve(FILE);
        if (!Files.exists(file)) {
            throw new FerriteException("no KV server data in " + directory + ": " + FILE
                    + " is missing (a server makes it when it first starts on the directory)");
        }
        pool = memory.openPool(spec(file));
        growth = null; // a guest in its user's JVM: no thread of its own
        FerriteSortedMap<byte[], byte[]> t = null;
        try {
            t = builder(pool).open();
            counters = pool.open(CountersLayout.NAME).orElseThrow(() -> new FerriteException(file
                    + " has no shared counters: start this version of the server on the directory once first"));
        } catch (RuntimeException e) {
            closeAfterFailure(t, pool);
            throw e;
        }
        tree = t;
        positions = new CollectionPositions(t);
    }

    private static void closeAfterFailure(FerriteSortedMap<byte[], byte[]> tree, ChunkPool pool) {
        try {
            if (tree != null) {
                tree.close();
            }
        } finally {
            pool.close();
        }
    }

    /** @return the manifest generation ({@link CountersLayout#MANIFEST_GENERATION}), read now */
    long manifestGeneration() {
        return counters.getLongVolatile(CountersLayout.MANIFEST_GENERATION);
    }

    /** Counts a change of the manifest, once it is written; under {@link #locked}. */
    void manifestChanged() {
        counters.getAndAddLong(CountersLayout.MANIFEST_GENERATION, 1);
    }

    /** @return the in-process databases' expiry writes ({@link CountersLayout#EXPIRY_WRITES}), read now */
    long sharedExpiryWrites() {
        return counters.getLongVolatile(CountersLayout.EXPIRY_WRITES);
    }

    /** Counts an expiry write of an in-process database, after it landed. */
    void countSharedExpiryWrite() {
        counters.getAndAddLong(CountersLayout.EXPIRY_WRITES, 1);
    }

    private static PoolSpec spec(Path file) {
        return PoolSpec.file(file).chunkSize(CHUNK_SIZE).capacity(CAPACITY).build();
    }

    private static dev.ferrite.kv.FerriteSortedMapBuilder<byte[], byte[]> builder(ChunkPool pool) {
        return FerriteSortedMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, TREE).pageSize(PAGE_SIZE);
    }

    /**
     * @return Redis's kind of error reply if a member (a hash field, a set member...) is longer
     *         than the store keeps, else null
     */
    RedisMessage tooLong(byte[] member) {
        int max = maxMemberBytes();
        return member.length <= max ? null : Replies.error("ERR member of " + member.length
                + " bytes is longer than the longest this server keeps in a collection, " + max);
    }

    /** @return the longest member (hash field, set member...) the store keeps, in bytes */
    int maxMemberBytes() {
        return tree.maxKeySize() - CollectionLayout.PREFIX;
    }

    /**
     * Runs a collection command's body holding the store's lock: its tree's writer lock, which
     * every process that opened the store shares ({@link FerriteSortedMap#exclusively}). Inside
     * it, a second call runs the body as it is.
     */
    <T> T locked(Supplier<T> body) {
        Thread me = Thread.currentThread();
        return lockHolder == me ? body.get() : tree.exclusively(() -> {
            lockHolder = me;
            try {
                return body.get();
            } finally {
                lockHolder = null;
            }
        });
    }

    /**
     * Makes {@code body}'s changes of the tree one atomic change: all or none, also across a crash.
     * The caller holds the lock ({@link #locked}).
     */
    <T> T change(Supplier<T> body) {
        unforced = true;
        if (changeDepth > 0) {
            changeDepth++; // part of the running change
            try {
                return tree.atomically(body);
            } finally {
                changeDepth--;
            }
        }
        long before = tree.version();
        changeDepth = 1;
        T r;
        try {
            r = tree.atomically(body);
        } catch (RuntimeException | Error e) {
            lists.dropPending();
            throw e;
        } finally {
            changeDepth = 0;
        }
        long after = tree.version();
        lists.published(after != before, after);
        return r;
    }

    /**
     * @return the size and end positions of list {@code id} in the published tree, as far as the
     *         last change of this store noted them, if no change was published since; else
     *         {@link KnownList.Shape#UNKNOWN}. Inside a change that has not changed the list yet
     *         and runs alone (not inside another change)
     */
    KnownList.Shape knownList(long id) {
        return changeDepth == 1 ? lists.of(id, tree.version()) : KnownList.Shape.UNKNOWN;
    }

    /**
     * Notes list {@code id}'s shape as the running change leaves it, for the next change's
     * {@link #knownList} once this one is published; inside that change, at its end.
     */
    void noteList(long id, KnownList.Shape shape) {
        if (changeDepth == 1) {
            lists.pending(id, shape);
        }
    }

    /**
     * Gives a new collection an id and its header; inside {@link #change}.
     *
     * @return the id
     */
    long create(Owner owner) {
        long id = CollectionLayout.id(tree.get(CollectionLayout.NEXT_ID));
        tree.put(CollectionLayout.NEXT_ID, CollectionLayout.idBytes(id + 1));
        tree.put(CollectionLayout.header(id), CollectionLayout.owners(List.of(owner)));
        return id;
    }

    /** Adds a key that names collection {@code id} (before the key's value names it); inside {@link #change}. */
    void addOwner(long id, Owner owner) {
        List<Owner> owners = owners(id);
        if (!owners.contains(owner)) {
            owners.add(owner);
            tree.put(CollectionLayout.header(id), CollectionLayout.owners(owners));
        }
    }

    /** Drops a key that no longer names collection {@code id}; inside {@link #change}. */
    void removeOwner(long id, Owner owner) {
        List<Owner> owners = owners(id);
        if (owners.remove(owner) && !owners.isEmpty()) {
            tree.put(CollectionLayout.header(id), CollectionLayout.owners(owners));
        }
    }

    private List<Owner> owners(long id) {
        byte[] header = tree.get(CollectionLayout.header(id));
        return header == null ? new ArrayList<>() : CollectionLayout.owners(header);
    }

    /** @return an element's value, or null */
    byte[] get(long id, byte[] member) {
        return tree.get(CollectionLayout.element(id, member));
    }

    /** Sets an element; inside {@link #change}. @return its value before, or null */
    byte[] put(long id, byte[] member, byte[] value) {
        return tree.put(CollectionLayout.element(id, member), value);
    }

    /**
     * Changes an element's value in one descent of the store; inside {@link #change}.
     *
     * @param change given the value now (null if none), returns the new one, null to remove the
     *               element, or the array it was given to leave it as it is; called once
     */
    void update(long id, byte[] member, UnaryOperator<byte[]> change) {
        tree.compute(CollectionLayout.element(id, member), (k, old) -> change.apply(old));
    }

    /** Removes an element; inside {@link #change}. @return its value before, or null */
    byte[] remove(long id, byte[] member) {
        return tree.remove(CollectionLayout.element(id, member));
    }

    /** Sets an entry of the store by its whole key ({@link CollectionLayout}); inside {@link #change}. */
    void putKey(byte[] key, byte[] value) {
        tree.put(key, value);
    }

    /** Removes an entry of the store by its whole key; inside {@link #change}. */
    void removeKey(byte[] key) {
        tree.remove(key);
    }

    /** @return the reads (and the removal) of elements by position */
    CollectionPositions positions() {
        return positions;
    }

    /** @return the elements of collection {@code id}, keys with their prefix ({@link CollectionLayout#member}), in order */
    NavigableMap<byte[], byte[]> elements(long id) {
        return tree.subMap(CollectionLayout.elementsFrom(id), true, CollectionLayout.elementsTo(id), false);
    }

    /** @return whether collection {@code id} has no element (one descent of the tree) */
    boolean isEmpty(long id) {
        return elements(id).isEmpty();
    }

    /** @return the number of elements of collection {@code id}, in O(log n) */
    long size(long id) {
        return elements(id).size();
    }

    /** @return a sorted set's members by score ({@link CollectionLayout#scoreKey}), in order */
    NavigableMap<byte[], byte[]> scores(long id) {
        return tree.subMap(CollectionLayout.scoresFrom(id), true, CollectionLayout.scoresTo(id), false);
    }

    /**
     * Copies collection {@code from}'s elements to a new collection; inside {@link #change}.
     *
     * @return the new collection's id
     */
    long copy(long from, Owner owner) {
        long id = create(owner);
        byte[] newId = CollectionLayout.idBytes(id);
        for (Map.Entry<byte[], byte[]> e : tree.subMap(CollectionLayout.elementsFrom(from), CollectionLayout.first(from + 1)).entrySet()) {
            byte[] k = e.getKey().clone(); // elements and every other kind but the header
            System.arraycopy(newId, 0, k, 0, newId.length);
            tree.put(k, e.getValue());
        }
        return id;
    }

    /**
     * Marks a journaled command finished, in the atomic change of its collection changes; inside
     * {@link #change}. A start after a crash then does not undo its journal record: the command's
     * other writes were all made before its change was published.
     */
    void finish(long record) {
        tree.put(CollectionLayout.finished(record), new byte[0]);
    }

    /** @return whether journal record {@code record}'s command finished ({@link #finish}) */
    boolean finished(long record) {
        return tree.containsKey(CollectionLayout.finished(record));
    }

    /** Drops a mark of {@link #finish} once the record is gone too. */
    void forget(long record) {
        locked(() -> change(() -> tree.remove(CollectionLayout.finished(record))));
    }

    /** At start, after the journal's recovery: drops every mark of {@link #finish}. */
    void forgetFinished() {
        locked(() -> change(() -> {
            tree.subMap(CollectionLayout.finished(0), true, CollectionLayout.elementsTo(0), false).clear();
            return null;
        }));
    }

    /** Asks the sweep to look at collection {@code id} soon (its key was deleted). */
    void hint(long id) {
        if (hints.size() < 100_000) {
            hints.add(id);
        }
    }

    /** @return a collection {@link #hint}ed and not looked at yet, or null */
    Long nextHint() {
        return hints.poll();
    }

    /** @return the lowest id from {@code id} on that has entries, or 0 if none has */
    long idFrom(long id) {
        byte[] k = tree.ceilingKey(CollectionLayout.first(Math.max(id, 1)));
        return k == null ? 0 : CollectionLayout.id(k);
    }

    /**
     * Looks whether collection {@code id} is an orphan: a header that names no key naming it now,
     * or elements without a header (a drop a crash cut short: a collection is made with its header
     * in one atomic change). An orphan's header is removed. Call beside no command that moves a
     * key (the command gate).
     *
     * @param named the id a key's stored value names now (0: none)
     * @return whether it is an orphan, whose elements {@link #drop} removes
     */
    boolean orphan(long id, ToLongFunction<Owner> named) {
        return locked(() -> {
            byte[] header = tree.get(CollectionLayout.header(id));
            if (header == null) {
                return idFrom(id) == id;
            }
            for (Owner o : CollectionLayout.owners(header)) {
                if (named.applyAsLong(o) == id) {
                    return false;
                }
            }
            change(() -> tree.remove(CollectionLayout.header(id)));
            return true;
        });
    }

    /** Removes an orphan's elements, {@value #DROP_BATCH} per atomic change (commands run between two). */
    void drop(long id) {
        boolean more = true;
        while (more) {
            more = locked(() -> change(() -> {
                Iterator<byte[]> it = tree.subMap(CollectionLayout.first(id), CollectionLayout.first(id + 1)).keySet().iterator();
                for (int n = 0; n < DROP_BATCH && it.hasNext(); n++) {
                    it.next();
                    it.remove();
                }
                return it.hasNext();
            }));
        }
    }

    /** Forces the store to disk if a change was made since the last force. */
    void force() {
        if (unforced) {
            unforced = false;
            pool.force();
        }
    }

    /** @return bytes of the store's pages in use */
    long usedBytes() {
        return tree.usedBytes();
    }

    /** @return entries in the store (headers, elements, the id counter) */
    long entries() {
        return tree.size();
    }

    @Override
    public void close() {
        if (growth != null) {
            growth.close(); // before the pool: an extent being made ends first
        }
        try {
            counters.close();
            tree.close();
        } finally {
            pool.close();
        }
    }
}
