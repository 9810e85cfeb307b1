package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.PoolSpec;
import dev.ferrite.RecoveryReport;
import dev.ferrite.Segment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ChunkPool}: chunk accounting, exhaustion that leaks nothing, capacity exactly full,
 * segments from non-contiguous chunks, reference counting, named segments, closing, recovery.
 */
public interface ChunkPoolContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 4096;

    /** Allocation takes whole chunks, close gives them back, and the pool reports its geometry. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void allocationCountsWholeChunks(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 32 * CHUNK)) {
            ChunkPool pool = tp.pool();
            assertEquals(CHUNK, pool.chunkSize());
            assertEquals(32 * CHUNK, pool.capacity());
            assertEquals(32, pool.freeChunks());
            assertEquals(0, pool.usedChunks());
            assertEquals(backend(), pool.backend());
            Segment a = pool.allocate(1);
            Segment b = pool.allocate(CHUNK);
            Segment c = pool.allocate(CHUNK + 1);
            assertEquals(4, pool.usedChunks());
            assertEquals(28, pool.freeChunks());
            assertEquals(1, a.size());
            assertEquals(CHUNK + 1, c.size());
            assertEquals(pool, c.pool());
            b.close();
            assertEquals(3, pool.usedChunks());
            a.close();
            c.close();
            assertEquals(0, pool.usedChunks());
            assertEquals(32, pool.freeChunks());
        }
    }

    /** An allocation beyond what is free fails, names the sizes, leaks nothing, and the pool stays usable. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void exhaustionLeaksNothing(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 8 * CHUNK)) {
            ChunkPool pool = tp.pool();
            Segment a = pool.allocate(5 * CHUNK);
            PoolExhaustedException e = assertThrows(PoolExhaustedException.class, () -> pool.allocate(4 * CHUNK));
            assertTrue(e.getMessage().contains(String.valueOf(4 * CHUNK)) && e.getMessage().contains("3 chunks free"),
                    e.getMessage());
            assertThrows(PoolExhaustedException.class, () -> pool.allocate(Long.MAX_VALUE));
            assertThrows(PoolExhaustedException.class, () -> pool.allocate("big", 9 * CHUNK));
            assertFalse(pool.segmentNames().contains("big"));
            assertEquals(5, pool.usedChunks());
            assertEquals(3, pool.freeChunks());
            OutOfBoundsException neg = assertThrows(OutOfBoundsException.class, () -> pool.allocate(-1));
            assertTrue(neg.getMessage().contains("-1"), neg.getMessage());
            try (Segment b = pool.allocate(3 * CHUNK)) {
                assertEquals(0, pool.freeChunks());
                b.putLong(3 * CHUNK - 8, 1);
            }
            a.close();
            assertEquals(8, pool.freeChunks());
        }
    }

    /** A pool can be filled to exactly its capacity, in one segment or many. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void capacityExactlyFull(PoolSpec.Kind kind, @TempDir Path dir) {
        // 10 chunks over extents of 4: the last extent is short.
        try (TestPool tp = pool(spec(kind, dir).chunkSize(CHUNK).capacity(10 * CHUNK).extentSize(4 * CHUNK).build())) {
            ChunkPool pool = tp.pool();
            try (Segment all = pool.allocate(pool.capacity())) {
                assertEquals(0, pool.freeChunks());
                all.putLong(0, 1);
                all.putLong(all.size() - 8, 2);
                assertEquals(2, all.getLong(all.size() - 8));
                assertThrows(PoolExhaustedException.class, () -> pool.allocate(1));
            }
            List<Segment> each = new ArrayList<>();
            for (int i = 0; i < pool.capacity() / CHUNK; i++) {
                each.add(pool.allocate(CHUNK));
            }
            assertThrows(PoolExhaustedException.class, () -> pool.allocate(1));
            assertEquals(0, pool.freeChunks());
            for (int i = 0; i < each.size(); i++) {
                each.get(i).putInt(0, i);
            }
            for (int i = 0; i < each.size(); i++) {
                assertEquals(i, each.get(i).getInt(0), "segment " + i + " shares a chunk with another");
                each.get(i).close();
            }
            assertEquals(pool.capacity() / CHUNK, pool.freeChunks());
        }
    }

    /** A segment made of chunks freed here and there keeps its bytes apart from its neighbours'. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void segmentsOfScatteredChunksStayApart(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(8 * CHUNK).build())) {
            ChunkPool pool = tp.pool();
            List<Segment> segments = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                segments.add(pool.allocate(2 * CHUNK));
            }
            for (int i = 0; i < 12; i += 2) {
                segments.get(i).close();
            }
            try (Segment scattered = pool.allocate(20 * CHUNK)) {
                for (long off = 0; off < scattered.size(); off += 8) {
                    scattered.putLong(off, off ^ 0x5555);
                }
                for (int i = 1; i < 12; i += 2) {
                    Segment s = segments.get(i);
                    s.fill(0, s.size(), (byte) i);
                }
                for (long off = 0; off < scattered.size(); off += 8) {
                    assertEquals(off ^ 0x5555, scattered.getLong(off), "offset " + off);
                }
                for (int i = 1; i < 12; i += 2) {
                    assertEquals((byte) i, segments.get(i).getByte(2 * CHUNK - 1));
                }
            }
            for (int i = 1; i < 12; i += 2) {
                segments.get(i).close();
            }
            assertEquals(64, pool.freeChunks());
        }
    }

    /** retain() hands out another handle; the chunks return when the last handle is closed. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void referenceCountingFreesOnLastClose(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK)) {
            ChunkPool pool = tp.pool();
            Segment first = pool.allocate(3 * CHUNK);
            assertEquals(1, first.refCount());
            Segment second = first.retain();
            Segment third = second.retain();
            assertEquals(3, first.refCount());
            second.putLong(CHUNK, 42);
            assertEquals(42, third.getLong(CHUNK));
            first.close();
            first.close();
            assertTrue(first.isClosed());
            assertEquals(2, third.refCount());
            assertEquals(3, pool.usedChunks());
            second.close();
            assertEquals(3, pool.usedChunks());
            assertEquals(42, third.getLong(CHUNK));
            third.close();
            assertEquals(0, pool.usedChunks());
            assertEquals(0, third.refCount());
        }
    }

    /** Handles retained and closed from many threads free the chunks exactly once. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void concurrentRetainAndClose(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        try (TestPool tp = pool(kind, dir, CHUNK, 64 * CHUNK)) {
            ChunkPool pool = tp.pool();
            for (int round = 0; round < 20; round++) {
                Segment root = pool.allocate(2 * CHUNK);
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    Segment mine = root.retain();
                    Thread th = new Thread(() -> {
                        for (int i = 0; i < 200; i++) {
                            mine.retain().close();
                        }
                        mine.close();
                    });
                    th.start();
                    threads.add(th);
                }
                root.close();
                for (Thread th : threads) {
                    th.join();
                }
                assertEquals(0, pool.usedChunks(), "round " + round);
            }
            assertEquals(64, pool.freeChunks());
        }
    }

    /** Named segments: allocate, open more handles, list, delete; the name keeps the chunks alive. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void namedSegments(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK)) {
            ChunkPool pool = tp.pool();
            try (Segment s = pool.allocate("signal-7", 2 * CHUNK + 1)) {
                assertEquals("signal-7", s.name());
                s.putLong(CHUNK, 7);
            }
            assertEquals(3, pool.usedChunks(), "the name holds the chunks");
            assertEquals(Set.of("signal-7"), pool.segmentNames());
            FerriteException dup = assertThrows(FerriteException.class, () -> pool.allocate("signal-7", 1));
            assertTrue(dup.getMessage().contains("signal-7"), dup.getMessage());
            Optional<Segment> opened = pool.open("signal-7");
            assertTrue(opened.isPresent());
            try (Segment again = opened.get()) {
                assertEquals(2 * CHUNK + 1, again.size());
                assertEquals(7, again.getLong(CHUNK));
                assertTrue(pool.delete("signal-7"));
                assertFalse(pool.delete("signal-7"));
                assertEquals(Set.of(), pool.segmentNames());
                assertEquals(3, pool.usedChunks(), "an open handle keeps deleted memory alive");
                assertEquals(7, again.getLong(CHUNK));
            }
            assertEquals(0, pool.usedChunks());
            assertTrue(pool.open("signal-7").isEmpty());
            assertThrows(FerriteException.class, () -> pool.allocate("", 1));
            assertThrows(FerriteException.class, () -> pool.allocate((String) null, 1));
            assertThrows(FerriteException.class, () -> pool.allocate("x".repeat(256), 1));
        }
    }

    /** Closing a pool closes its segments; a closed pool refuses work and a second close is a no-op. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void closingThePoolClosesSegments(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK)) {
            ChunkPool pool = tp.pool();
            Segment s = pool.allocate(CHUNK);
            Segment named = pool.allocate("n", CHUNK);
            pool.close();
            assertTrue(pool.isClosed());
            assertTrue(s.isClosed());
            assertTrue(named.isClosed());
            s.close();
            pool.close();
            assertThrows(FerriteException.class, () -> pool.allocate(1));
            assertThrows(FerriteException.class, () -> pool.open("n"));
            assertThrows(FerriteException.class, pool::force);
        }
    }

    /** force() flushes file pools and is harmless elsewhere; recover() of a consistent pool finds nothing. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void forceAndRecover(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK)) {
            ChunkPool pool = tp.pool();
            Segment a = pool.allocate(3 * CHUNK);
            a.putLong(0, 1);
            pool.force();
            RecoveryReport report = pool.recover();
            assertTrue(report.wasClean(), report.toString());
            assertEquals(3, report.ownedChunks());
            assertEquals(13, report.freeChunks());
            assertEquals(0, report.reclaimedChunks());
            a.close();
            assertEquals(16, pool.recover().freeChunks());
        }
    }

    /**
     * Memory is obtained lazily: a pool far larger than what is used costs disk (file) or RAM
     * (shm) only for the pages touched, and its file goes with deletePool.
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void memoryIsObtainedLazily(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        PoolSpec spec = spec(kind, dir).capacity(64L << 30).build();
        Path file = kind == PoolSpec.Kind.FILE ? spec.path() : Path.of("/dev/shm", spec.shmName());
        try (TestPool tp = pool(spec)) {
            assertTrue(Files.exists(file));
            try (Segment s = tp.pool().allocate(9L << 20)) {
                for (long off = 0; off < s.size(); off += 1 << 20) {
                    s.putByte(off, (byte) 1);
                }
                tp.pool().force();
                long used = LargeSegmentContract.diskUsageKiB(file);
                assertTrue(used < 16 * 1024, "a 64 GiB pool with 9 touched pages takes " + used + " KiB");
            }
        }
        assertFalse(Files.exists(file), "deletePool removes the file");
    }

    /** initialSize obtains whole extents up front: the header counts them and the file holds them. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE"})
    default void initialSizeObtainsExtentsUpFront(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(8 * CHUNK)
                .initialSize(9 * CHUNK).build();
        try (TestPool tp = pool(spec)) {
            java.nio.ByteBuffer header = java.nio.ByteBuffer.wrap(Files.readAllBytes(spec.path()))
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            assertEquals(2, header.getInt(dev.ferrite.internal.pool.PoolHeaderLayout.OBTAINED_EXTENTS_OFFSET));
            long dataOffset = header.getLong(dev.ferrite.internal.pool.PoolHeaderLayout.DATA_OFFSET_OFFSET);
            assertTrue(Files.size(spec.path()) >= dataOffset + 16 * CHUNK);
            assertEquals(64, tp.pool().freeChunks());
        }
    }

    /** Creating over an existing file fails unless overwrite is asked for. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void createRefusesExistingFileWithoutOverwrite(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(16 * CHUNK).build();
        try (TestPool tp = pool(spec)) {
            FerriteException e = assertThrows(FerriteException.class, () -> backend().createPool(spec));
            assertTrue(e.getMessage().contains("already exists"), e.getMessage());
            PoolSpec over = (kind == PoolSpec.Kind.FILE ? PoolSpec.file(spec.path()) : PoolSpec.shm(spec.shmName()))
                    .chunkSize(CHUNK).capacity(16 * CHUNK).overwrite(true).build();
            try (ChunkPool replaced = backend().createPool(over)) {
                assertEquals(16, replaced.freeChunks());
            }
            assertEquals(16, tp.pool().freeChunks(), "the first pool keeps working on its own mapping");
        }
    }

    /** The backend reports itself consistently. */
    @Test
    default void backendDescribesItself() {
        assertTrue(backend().isAvailable(), backend().unavailableReason());
        assertEquals("", backend().unavailableReason());
        assertEquals(backend().name(), backend().name().toLowerCase(java.util.Locale.ROOT));
        assertTrue(backend().supports(PoolSpec.Kind.ANONYMOUS));
    }

    /** A kind the backend does not support is refused with the kinds it does. */
    @Test
    default void unsupportedKindsAreRefused(@TempDir Path dir) {
        for (PoolSpec.Kind kind : PoolSpec.Kind.values()) {
            if (!backend().supports(kind)) {
                PoolSpec spec = kind == PoolSpec.Kind.FILE ? PoolSpec.file(dir.resolve("x")).build()
                        : PoolSpec.shm("ferrite-unsupported").build();
                FerriteException e = assertThrows(FerriteException.class, () -> backend().createPool(spec));
                assertTrue(e.getMessage().contains(backend().name()), e.getMessage());
            }
        }
    }
}
