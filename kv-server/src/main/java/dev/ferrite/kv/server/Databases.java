package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The server's 16 databases ({@code SELECT 0} to {@code 15}): database {@code n} is a file-backed
 * {@link FerriteMap} of raw keys to {@link ValueLayout stored values} in {@code <data>/db<n>.ferrite},
 * opened at start if its file exists, created the first time a client writes to it, and closed
 * with the server. Reads go through {@link #ifOpen}: a database never written is empty and reading
 * it creates no file, as in Redis. A new database costs a 1 GiB sparse file and, on a disk that
 * reads ahead megabytes, some hundred milliseconds: an event loop asks {@link #getOrCreateLater},
 * which creates it on the creator thread, so that the loop's other connections are not held up;
 * {@link #get} creates it in the calling thread. Thread-safe.
 */
final class Databases implements AutoCloseable {

    /** Number of databases, as Redis's default {@code databases 16}. */
    static final int COUNT = 16;

    /**
     * Sections of a new database's map. A map grows section by section, and the event loop that
     * runs a write waits while its section grows: with 256 sections a step copies a 256th of the
     * keys, where the map's own default for a size it is not told (16 sections) copies a 16th.
     * Measured inserting 5M keys of 20 B with 100 B values into a file map in-process: the longest
     * put 35-40 ms instead of 125 ms, all puts 5.5-5.7 s instead of 7.4-8.5 s.
     */
    static final int SECTIONS = 256;

    private static final Logger LOG = LoggerFactory.getLogger(Databases.class);

    private final Path directory;
    private final String backend;
    /** Read without a lock by every command; written under the lock. */
    private final AtomicReferenceArray<FerriteMap<byte[], byte[]>> maps = new AtomicReferenceArray<>(COUNT);
    /** Per database, the creation running on the creator thread, or null; guarded by itself. */
    private final List<CompletableFuture<Void>> creations = new ArrayList<>(Collections.nCopies(COUNT, null));
    /** Creates databases for the event loops; its thread starts with the first creation. */
    private final ExecutorService creator = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "ferrite-db-create");
        t.setDaemon(true);
        return t;
    });
    /** Run on the creator thread before each creation: a test's hook to hold a creation back. */
    volatile Runnable beforeCreation = () -> { };
    private boolean closed;

    /**
     * @param directory where the database files live (created if missing)
     * @param backend   the Ferrite backend, or null for the default
     */
    Databases(Path directory, String backend) {
        this.directory = directory;
        this.backend = backend;
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + directory, e);
        }
        for (int i = 0; i < COUNT; i++) {
            if (Files.exists(file(i))) {
                get(i); // open what exists now, so a restart reports repairs and DBSIZE is at hand
            }
        }
    }

    private Path file(int index) {
        return directory.resolve("db" + index + ".ferrite");
    }

    /** @return database {@code index}, opened or created now if needed */
    FerriteMap<byte[], byte[]> get(int index) {
        FerriteMap<byte[], byte[]> map = maps.get(index);
        return map != null ? map : open(index);
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
        FerriteMap<byte[], byte[]> map = maps.get(index);
        if (map != null) {
            return map;
        }
        CompletableFuture<Void> ready;
        synchronized (creations) {
            map = maps.get(index);
            if (map != null) {
                return map;
            }
            ready = creations.get(index);
            if (ready == null) {
                CompletableFuture<Void> f = new CompletableFuture<>();
                creations.set(index, f); // cleared by the task, which needs this lock to do so
                ready = f;
                try {
                    creator.execute(() -> {
                        try {
                            beforeCreation.run();
                            get(index);
                            f.complete(null);
                        } catch (Throwable t) {
                            f.completeExceptionally(t);
                        } finally {
                            synchronized (creations) {
                                creations.set(index, null);
                            }
                        }
                    });
                } catch (RejectedExecutionException e) {
                    creations.set(index, null);
                    throw new FerriteException("the server's databases are closed");
                }
            }
        }
        throw new DatabaseCreating(index, ready);
    }

    /** @return database {@code index} if it is open (exists), else null; opens nothing */
    FerriteMap<byte[], byte[]> ifOpen(int index) {
        return maps.get(index);
    }

    private synchronized FerriteMap<byte[], byte[]> open(int index) {
        if (closed) {
            throw new FerriteException("the server's databases are closed");
        }
        FerriteMap<byte[], byte[]> map = maps.get(index);
        if (map == null) {
            long start = System.nanoTime();
            var builder = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(file(index))
                    .sections(SECTIONS);
            if (backend != null) {
                builder.backend(backend);
            }
            map = builder.createOrOpen();
            maps.set(index, map);
            LOG.info("database {} ready in {} ms: {} keys, {}", index, (System.nanoTime() - start) / 1_000_000,
                    map.longSize(), file(index));
        }
        return map;
    }

    /**
     * Closes every open database; later calls of {@link #get} throw. Idempotent. Called once no
     * connection is served any more (a command still running on a map would see it closed).
     */
    @Override
    public synchronized void close() {
        closed = true;
        creator.shutdown(); // a creation still queued finds the databases closed
        for (int i = 0; i < COUNT; i++) {
            FerriteMap<byte[], byte[]> map = maps.getAndSet(i, null);
            if (map != null) {
                map.close();
            }
        }
    }
}
