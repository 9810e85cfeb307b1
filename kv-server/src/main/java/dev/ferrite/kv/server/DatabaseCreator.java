package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The server's work that takes some hundred milliseconds and must not hold up an event loop: the
 * making of databases ({@link #creation}), of the spare database a new one is renamed from
 * ({@link #makeSpare}), and the closing of dropped maps ({@link RetiredMaps}), one task at a time
 * on a daemon thread, {@code ferrite-db-create}, that starts with the first task and ends with
 * {@link #close}. Thread-safe.
 */
final class DatabaseCreator implements Executor, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseCreator.class);

    private final DataDirectory directory;
    private final String backend;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(DaemonTimer.daemons("ferrite-db-create"));
    /** Per database, the creation running on the thread, or null; guarded by itself. */
    private final List<CompletableFuture<Void>> creations = new ArrayList<>(Collections.nCopies(Databases.COUNT, null));
    /** Serializes the making of the spare. */
    private final Object spareLock = new Object();

    /**
     * @param directory where the spare is made
     * @param backend   the Ferrite backend of the spare's map, or null for the default
     */
    DatabaseCreator(DataDirectory directory, String backend) {
        this.directory = directory;
        this.backend = backend;
    }

    /**
     * The creation of database {@code index}: the one running now, or a new one that runs
     * {@code make} on the thread.
     *
     * @param make makes the database (a database that exists meanwhile makes it return at once)
     * @return completed when {@code make} returned, exceptionally with what it threw
     * @throws FerriteException if the creator was closed
     */
    CompletableFuture<Void> creation(int index, Runnable make) {
        synchronized (creations) {
            CompletableFuture<Void> running = creations.get(index);
            if (running != null) {
                return running;
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            creations.set(index, f); // cleared by the task, which needs this lock to do so
            try {
                thread.execute(() -> {
                    try {
                        make.run();
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
            return f;
        }
    }

    /**
     * Makes the spare database if there is none: whole under a temporary name, then renamed. On
     * the caller's thread.
     */
    void makeSpare() {
        synchronized (spareLock) {
            Path spare = directory.spare();
            if (Files.exists(spare)) {
                return;
            }
            Path made = DataDirectory.inProgress(spare);
            directory.drop(made);
            long start = System.nanoTime();
            DatabaseMaps.makeEmpty(made, backend);
            directory.publish(made, spare);
            LOG.debug("spare database made in {} ms", (System.nanoTime() - start) / 1_000_000);
        }
    }

    /** {@link #makeSpare} on the thread; a failure is logged (the next database is then made when needed). */
    void makeSpareLater() {
        try {
            thread.execute(() -> {
                try {
                    makeSpare();
                } catch (RuntimeException e) {
                    LOG.warn("cannot make a spare database ahead; the next new database is made when needed", e);
                }
            });
        } catch (RejectedExecutionException closing) {
            // the server is stopping
        }
    }

    /**
     * Runs a task on the thread.
     *
     * @throws RejectedExecutionException once closed
     */
    @Override
    public void execute(Runnable task) {
        thread.execute(task);
    }

    /**
     * Takes no more tasks and waits up to 30 s for the one running and those queued (a map being
     * made is finished, not cut off). Idempotent.
     */
    @Override
    public void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
