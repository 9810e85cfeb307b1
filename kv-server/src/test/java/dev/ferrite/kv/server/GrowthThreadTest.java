package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's growth thread: tasks run on a daemon thread named {@code ferrite-growth}, started on
 * the first; closing lets a running task finish uninterrupted (an interrupt inside a file write
 * would close the pool's channel), drops the ones not started, and refuses later ones.
 */
class GrowthThreadTest {

    @Test
    void runsTasksOnADaemonNamedFerriteGrowth() throws Exception {
        try (GrowthThread growth = new GrowthThread()) {
            AtomicReference<Thread> ran = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            growth.execute(() -> {
                ran.set(Thread.currentThread());
                done.countDown();
            });
            assertTrue(done.await(30, TimeUnit.SECONDS));
            assertEquals("ferrite-growth", ran.get().getName());
            assertTrue(ran.get().isDaemon());
        }
    }

    @Test
    void closeWaitsForTheRunningTaskWithoutInterruptingItAndRefusesLaterOnes() throws Exception {
        GrowthThread growth = new GrowthThread();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean finished = new AtomicBoolean();
        AtomicBoolean queuedRan = new AtomicBoolean();
        growth.execute(() -> {
            started.countDown();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < end) {
                if (Thread.currentThread().isInterrupted()) {
                    interrupted.set(true);
                }
                Thread.onSpinWait();
            }
            finished.set(true);
        });
        growth.execute(() -> queuedRan.set(true));
        assertTrue(started.await(30, TimeUnit.SECONDS));
        growth.close();
        assertTrue(finished.get(), "close returned before the running task ended");
        assertFalse(interrupted.get(), "the running task was interrupted");
        assertFalse(queuedRan.get(), "a task not started when the thread was closed ran");
        assertThrows(RejectedExecutionException.class, () -> growth.execute(() -> { }));
    }
}
