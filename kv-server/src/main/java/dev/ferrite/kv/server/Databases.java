package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The server's 16 databases ({@code SELECT 0} to {@code 15}): database {@code n} is a file-backed
 * {@link FerriteMap} of raw keys to {@link ValueLayout stored values}, in the file the data
 * directory's manifest names for it ({@link DataDirectory}), opened at start if it exists, made the
 * first time a client writes to it, and closed with the server. Reads go through {@link #ifOpen}: a database never written is
 * empty and reading it makes no file, as in Redis.
 *
 * <p>All-or-nothing across a crash: a new database is a spare map, made whole under a temporary
 * name, renamed, then added to the manifest, so a crash while it is made leaves no database.
 * {@link #flush}, {@link #flushAll} and {@link #swap} each replace the manifest in one step (the
 * dropped files are deleted after); the next write to a flushed database makes it anew. A dropped
 * map is closed once every event loop has finished the command it was running
 * ({@link #retireAfter}), and background threads reach maps through {@link #withOpen}, so nothing
 * touches a closed map ({@link RetiredMaps}).
 *
 * <p>Making a map takes some hundred milliseconds: an event loop asks {@link #getOrCreateLater},
 * which makes it on the creator thread ({@link DatabaseCreator}), so that the loop's other
 * connections are not held up.
 * After a flush one spare is made ahead, so that the flushed database, written again, takes only a
 * rename; a server that never flushes keeps no spare.
 * Thread-safe.
 */
final class Databases implements AutoCloseable {

    /** Number of databases, as Redis's default {@code databases 16}. */
    static final int COUNT = 16;

    private static final Logger LOG = LoggerFactory.getLogger(Databases.class);

    private final DataDirectory directory;
    private final String backend;
    /** Read without a lock by every command; written under this object's lock. */
    private final AtomicReferenceArray<FerriteMap<byte[], byte[]>> maps = new AtomicReferenceArray<>(COUNT);
    /** Each database's file name, as in the manifest, or null; guarded by this object's lock. */
    private final String[] names = new String[COUNT];
    /** Makes databases and the spare, and closes dropped maps, off the event loops. */
    private final DatabaseCreator creator;
    /** Dropped maps, closed once no command or background thread can be using them. */
    private final RetiredMaps retired;
    /** Run on the creator thread before each creation: a test's hook to hold a creation back. */
    volatile Runnable beforeCreation = () -> { };
    private volatile boolean closed;
    /** Saves what multi-entry commands change, for undoing them after a crash; null until opened. */
    private UndoJournal journal;
    /** The elements of the collections; null until opened. */
    private CollectionStore collections;
    /** The manifest generation ({@link CountersLayout}) when this server last read or wrote the manifest. */
    private volatile long seenGeneration;

    /**
     * Locks the directory, recovers what a crash left ({@link DataDirectory#recover}) and opens the
     * databases that exist.
     *
     * @param directory where the database files live (created if missing)
     * @param backend   the Ferrite backend, or null for the default
     * @throws FerriteException if another server uses the directory, or a database cannot be opened
     */
    Databases(Path directory, String backend) {
        this.directory = new DataDirectory(directory);
        this.backend = backend;
        this.creator = new DatabaseCreator(this.directory, backend);
        this.retired = new RetiredMaps(creator);
        this.directory.lock();
        try {
            collections = new CollectionStore(this.directory, backend);
            collections.locked(() -> { // an in-process database may be made meanwhile: its moves hold this lock
                seenGeneration = collections.manifestGeneration();
                this.directory.recover().forEach((index, name) -> names[index] = name);
                return null;
            });
            for (int i = 0; i < COUNT; i++) {
                if (names[i] != null) {
                    get(i); // open what exists now, so a restart reports repairs and DBSIZE is at hand
                }
            }
            journal = new UndoJournal(this.directory, backend);
            journal.recover(this, collections::finished);
            collections.forgetFinished();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * @param afterEveryLoop runs a task once every event loop has finished the task it was running
     *                       when asked (the server's worker group); dropped maps are closed then
     */
    void retireAfter(Consumer<Runnable> afterEveryLoop) {
        retired.afterEveryLoop(afterEveryLoop);
    }

    /** @return whether {@link #close} was called */
    boolean isClosed() {
        return closed;
    }

    /** @return the name of the maps' memory backend */
    String backendName() {
        return backend != null ? backend : dev.ferrite.Ferrite.backend().name();
    }

    /** @return the journal of multi-entry commands */
    UndoJournal journal() {
        return journal;
    }

    /** @return the elements of the collections (hashes, sets...) of every database */
    CollectionStore collections() {
        return collections;
    }

    /** @return the file name of database {@code index}, or null if it does not exist */
    synchronized String fileName(int index) {
        return names[index];
    }

    /**
     * @return the open map of the database whose file has that name, or null if none has (after
     *         adopting the databases another process made)
     */
    synchronized FerriteMap<byte[], byte[]> byFileName(String name) {
        adopt();
        for (int i = 0; i < COUNT; i++) {
            if (name.equals(names[i])) {
                return maps.get(i);
            }
        }
        return null;
    }

    /** @return the data directory */
    DataDirectory directory() {
        return directory;
    }

    /** @return database {@code index}, opened or made now if needed */
    FerriteMap<byte[], byte[]> get(int index) {
        FerriteMap<byte[], byte[]> map = maps.get(index);
        return map != null ? map : open(index);
    }

    /**
     * @return database {@code index} if it is open, after adopting the databases another process
     *         made since the manifest was last read ({@link KvDatabase}), else null
     */
    private FerriteMap<byte[], byte[]> opened(int index) {
        FerriteMap<byte[], byte[]> map = maps.get(index);
        if (map == null && collections != null && collections.manifestGeneration() != seenGeneration) {
            synchronized (this) {
                adopt();
            }
            map = maps.get(index);
        }
        return map;
    }

    /**
     * Opens the databases the manifest names that this server has not: made by another process
     * ({@link KvDatabase}) since it last read the manifest. Only a server drops or swaps
     * databases, so every other entry is as this server wrote it. Under this object's lock.
     */
    private void adopt() {
        if (closed || collections == null) {
            return;
        }
        long generation = collections.manifestGeneration(); // before the manifest: a later change moves it again
        if (generation == seenGeneration) {
            return;
        }
        directory.readManifest().forEach((index, name) -> {
            if (names[index] == null && maps.get(index) == null) {
                maps.set(index, DatabaseMaps.open(directory.file(name), backend));
                names[index] = name;
                LOG.info("database {} made by another process: {}", index, directory.file(name));
            }
        });
        seenGeneration = generation;
    }

    /**
     * For an event loop, which must not wait for a creation: database {@code index} if it is open,
     * else its creation is started (once) on the creator thread and {@link DatabaseCreating} is
     * thrown, for the caller to run the command again when it is done.
     *
     * @return the open database
     * @throws DatabaseCreating if it does not exist yet
     */
    FerriteMap<byte[], byte[]> getOrCreateLater(int index) {
        FerriteMap<byte[], byte[]> map = opened(index);
        if (map != null) {
            return map;
        }
        // a creation that ended since opened() read the map starts another, which finds it at once
        CompletableFuture<Void> ready = creator.creation(index, () -> {
            beforeCreation.run();
            get(index);
        });
        throw new DatabaseCreating(index, ready);
    }

    /** @return database {@code index} if it is open (exists), else null; opens nothing */
    FerriteMap<byte[], byte[]> ifOpen(int index) {
        return opened(index);
    }

    /**
     * For threads other than the event loops: runs {@code use} with database {@code index} if it is
     * open; the map stays open until {@code use} returns, even if the database is flushed meanwhile.
     */
    void withOpen(int index, Consumer<FerriteMap<byte[], byte[]>> use) {
        opened(index); // adopts a database another process made, outside the read lock (lock order)
        retired.use(() -> maps.get(index), use);
    }

    private FerriteMap<byte[], byte[]> open(int index) {
        while (true) {
            synchronized (this) {
                checkNotClosed();
                adopt();
                FerriteMap<byte[], byte[]> map = maps.get(index);
                if (map != null) {
                    return map;
                }
                if (names[index] != null) {
                    long start = System.nanoTime();
                    map = DatabaseMaps.open(directory.file(names[index]), backend);
                    maps.set(index, map);
                    LOG.info("database {} opened in {} ms: {} keys, {}", index, (System.nanoTime() - start) / 1_000_000,
                            map.longSize(), directory.file(names[index]));
                    return map;
                }
            }
            if (Files.exists(directory.spare())) {
                FerriteMap<byte[], byte[]> made = collections.locked(() -> make(index)); // the manifest's moves hold it
                if (made != null) {
                    return made;
                }
            }
            creator.makeSpare(); // outside the locks: the event loops' flushes and lookups go on meanwhile
        }
    }

    /**
     * Makes database {@code index} of the spare: renamed, opened, then named in the manifest.
     * Under the collection store's lock.
     *
     * @return the database, or null if there is no spare any more
     */
    private synchronized FerriteMap<byte[], byte[]> make(int index) {
        checkNotClosed();
        adopt();
        FerriteMap<byte[], byte[]> map = maps.get(index);
        if (map != null || !Files.exists(directory.spare())) {
            return map;
        }
        String name = directory.newDatabaseName();
        Path file = directory.file(name);
        long start = System.nanoTime();
        directory.publish(directory.spare(), file);
        try {
            map = DatabaseMaps.open(file, backend);
            names[index] = name;
            writeManifest();
        } catch (RuntimeException e) {
            if (map != null) {
                DatabaseMaps.close(map);
            }
            names[index] = null;
            directory.drop(file);
            throw e;
        }
        maps.set(index, map);
        LOG.info("database {} made in {} ms: {}", index, (System.nanoTime() - start) / 1_000_000, file);
        return map;
    }

    private void checkNotClosed() {
        if (closed) {
            throw new FerriteException("the server's databases are closed");
        }
    }

    /**
     * Writes the manifest from {@link #names} and counts the change for the other processes that
     * hold databases; called under the collection store's lock and this object's, after {@link #adopt}.
     */
    private void writeManifest() {
        Map<Integer, String> manifest = new LinkedHashMap<>();
        for (int i = 0; i < COUNT; i++) {
            if (names[i] != null) {
                manifest.put(i, names[i]);
            }
        }
        directory.writeManifest(manifest);
        collections.manifestChanged();
        seenGeneration = collections.manifestGeneration();
    }

    /**
     * FLUSHDB: empties database {@code index} in one step across a crash, by dropping it from the
     * manifest (its file is deleted after). Writes that other event loops run at the same instant
     * may land in the dropped map: they count as before the flush.
     */
    void flush(int index) {
        flush(List.of(index));
    }

    /** FLUSHALL: empties every database, all of them or none across a crash. */
    void flushAll() {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            all.add(i);
        }
        flush(all);
    }

    private void flush(List<Integer> indexes) {
        collections.locked(() -> {
            flushLocked(indexes);
            return null;
        });
    }

    private synchronized void flushLocked(List<Integer> indexes) {
        adopt();
        List<FerriteMap<byte[], byte[]>> dropped = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (int i : indexes) {
            FerriteMap<byte[], byte[]> map = maps.get(i);
            if (map != null) {
                dropped.add(map);
                files.add(directory.file(names[i]));
                maps.set(i, null);
                names[i] = null;
            }
        }
        if (dropped.isEmpty()) {
            return;
        }
        writeManifest();
        files.forEach(directory::drop);
        retired.retire(dropped);
        creator.makeSpareLater(); // a flushed database is written again soon, as a rule: it is made in a rename then
    }

    /**
     * SWAPDB: databases {@code a} and {@code b} trade places, in one step across a crash. A command
     * another event loop runs at the same instant on one of them counts as before the swap.
     */
    void swap(int a, int b) {
        collections.locked(() -> {
            swapLocked(a, b);
            return null;
        });
    }

    private synchronized void swapLocked(int a, int b) {
        checkNotClosed();
        adopt();
        String name = names[a];
        names[a] = names[b];
        names[b] = name;
        writeManifest();
        FerriteMap<byte[], byte[]> map = maps.get(a);
        maps.set(a, maps.get(b));
        maps.set(b, map);
    }

    /**
     * Closes every open database and gives the directory up; later calls of {@link #get} throw.
     * Idempotent. Called once no connection is served any more (a command still running on a map
     * would see it closed).
     */
    @Override
    public void close() {
        creator.close(); // a map being made is finished, not cut off
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            retired.closeAll(() -> {
                for (int i = 0; i < COUNT; i++) {
                    FerriteMap<byte[], byte[]> map = maps.getAndSet(i, null);
                    if (map != null) {
                        DatabaseMaps.close(map);
                    }
                }
                if (journal != null) {
                    journal.close();
                }
                if (collections != null) {
                    collections.close();
                }
            });
            directory.close();
        }
    }
}
