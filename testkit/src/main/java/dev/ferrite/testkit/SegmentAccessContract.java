package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.DoubleArray;
import dev.ferrite.IntArray;
import dev.ferrite.LongArray;
import dev.ferrite.MisalignedAccessException;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Typed, volatile and atomic accesses of {@link Segment}, at the edges: first and last byte, every
 * offset around a chunk boundary (values that straddle two chunks), alignment, and the errors of
 * checked backends.
 */
public interface SegmentAccessContract extends BackendFixture {

    /** Chunk size of these tests: the smallest, so boundaries are many and cheap. */
    long CHUNK = 4096;

    private static long pattern(long off, int width) {
        long v = 0x9E3779B97F4A7C15L * (off + 1) ^ (width * 0x1234567L);
        return width == 8 ? v : v & ((1L << (8 * width)) - 1);
    }

    private static long littleEndianAt(Segment s, long off, int width) {
        long v = 0;
        for (int i = width - 1; i >= 0; i--) {
            v = (v << 8) | (s.getByte(off + i) & 0xFF);
        }
        return v;
    }

    private static List<Long> offsetsAroundBoundaries(long size, int width) {
        List<Long> offs = new ArrayList<>();
        offs.add(0L);
        offs.add(size - width);
        for (long boundary = CHUNK; boundary < size; boundary += CHUNK) {
            for (long o = boundary - 9; o <= boundary + 1; o++) {
                if (o >= 0 && o + width <= size) {
                    offs.add(o);
                }
            }
        }
        return offs;
    }

    /**
     * Every typed value written at every offset around chunk boundaries reads back, is laid out
     * little-endian, and leaves its neighbours alone.
     */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void typedValuesRoundTripAcrossChunkBoundaries(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 64 * CHUNK); Segment contiguous = tp.pool().allocate(3 * CHUNK + 100);
             Segment scattered = fragmented(tp.pool(), 3 * CHUNK + 100)) {
            roundTripAcrossChunkBoundaries(contiguous);
            roundTripAcrossChunkBoundaries(scattered);
        }
    }

    private static void roundTripAcrossChunkBoundaries(Segment s) {
        {
            for (int width : new int[] {1, 2, 4, 8}) {
                for (long off : offsetsAroundBoundaries(s.size(), width)) {
                    s.fill(Math.max(0, off - 8), Math.min(s.size(), off + width + 8) - Math.max(0, off - 8), (byte) 0x5A);
                    long v = pattern(off, width);
                    switch (width) {
                        case 1:
                            s.putByte(off, (byte) v);
                            assertEquals((byte) v, s.getByte(off));
                            break;
                        case 2:
                            s.putShort(off, (short) v);
                            assertEquals((short) v, s.getShort(off), "short at " + off);
                            assertEquals((char) v, s.getChar(off));
                            s.putChar(off, (char) v);
                            break;
                        case 4:
                            s.putInt(off, (int) v);
                            assertEquals((int) v, s.getInt(off), "int at " + off);
                            assertEquals(Float.intBitsToFloat((int) v), s.getFloat(off), 0f);
                            s.putFloat(off, Float.intBitsToFloat((int) v));
                            assertEquals((int) v, s.getInt(off));
                            break;
                        default:
                            s.putLong(off, v);
                            assertEquals(v, s.getLong(off), "long at " + off);
                            s.putDouble(off, Double.longBitsToDouble(v));
                            assertEquals(Double.doubleToRawLongBits(Double.longBitsToDouble(v)),
                                    Double.doubleToRawLongBits(s.getDouble(off)), "double at " + off);
                            s.putLong(off, v);
                    }
                    assertEquals(v, littleEndianAt(s, off, width), "little-endian layout at " + off);
                    if (off > 0) {
                        assertEquals((byte) 0x5A, s.getByte(off - 1), "byte before " + off);
                    }
                    if (off + width < s.size()) {
                        assertEquals((byte) 0x5A, s.getByte(off + width), "byte after " + off);
                    }
                }
            }
        }
    }

    /** Volatile, ordered and atomic accesses work at aligned offsets, up to the last slot of a chunk. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void atomicAccessesAtAlignedOffsets(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK); Segment s = tp.pool().allocate(2 * CHUNK)) {
            for (long off : new long[] {0, CHUNK - 8, CHUNK, 2 * CHUNK - 8}) {
                s.putLongVolatile(off, 41);
                assertEquals(41, s.getLongVolatile(off));
                assertFalse(s.compareAndSetLong(off, 40, 50));
                assertTrue(s.compareAndSetLong(off, 41, 42));
                assertEquals(42, s.getAndAddLong(off, 8));
                s.putLongOrdered(off, s.getLongVolatile(off) + 1);
                assertEquals(51, s.getLong(off));

                s.putIntVolatile(off + 4, -7);
                assertEquals(-7, s.getIntVolatile(off + 4));
                assertFalse(s.compareAndSetInt(off + 4, 7, 8));
                assertTrue(s.compareAndSetInt(off + 4, -7, 9));
                assertEquals(9, s.getAndAddInt(off + 4, -10));
                s.putIntOrdered(off + 4, s.getIntVolatile(off + 4) * 2);
                assertEquals(-2, s.getInt(off + 4));
            }
        }
    }

    /** Misaligned atomic accesses are refused, naming the offset and the alignment. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void misalignedAtomicsAreRefused(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK); Segment s = tp.pool().allocate(2 * CHUNK)) {
            MisalignedAccessException e = assertThrows(MisalignedAccessException.class,
                    () -> s.compareAndSetLong(CHUNK - 4, 0, 1));
            assertTrue(e.getMessage().contains(String.valueOf(CHUNK - 4)) && e.getMessage().contains("8"), e.getMessage());
            assertThrows(MisalignedAccessException.class, () -> s.getAndAddInt(2, 1));
            assertThrows(MisalignedAccessException.class, () -> s.putLongOrdered(12, 1));
            assertThrows(MisalignedAccessException.class, () -> s.getIntVolatile(1));
        }
    }

    /** Atomic adds from several threads lose no update. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void atomicAddsFromManyThreadsLoseNothing(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        int threads = 4;
        int adds = 50_000;
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK); Segment s = tp.pool().allocate(CHUNK)) {
            s.putLongVolatile(64, 0);
            s.putIntVolatile(128, 0);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < adds; i++) {
                        s.getAndAddLong(64, 1);
                        int seen;
                        do {
                            seen = s.getIntVolatile(128);
                        } while (!s.compareAndSetInt(128, seen, seen + 1));
                    }
                });
                w.start();
                workers.add(w);
            }
            start.countDown();
            for (Thread w : workers) {
                w.join();
            }
            assertEquals((long) threads * adds, s.getLongVolatile(64));
            assertEquals(threads * adds, s.getIntVolatile(128));
        }
    }

    /** Checked backends refuse offsets outside the segment, naming the offset and the size. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void checkedBackendsRefuseOffsetsOutside(PoolSpec.Kind kind, @TempDir Path dir) {
        assumeTrue(backend().isChecked(), "backend does not check offsets");
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK); Segment s = tp.pool().allocate(CHUNK + 10)) {
            long size = s.size();
            OutOfBoundsException e = assertThrows(OutOfBoundsException.class, () -> s.getLong(size - 7));
            assertTrue(e.getMessage().contains(String.valueOf(size - 7)) && e.getMessage().contains(String.valueOf(size)),
                    e.getMessage());
            assertThrows(OutOfBoundsException.class, () -> s.getByte(-1));
            assertThrows(OutOfBoundsException.class, () -> s.putByte(size, (byte) 1));
            assertThrows(OutOfBoundsException.class, () -> s.getInt(Long.MAX_VALUE));
            assertThrows(OutOfBoundsException.class, () -> s.putDouble(Long.MIN_VALUE, 1));
            assertThrows(OutOfBoundsException.class, () -> s.getShort(size - 1));
            assertThrows(OutOfBoundsException.class, () -> s.getLongVolatile(size + 6));
            // Slack after the last byte lies inside the last chunk: still refused.
            assertThrows(OutOfBoundsException.class, () -> s.putLong(CHUNK + 16, 1));
            s.putLong(size - 8, 3);
            assertEquals(3, s.getLong(size - 8));
        }
    }

    /** Checked backends refuse accesses through a closed handle, and through handles of a closed pool. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void checkedBackendsRefuseClosedHandles(PoolSpec.Kind kind, @TempDir Path dir) {
        assumeTrue(backend().isChecked(), "backend does not check closed handles");
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK)) {
            Segment s = tp.pool().allocate(CHUNK);
            Segment other = s.retain();
            s.close();
            assertThrows(SegmentClosedException.class, () -> s.getLong(0));
            assertThrows(SegmentClosedException.class, () -> s.putByte(0, (byte) 1));
            assertThrows(SegmentClosedException.class, () -> s.compareAndSetInt(0, 0, 1));
            assertThrows(SegmentClosedException.class, s::retain);
            other.putLong(0, 5);
            assertEquals(5, other.getLong(0));
            tp.pool().close();
            assertTrue(other.isClosed());
            assertThrows(SegmentClosedException.class, () -> other.getLong(0));
        }
    }

    /** The typed views index whole elements and map element i to byte offset width * i. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void typedViewsMapIndicesToOffsets(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK); Segment s = tp.pool().allocate(2 * CHUNK + 12)) {
            DoubleArray d = s.asDoubles();
            LongArray l = s.asLongs();
            IntArray i = s.asInts();
            assertEquals((2 * CHUNK + 12) / 8, d.length());
            assertEquals((2 * CHUNK + 12) / 8, l.length());
            assertEquals((2 * CHUNK + 12) / 4, i.length());
            for (long k = 0; k < d.length(); k++) {
                d.set(k, k * 0.5);
            }
            for (long k = 0; k < d.length(); k++) {
                assertEquals(k * 0.5, s.getDouble(8 * k));
                assertEquals(Double.doubleToRawLongBits(k * 0.5), l.get(k));
            }
            l.set(l.length() - 1, -1L);
            assertEquals(-1, i.get(i.length() - 2 - 1));
            i.set(i.length() - 1, 77);
            assertEquals(77, s.getInt(s.size() - 4));
            if (backend().isChecked()) {
                assertThrows(OutOfBoundsException.class, () -> d.get(d.length()));
                assertThrows(OutOfBoundsException.class, () -> l.set(-1, 0));
                // An index whose byte offset would wrap around to a valid one.
                assertThrows(OutOfBoundsException.class, () -> d.get(1L << 61));
            }
        }
    }

    /** A zero-length segment holds no chunk and has no valid offset. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void zeroLengthSegment(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK)) {
            ChunkPool pool = tp.pool();
            try (Segment s = pool.allocate(0)) {
                assertEquals(0, s.size());
                assertEquals(0, pool.usedChunks());
                assertFalse(s.regions(0, 0).iterator().hasNext());
                s.copyFrom(new byte[0], 0, 0, 0);
                s.fill(0, 0, (byte) 1);
                assertEquals(0, s.asDoubles().length());
                if (backend().isChecked()) {
                    assertThrows(OutOfBoundsException.class, () -> s.getByte(0));
                }
            }
            assertEquals(16, pool.freeChunks());
        }
    }
}
