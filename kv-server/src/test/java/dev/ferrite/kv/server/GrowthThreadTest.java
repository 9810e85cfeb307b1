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
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean finished = new AtomicBoolean();
        AtomicBoolean queuedRan = new AtomicBoolean();
        growth.execute(() -> {
            started.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
            finished.set(true);
        });
        growth.execute(() -> queuedRan.set(true));
        assertTrue(started.await(30, TimeUnit.SECONDS));
        Thread closer = new Thread(growth::close);
        closer.start();
        while (true) { // until close() has begun: it refuses tasks from its first step
            try {
                growth.execute(() -> { }); // accepted: close() has not begun yet (queued, then dropped)
                Thread.sleep(1);
            } catch (RejectedExecutionException refused) {
                break;
            }
        }
        closer.join(200);
        assertTrue(closer.isAlive(), "close() returned while a task still ran");
        release.countDown();
        closer.join(30_000);
        assertFalse(closer.isAlive());
        assertTrue(finished.get());
        assertFalse(interrupted.get(), "the running task was interrupted");
        assertFalse(queuedRan.get(), "a task not started when the thread was closed ran");
        assertThrows(RejectedExecutionException.class, () -> growth.execute(() -> { }));
    }
}
