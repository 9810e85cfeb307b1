package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Region;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Closing a pool while other threads allocate, free and access its segments: round after round,
 * the close waits for the operations in flight, later ones throw {@link FerriteException} (a
 * closed segment {@link SegmentClosedException}), nothing else is thrown and the JVM never
 * crashes, on every backend and kind of pool. {@code -Dferrite.test.closeRounds} sets the rounds
 * per kind (default 700, so 2,100 per backend).
 */
public interface CloseRaceContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 4096;

    /** Close racing allocate, free and access. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void closeRacesAllocationFreeAndAccessSafely(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        int rounds = Integer.getInteger("ferrite.test.closeRounds", 700);
        AtomicLong refusedAfterClose = new AtomicLong();
        for (int round = 0; round < rounds; round++) {
            PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).build();
            ChunkPool pool = backend().createPool(spec);
            Segment shared = pool.allocate(4 * CHUNK);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            Thread allocator = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        Segment s = pool.allocate((1 + ThreadLocalRandom.current().nextInt(3)) * CHUNK);
                        s.putLong(0, 42);
                        s.fill(8, 64, (byte) 1);
                        s.close();
                        pool.usedChunks();
                    } catch (FerriteException e) {
                        if (!pool.isClosed()) {
                            unexpected.compareAndSet(null, e);
                        }
                        refusedAfterClose.incrementAndGet();
                        return;
                    } catch (Throwable t) {
                        unexpected.compareAndSet(null, t);
                        return;
                    }
                }
            }, "allocator");
            Thread accessor = new Thread(() -> {
                long i = 0;
                while (!stop.get()) {
                    try {
                        shared.putLong(8 * (i & 511), i);
                        shared.getLong(8 * ((i + 1) & 511));
                        shared.asLongs().set(i & 511, i);
                        for (Region r : shared.regions(0, 2 * CHUNK)) {
                            r.putLong(16, r.getLong(8));
                        }
                        shared.copyFrom(new byte[16], 0, 64, 16);
                        i++;
                    } catch (SegmentClosedException e) {
                        refusedAfterClose.incrementAndGet();
                        return;
                    } catch (Throwable t) {
                        unexpected.compareAndSet(null, t);
                        return;
                    }
                }
            }, "accessor");
            allocator.start();
            accessor.start();
            long spin = ThreadLocalRandom.current().nextLong(20_000);
            for (long k = 0; k < spin; k++) {
                Thread.onSpinWait();
            }
            pool.close();
            stop.set(true);
            allocator.join(10_000);
            accessor.join(10_000);
            assertNull(unexpected.get(), () -> "round " + unexpected.get() + ": " + stackOf(unexpected.get()));
            assertTrue(pool.isClosed());
            assertThrows(FerriteException.class, pool::usedChunks);
            assertThrows(FerriteException.class, () -> pool.allocate(CHUNK));
            backend().deletePool(spec);
        }
        assertTrue(refusedAfterClose.get() > 0, "some operation ran into the close");
    }

    private static String stackOf(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    /** A handle closed by its pool's close can still be closed by its owner, once, quietly. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void handlesOfAClosedPoolCloseQuietly(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(16 * CHUNK).build();
        ChunkPool pool = backend().createPool(spec);
        Segment s = pool.allocate(CHUNK);
        Segment other = s.retain();
        pool.close();
        s.close();
        other.close();
        assertEquals(0, s.refCount());
        backend().deletePool(spec);
    }
}
