package dev.ferrite.kv.server;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The server's thread that makes a store's memory ahead of need
 * ({@link dev.ferrite.kv.FerriteSortedMapBuilder#growthExecutor}): on a RAM file system a new
 * extent's memory is written before use (about 0.4 s a GiB), work that would otherwise stall the
 * event loop running the command that needs it. A daemon thread named {@code ferrite-growth},
 * started on the first task and stopped by {@link #close}; a task given after that is refused
 * (the extent is then made when it is needed). Thread-safe.
 */
final class GrowthThread implements Executor, AutoCloseable {

    private ThreadPoolExecutor thread;
    private boolean closed;

    @Override
    public synchronized void execute(Runnable task) {
        if (closed) {
            throw new RejectedExecutionException("the server's growth thread is stopped");
        }
        if (thread == null) {
            thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                    DaemonTimer.daemons("ferrite-growth"));
        }
        thread.execute(task);
    }

    /**
     * Stops the thread: drops the tasks not started and waits up to 30 seconds for the one that
     * runs, without interrupting it (an interrupt inside a file write would close the pool's
     * channel). Keeps the caller's interrupt status.
     */
    @Override
    public void close() {
        ThreadPoolExecutor t;
        synchronized (this) {
            closed = true;
            t = thread;
        }
        if (t != null) {
            t.shutdown();
            t.getQueue().clear();
            try {
                t.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
