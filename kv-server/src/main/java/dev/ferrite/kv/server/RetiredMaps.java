package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The maps of dropped databases ({@code FLUSHDB}, {@code FLUSHALL}) until nothing can be using
 * them: a command an event loop was running at the instant of the drop, or a background thread
 * that reached the map through {@link #use}. A dropped map is closed ({@link DatabaseMaps#close})
 * once every event loop has finished the command it was running and no background thread holds
 * it. Thread-safe.
 */
final class RetiredMaps {

    /** Background threads hold its read lock while they use a map; a dropped map is closed under its write lock. */
    private final ReentrantReadWriteLock inUse = new ReentrantReadWriteLock();
    /** Maps dropped and not closed yet; guarded by {@link #inUse}'s write lock. */
    private final List<FerriteMap<byte[], byte[]>> retired = new ArrayList<>();
    /** Runs the closing (it waits for the background threads): not an event loop. */
    private final Executor closer;
    /** Runs a task once every event loop has finished what it was running; by default at once. */
    private volatile Consumer<Runnable> afterEveryLoop = Runnable::run;

    /**
     * @param closer runs the closing of dropped maps, which waits for the background threads using
     *               them; if it refuses (it is shut down), they are closed on the calling thread
     */
    RetiredMaps(Executor closer) {
        this.closer = closer;
    }

    /**
     * @param afterEveryLoop runs a task once every event loop has finished the task it was running
     *                       when asked (the server's worker group); dropped maps are closed then
     */
    void afterEveryLoop(Consumer<Runnable> afterEveryLoop) {
        this.afterEveryLoop = afterEveryLoop;
    }

    /**
     * For threads other than the event loops: runs {@code use} with the map {@code find} gives, if
     * it gives one; the map is not closed until {@code use} returns, even if it is dropped meanwhile.
     */
    void use(Supplier<FerriteMap<byte[], byte[]>> find, Consumer<FerriteMap<byte[], byte[]>> use) {
        inUse.readLock().lock();
        try {
            FerriteMap<byte[], byte[]> map = find.get();
            if (map != null) {
                use.accept(map);
            }
        } finally {
            inUse.readLock().unlock();
        }
    }

    /** Closes maps no database names any more once no event loop or background thread can be using them. */
    void retire(List<FerriteMap<byte[], byte[]>> dropped) {
        inUse.writeLock().lock();
        try {
            retired.addAll(dropped);
        } finally {
            inUse.writeLock().unlock();
        }
        Runnable closeNow = () -> {
            inUse.writeLock().lock();
            try {
                for (FerriteMap<byte[], byte[]> map : dropped) {
                    if (retired.remove(map)) {
                        DatabaseMaps.close(map);
                    }
                }
            } finally {
                inUse.writeLock().unlock();
            }
        };
        Runnable close = () -> { // off the event loop: the write lock waits for the background threads
            try {
                closer.execute(closeNow);
            } catch (RejectedExecutionException stopping) {
                closeNow.run();
            }
        };
        try {
            afterEveryLoop.accept(close);
        } catch (RejectedExecutionException stopping) {
            // the event loops are stopping: closeAll() closes what is left
        }
    }

    /**
     * Once no background thread uses a map: closes every dropped map not closed yet, then runs
     * {@code closeTheRest} (the databases still named, the stores). Called once, when the server stops.
     */
    void closeAll(Runnable closeTheRest) {
        inUse.writeLock().lock();
        try {
            try {
                retired.forEach(DatabaseMaps::close);
                retired.clear();
            } finally {
                closeTheRest.run();
            }
        } finally {
            inUse.writeLock().unlock();
        }
    }
}
