package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.OutOfBoundsException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Region;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import dev.ferrite.internal.AbstractSegment;
import dev.ferrite.internal.UncheckedAccess;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bulk operations of {@link Segment} across chunk boundaries: copies to and from arrays, buffers
 * and segments (overlapping too), fill, and the per-chunk {@link Region}s.
 */
public interface BulkContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 4096;

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Allocates {@code n} chunks and frees every other one: the pool's next segments are scattered. */
    private static void leaveHoles(TestPool tp, int n) {
        List<Segment> spacers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            spacers.add(tp.pool().allocate(CHUNK));
        }
        for (int i = 0; i < n; i += 2) {
            spacers.get(i).close();
        }
    }

    private static byte[] read(Segment s) {
        byte[] out = new byte[(int) s.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = s.getByte(i);
        }
        return out;
    }

    /** Byte copies at odd offsets spanning several chunks land byte for byte. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void byteArrayCopiesSpanChunks(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 32 * CHUNK); Segment s = tp.pool().allocate(5 * CHUNK + 3)) {
            byte[] model = new byte[(int) s.size()];
            s.fill(0, s.size(), (byte) 0);
            byte[] src = randomBytes(3 * (int) CHUNK + 77, 1);
            s.copyFrom(src, 5, CHUNK - 3, src.length - 10);
            System.arraycopy(src, 5, model, (int) CHUNK - 3, src.length - 10);
            assertArrayEquals(model, read(s));
            byte[] back = new byte[src.length];
            s.copyTo(CHUNK - 3, back, 5, src.length - 10);
            for (int i = 5; i < src.length - 5; i++) {
                assertEquals(src[i], back[i], "byte " + i);
            }
            assertThrows(OutOfBoundsException.class, () -> s.copyTo(s.size() - 2, new byte[8], 0, 3));
            assertThrows(OutOfBoundsException.class, () -> s.copyFrom(new byte[8], 6, 0, 3));
            assertThrows(OutOfBoundsException.class, () -> s.copyTo(-1, new byte[8], 0, 1));
            assertThrows(OutOfBoundsException.class, () -> s.copyFrom(new byte[8], 0, 0, -1));
        }
    }

    /**
     * Short byte copies (where backends may copy word by word) of every length from 0 to 80 bytes,
     * from several array offsets, to offsets up to and across a chunk boundary, land byte for byte
     * and leave their neighbours alone, both ways.
     */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void shortByteCopiesOfEveryLength(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 8 * CHUNK); Segment s = tp.pool().allocate(2 * CHUNK)) {
            byte[] model = randomBytes((int) s.size(), 7);
            s.copyFrom(model, 0, 0, model.length);
            Random rnd = new Random(8);
            for (int len = 0; len <= 80; len++) {
                for (int srcOff = 0; srcOff < 4; srcOff++) {
                    for (long at : new long[] {0, 3, CHUNK - 96, CHUNK - len, CHUNK - len + 5, CHUNK - 1 - len / 2, 2 * CHUNK - len}) {
                        byte[] src = randomBytes(len + 4, rnd.nextLong());
                        s.copyFrom(src, srcOff, at, len);
                        System.arraycopy(src, srcOff, model, (int) at, len);
                        String where = "length " + len + ", array offset " + srcOff + ", segment offset " + at;
                        for (long i = Math.max(0, at - 8); i < Math.min(s.size(), at + len + 8); i++) {
                            assertEquals(model[(int) i], s.getByte(i), where + ", byte " + i);
                        }
                        byte[] back = new byte[len + 4];
                        s.copyTo(at, back, srcOff, len);
                        for (int i = 0; i < back.length; i++) {
                            assertEquals(i >= srcOff && i < srcOff + len ? src[i] : 0, back[i], where + ", copied back, byte " + i);
                        }
                    }
                }
            }
            assertArrayEquals(model, read(s));
        }
    }

    /** Double and long copies work whether or not elements straddle chunk boundaries. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void typedArrayCopiesSpanChunks(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 32 * CHUNK); Segment s = tp.pool().allocate(5 * CHUNK)) {
            for (long start : new long[] {0, 3, CHUNK - 4, 2 * CHUNK - 8}) {
                double[] d = new double[1200];
                long[] l = new long[1200];
                for (int i = 0; i < d.length; i++) {
                    d[i] = i * 1.25 - start;
                    l[i] = i * 0x0101010101L + start;
                }
                s.copyFrom(d, 100, start, 1000);
                for (int i = 0; i < 1000; i++) {
                    assertEquals(d[100 + i], s.getDouble(start + 8L * i), "double " + i + " from " + start);
                }
                double[] dBack = new double[1200];
                s.copyTo(start, dBack, 200, 1000);
                for (int i = 0; i < 1000; i++) {
                    assertEquals(d[100 + i], dBack[200 + i]);
                }
                s.copyFrom(l, 0, start, 1100);
                long[] lBack = new long[1100];
                s.copyTo(start, lBack, 0, 1100);
                for (int i = 0; i < 1100; i++) {
                    assertEquals(l[i], lBack[i]);
                    assertEquals(l[i], s.getLong(start + 8L * i));
                }
            }
            assertThrows(OutOfBoundsException.class, () -> s.copyFrom(new double[10], 0, s.size() - 72, 10));
            assertThrows(OutOfBoundsException.class, () -> s.copyTo(0, new long[10], 5, 6));
        }
    }

    /** Heap and direct buffers copy in and out, advancing their positions. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void byteBufferCopies(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 32 * CHUNK); Segment s = tp.pool().allocate(4 * CHUNK)) {
            byte[] data = randomBytes(2 * (int) CHUNK + 11, 2);
            for (ByteBuffer src : new ByteBuffer[] {ByteBuffer.wrap(data), ByteBuffer.allocateDirect(data.length)}) {
                if (src.isDirect()) {
                    src.put(data).flip();
                }
                src.position(3);
                s.copyFrom(src, CHUNK - 100);
                assertEquals(data.length, src.position());
                for (int i = 3; i < data.length; i++) {
                    assertEquals(data[i], s.getByte(CHUNK - 100 + i - 3));
                }
                ByteBuffer dst = src.isDirect() ? ByteBuffer.allocateDirect(data.length) : ByteBuffer.allocate(data.length);
                dst.position(3);
                s.copyTo(CHUNK - 100, dst);
                assertEquals(data.length, dst.position());
                dst.flip().position(3);
                assertEquals(ByteBuffer.wrap(data, 3, data.length - 3), dst);
            }
            assertThrows(OutOfBoundsException.class, () -> s.copyTo(s.size() - 1, ByteBuffer.allocate(2)));
        }
    }

    /** Segment-to-segment copies, including overlapping ones within a segment in both directions. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void segmentCopiesIncludingOverlap(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 64 * CHUNK);
             Segment a = tp.pool().allocate(6 * CHUNK + 5);
             Segment b = tp.pool().allocate(6 * CHUNK + 5)) {
            byte[] model = randomBytes((int) a.size(), 3);
            a.copyFrom(model, 0, 0, model.length);
            b.fill(0, b.size(), (byte) 0);
            a.copyTo(7, b, CHUNK + 1, 3 * CHUNK);
            byte[] expectedB = new byte[(int) b.size()];
            System.arraycopy(model, 7, expectedB, (int) CHUNK + 1, 3 * (int) CHUNK);
            assertArrayEquals(expectedB, read(b));

            for (long[] move : new long[][] {{10, CHUNK + 500, 3 * CHUNK}, {2 * CHUNK + 9, 3, 3 * CHUNK}, {0, 1, 5 * CHUNK}}) {
                a.copyTo(move[0], a, move[1], move[2]);
                System.arraycopy(model, (int) move[0], model, (int) move[1], (int) move[2]);
                assertArrayEquals(model, read(a), "overlapping move " + move[0] + " -> " + move[1]);
            }
            assertThrows(OutOfBoundsException.class, () -> a.copyTo(0, b, b.size() - 3, 4));
        }
    }

    /** Fill sets exactly the range, across chunks. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void fillSetsExactlyTheRange(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 32 * CHUNK); Segment s = tp.pool().allocate(4 * CHUNK)) {
            s.fill(0, s.size(), (byte) 1);
            s.fill(CHUNK - 13, 2 * CHUNK + 26, (byte) -3);
            for (long i = 0; i < s.size(); i++) {
                boolean inside = i >= CHUNK - 13 && i < 3 * CHUNK + 13;
                assertEquals(inside ? (byte) -3 : (byte) 1, s.getByte(i), "byte " + i);
            }
            assertThrows(OutOfBoundsException.class, () -> s.fill(1, s.size(), (byte) 0));
        }
    }

    /**
     * Regions cover the range in order, one per chunk touched, and read and write the segment's
     * bytes through typed accessors, bulk copies and {@code asByteBuffer()}.
     */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void regionsCoverTheRangeChunkByChunk(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, CHUNK, 32 * CHUNK); Segment s = tp.pool().allocate(5 * CHUNK)) {
            long off = CHUNK - 16;
            long len = 3 * CHUNK + 32;
            List<Region> regions = new ArrayList<>();
            s.regions(off, len).forEach(regions::add);
            assertEquals(5, regions.size());
            long expectedStart = off;
            for (Region r : regions) {
                assertEquals(expectedStart, r.segmentOffset());
                expectedStart += r.length();
            }
            assertEquals(off + len, expectedStart);
            assertEquals(16, regions.get(0).length());
            assertEquals(16, regions.get(4).length());

            for (Region r : s.regions(0, s.size())) {
                for (int i = 0; i + 8 <= r.length(); i += 8) {
                    r.putDouble(i, r.segmentOffset() + i);
                }
            }
            for (long i = 0; i < s.size(); i += 8) {
                assertEquals((double) i, s.getDouble(i));
            }
            Region second = s.regions(CHUNK, CHUNK).iterator().next();
            second.putLong(8, 99);
            second.putInt(16, -5);
            second.putByte(20, (byte) 7);
            assertEquals(99, s.getLong(CHUNK + 8));
            assertEquals(99, second.getLong(8));
            assertEquals(-5, second.getInt(16));
            assertEquals(7, second.getByte(20));
            ByteBuffer bb = second.asByteBuffer();
            assertEquals(ByteOrder.LITTLE_ENDIAN, bb.order());
            assertEquals(CHUNK, bb.remaining());
            assertEquals(99, bb.getLong(8));
            bb.putLong(24, 1234);
            assertEquals(1234, s.getLong(CHUNK + 24));

            byte[] bytes = randomBytes(100, 4);
            second.copyFrom(bytes, 0, 200, 100);
            byte[] back = new byte[100];
            second.copyTo(200, back, 0, 100);
            assertArrayEquals(bytes, back);
            double[] ds = {1.5, 2.5, 3.5};
            second.copyFrom(ds, 0, 400, 3);
            double[] dBack = new double[3];
            second.copyTo(400, dBack, 0, 3);
            assertArrayEquals(ds, dBack);
            long[] ls = {-1, 0, 1};
            second.copyFrom(ls, 0, 600, 3);
            long[] lBack = new long[3];
            second.copyTo(600, lBack, 0, 3);
            assertArrayEquals(ls, lBack);
            Region first = s.regions(0, CHUNK).iterator().next();
            second.copyTo(200, first, 0, 100);
            first.copyTo(0, back, 0, 100);
            assertArrayEquals(bytes, back);
            second.fill(0, 8, (byte) 0x11);
            assertEquals(0x1111111111111111L, s.getLong(CHUNK));

            if (backend().isChecked()) {
                assertThrows(OutOfBoundsException.class, () -> second.getLong((int) CHUNK - 7));
                assertThrows(OutOfBoundsException.class, () -> second.putByte(-1, (byte) 0));
            }
            assertThrows(OutOfBoundsException.class, () -> second.copyTo((int) CHUNK - 10, new byte[20], 0, 20));
            assertThrows(OutOfBoundsException.class, () -> s.regions(s.size() - 1, 2));
            assertTrue(s.regions(s.size(), 0).iterator().hasNext() == false);
        }
    }

    /** Copies between segments of different pools of this backend and of another kind work. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void copiesBetweenPools(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool small = pool(kind, dir, CHUNK, 16 * CHUNK);
             TestPool big = pool(PoolSpec.Kind.ANONYMOUS, dir, 4 * CHUNK, 16 * CHUNK);
             Segment a = small.pool().allocate(5 * CHUNK);
             Segment b = big.pool().allocate(5 * CHUNK)) {
            byte[] data = randomBytes((int) a.size(), 5);
            a.copyFrom(data, 0, 0, data.length);
            a.copyTo(0, b, 0, a.size());
            byte[] back = new byte[data.length];
            b.copyTo(0, back, 0, back.length);
            assertArrayEquals(data, back);
            b.fill(0, b.size(), (byte) 9);
            b.copyTo(CHUNK + 3, a, 5, 3 * CHUNK);
            assertEquals((byte) 9, a.getByte(5));
            assertEquals((byte) 9, a.getByte(3 * CHUNK + 4));
            assertEquals(data[3 * (int) CHUNK + 5], a.getByte(3 * CHUNK + 5));
        }
    }

    /**
     * {@code hash64} and {@code mismatch} read bytes in place, across chunk boundaries, on a
     * contiguous and on a scattered segment: the hash equals XXH64 of the same bytes in an array,
     * and mismatch finds exactly the byte changed.
     */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void hashAndMismatchReadInPlaceAcrossChunks(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(8 * CHUNK).build())) {
            leaveHoles(tp, 12);
            try (Segment scattered = tp.pool().allocate(6 * CHUNK); Segment plain = tp.pool().allocate(6 * CHUNK)) {
                Random r = new Random(11);
                byte[] model = randomBytes((int) (6 * CHUNK), 3);
                scattered.copyFrom(model, 0, 0, model.length);
                plain.copyFrom(model, 0, 0, model.length);
                for (int round = 0; round < 400; round++) {
                    int len = round < 100 ? round : r.nextInt(3 * (int) CHUNK);
                    int off = round % 50 == 0 ? (int) CHUNK - len / 2 : r.nextInt(model.length - len + 1);
                    off = Math.max(0, Math.min(off, model.length - len));
                    long expected = dev.ferrite.internal.XxHash64.hash(model, off, len);
                    assertEquals(expected, scattered.hash64(off, len), "hash of [" + off + ", +" + len + ") scattered");
                    assertEquals(expected, plain.hash64(off, len), "hash of [" + off + ", +" + len + ") contiguous");
                    assertEquals(-1, scattered.mismatch(off, model, off, len));
                    assertEquals(-1, scattered.mismatch(off, plain, off, len));
                    if (len > 0) {
                        int at = r.nextInt(len);
                        byte[] changed = model.clone();
                        changed[off + at] ^= (byte) (1 << r.nextInt(8));
                        assertEquals(at, scattered.mismatch(off, changed, off, len), "first difference");
                        plain.putByte(off + at, changed[off + at]);
                        assertEquals(at, scattered.mismatch(off, plain, off, len), "first difference, segments");
                        assertEquals(at, plain.mismatch(off, scattered, off, len));
                        assertTrue(plain.hash64(off, len) != expected || len == 0, "one bit changes the hash");
                        plain.putByte(off + at, model[off + at]);
                    }
                }
                assertThrows(OutOfBoundsException.class, () -> plain.hash64(1, plain.size()));
                assertThrows(OutOfBoundsException.class, () -> plain.mismatch(0, new byte[4], 1, 4));
                assertThrows(OutOfBoundsException.class, () -> plain.mismatch(0, scattered, scattered.size(), 1));
            }
        }
    }

    /**
     * The loads of {@code UncheckedAccess} (the map's read path) read what the checked accesses
     * read, at every offset around chunk boundaries, on a contiguous and on a scattered segment;
     * its open check fails once the handle, or its pool, is closed.
     */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void uncheckedLoadsReadWhatCheckedLoadsRead(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(8 * CHUNK).build())) {
            leaveHoles(tp, 8);
            Segment scattered = tp.pool().allocate(4 * CHUNK);
            Segment plain = tp.pool().allocate(4 * CHUNK);
            byte[] model = randomBytes((int) (4 * CHUNK), 5);
            Random r = new Random(6);
            for (Segment s : List.of(scattered, plain)) {
                s.copyFrom(model, 0, 0, model.length);
                AbstractSegment u = UncheckedAccess.of(s);
                UncheckedAccess.checkOpen(u);
                assertTrue(UncheckedAccess.isOpen(u));
                for (long chunk = 1; chunk < 4; chunk++) {
                    for (long off = chunk * CHUNK - 16; off < chunk * CHUNK + 16; off++) {
                        assertEquals(s.getLong(off), UncheckedAccess.getLong(u, off), "long at " + off);
                        assertEquals(s.getInt(off), UncheckedAccess.getInt(u, off), "int at " + off);
                        if (off % 8 == 0) {
                            assertEquals(s.getLongVolatile(off), UncheckedAccess.getLongVolatile(u, off));
                        }
                        int len = r.nextInt(40);
                        byte[] other = Arrays.copyOfRange(model, (int) off, (int) off + len);
                        if (len > 0 && r.nextBoolean()) {
                            other[r.nextInt(len)] ^= 1;
                        }
                        assertEquals(s.mismatch(off, other, 0, len), UncheckedAccess.mismatch(u, off, other, 0, len),
                                "mismatch of [" + off + ", +" + len + ")");
                    }
                }
            }
            scattered.close();
            assertTrue(!UncheckedAccess.isOpen(UncheckedAccess.of(scattered)));
            assertThrows(SegmentClosedException.class,
                    () -> UncheckedAccess.checkOpen(UncheckedAccess.of(scattered)));
            tp.pool().close();
            assertThrows(SegmentClosedException.class,
                    () -> UncheckedAccess.checkOpen(UncheckedAccess.of(plain)));
        }
    }
}
