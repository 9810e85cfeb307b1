package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * One database of a data directory as another process than the server holds it ({@link
 * KvDatabase}): the map the manifest names for it now. Before each operation it reads the
 * manifest generation ({@link CountersLayout}); when that moved (the server flushed or swapped
 * databases, or made one) it reads the manifest again and follows it to the database's file now.
 * An operation that runs while the server flushes counts as before the flush, as a command the
 * server runs at that instant does. A write to a database that has no file makes it, as the
 * server does: the map is made whole under a temporary name, then renamed and named in the
 * manifest under the collection store's lock, which the server's moves of the manifest hold too.
 * Operations run under a read lock, so a map is closed only once no operation uses it.
 * Thread-safe.
 */
final class DatabaseFile implements AutoCloseable {

    /** Numbers the temporary files of this process's creations. */
    private static final AtomicLong MADE = new AtomicLong();

    private final DataDirectory directory;
    private final int index;
    private final String backend;
    private final CollectionStore store;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** The manifest generation {@link #name} was read at; written under {@link #lock}'s write lock. */
    private volatile long generation = -1;
    /** Guarded by {@link #lock}'s write lock; read under its read lock. */
    private String name;
    private FerriteMap<byte[], byte[]> map;
    private boolean closed;

    DatabaseFile(DataDirectory directory, int index, String backend, CollectionStore store) {
        this.directory = directory;
        this.index = index;
        this.backend = backend;
        this.store = store;
        follow();
    }

    /** @return the database's file name now (the owner name of its collections), or null if it has none */
    String name() {
        lock.readLock().lock();
        try {
            return name;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Runs an operation on the database's map, or on null if the database has no file (then
     * nothing is stored in it). The map stays open until the operation returns.
     */
    <T> T read(Function<FerriteMap<byte[], byte[]>, T> operation) {
        return run(false, operation);
    }

    /** As {@link #read}, making the database first if it has no file: the operation gets a map. */
    <T> T write(Function<FerriteMap<byte[], byte[]>, T> operation) {
        return run(true, operation);
    }

    private <T> T run(boolean write, Function<FerriteMap<byte[], byte[]>, T> operation) {
        while (true) {
            if (store.manifestGeneration() != generation) {
                follow();
            }
            lock.readLock().lock();
            try {
                if (closed) {
                    throw new FerriteException(this + " is closed");
                }
                if (map != null || !write) {
                    return operation.apply(map);
                }
            } finally {
                lock.readLock().unlock();
            }
            make();
        }
    }

    /** Reads the manifest again and holds the map it names for the database now. */
    private void follow() {
        lock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            long now = store.manifestGeneration(); // before the manifest: a later change moves it again
            String named = directory.readManifest().get(index);
            if (named == null ? name != null : !named.equals(name)) {
                FerriteMap<byte[], byte[]> old = map;
                map = null;
                name = null;
                if (old != null) {
                    DatabaseMaps.close(old);
                }
                if (named != null) {
                    map = DatabaseMaps.open(directory.file(named), backend);
                    name = named;
                }
            }
            generation = now;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Makes the database: a new map under a temporary name, renamed and named under the store's lock. */
    private void make() {
        Path made = directory.file("door-" + ProcessHandle.current().pid() + "-" + MADE.incrementAndGet()
                + DataDirectory.SUFFIX + DataDirectory.IN_PROGRESS); // a server starting meanwhile deletes it
        directory.drop(made);
        DatabaseMaps.makeEmpty(made, backend);
        store.locked(() -> {
            var manifest = directory.readManifest();
            if (manifest.containsKey(index)) {
                directory.drop(made); // made meanwhile by the server or another process
                return null;
            }
            String newName = directory.newDatabaseName();
            directory.publish(made, directory.file(newName));
            manifest.put(index, newName);
            directory.writeManifest(manifest);
            store.manifestChanged();
            return null;
        });
        follow();
    }

    @Override
    public String toString() {
        return "database " + index + " of " + directory.path();
    }

    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (!closed) {
                closed = true;
                if (map != null) {
                    DatabaseMaps.close(map);
                }
                map = null;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }
}
