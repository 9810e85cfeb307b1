package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ferrite.PoolSpec;
import dev.ferrite.Region;
import dev.ferrite.Segment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Long random sequences of segment operations checked against a {@code byte[]} reference model:
 * typed writes and reads at any offset (biased towards chunk boundaries), bulk copies, fills,
 * overlapping moves, atomics and region writes. A failure names the seed and step to replay.
 */
public interface ModelPropertyContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 4096;
    /** Operations per sequence. */
    int STEPS = 20_000;

    /** Random operation sequences keep the segment equal to the model. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void randomOperationsMatchByteArrayModel(PoolSpec.Kind kind, @TempDir Path dir) {
        for (long seed : new long[] {1, 2, 3, System.nanoTime()}) {
            try (TestPool tp = pool(kind, dir, CHUNK, 32 * CHUNK)) {
                runSequence(tp, seed);
            }
        }
    }

    private void runSequence(TestPool tp, long seed) {
        Random rnd = new Random(seed);
        int size = (int) (CHUNK * (2 + rnd.nextInt(5)) + rnd.nextInt((int) CHUNK));
        byte[] model = new byte[size];
        ByteBuffer m = ByteBuffer.wrap(model).order(ByteOrder.LITTLE_ENDIAN);
        // Odd seeds use a segment of scattered chunks (the chunk-table path), even ones a fresh,
        // contiguous segment (the direct path).
        try (Segment s = (seed & 1) == 1 ? fragmented(tp.pool(), size) : tp.pool().allocate(size)) {
            s.fill(0, size, (byte) 0);
            for (int step = 0; step < STEPS; step++) {
                String where = "seed " + seed + " step " + step;
                int op = rnd.nextInt(12);
                int width = op < 4 ? 1 << op : 8;
                int off = offset(rnd, size, width);
                switch (op) {
                    case 0:
                        byte b = (byte) rnd.nextInt();
                        s.putByte(off, b);
                        model[off] = b;
                        break;
                    case 1:
                        short sh = (short) rnd.nextInt();
                        s.putShort(off, sh);
                        m.putShort(off, sh);
                        break;
                    case 2:
                        int i = rnd.nextInt();
                        s.putInt(off, i);
                        m.putInt(off, i);
                        break;
                    case 3:
                        long l = rnd.nextLong();
                        s.putLong(off, l);
                        m.putLong(off, l);
                        break;
                    case 4:
                        double d = rnd.nextDouble();
                        s.putDouble(off, d);
                        m.putDouble(off, d);
                        break;
                    case 5: {
                        int len = rnd.nextInt(Math.min(size - off, 3 * (int) CHUNK) + 1);
                        byte[] src = new byte[len];
                        rnd.nextBytes(src);
                        s.copyFrom(src, 0, off, len);
                        System.arraycopy(src, 0, model, off, len);
                        break;
                    }
                    case 6: {
                        int len = rnd.nextInt(Math.min(size - off, 2 * (int) CHUNK) + 1);
                        // Zero half the time: backends may clear memory another way than they fill it.
                        byte v = rnd.nextBoolean() ? 0 : (byte) rnd.nextInt();
                        s.fill(off, len, v);
                        java.util.Arrays.fill(model, off, off + len, v);
                        break;
                    }
                    case 7: {
                        int len = rnd.nextInt(Math.min(size - off, 2 * (int) CHUNK) + 1);
                        int to = rnd.nextInt(size - len + 1);
                        s.copyTo(off, s, to, len);
                        System.arraycopy(model, off, model, to, len);
                        break;
                    }
                    case 8: {
                        int aligned = off & ~7;
                        long expect = m.getLong(aligned);
                        long update = rnd.nextLong();
                        boolean hit = rnd.nextBoolean();
                        boolean swapped = s.compareAndSetLong(aligned, hit ? expect : expect + 1, update);
                        assertEquals(hit, swapped, where);
                        if (hit) {
                            m.putLong(aligned, update);
                        }
                        break;
                    }
                    case 9: {
                        int aligned = off & ~3;
                        int delta = rnd.nextInt();
                        assertEquals(m.getInt(aligned), s.getAndAddInt(aligned, delta), where);
                        m.putInt(aligned, m.getInt(aligned) + delta);
                        break;
                    }
                    case 10: {
                        int len = rnd.nextInt(Math.min(size - off, 2 * (int) CHUNK) + 1);
                        long v = rnd.nextLong();
                        for (Region r : s.regions(off, len)) {
                            int start = (int) (r.segmentOffset() - off);
                            for (int k = 0; k < r.length(); k++) {
                                byte x = (byte) (v >>> ((start + k) & 63));
                                r.putByte(k, x);
                                model[(int) r.segmentOffset() + k] = x;
                            }
                        }
                        break;
                    }
                    default: {
                        int len = rnd.nextInt(Math.min(size - off, 3 * (int) CHUNK) + 1);
                        byte[] out = new byte[len];
                        s.copyTo(off, out, 0, len);
                        assertArrayEquals(java.util.Arrays.copyOfRange(model, off, off + len), out, where);
                    }
                }
                int probe = offset(rnd, size, 8);
                assertEquals(m.getLong(probe), s.getLong(probe), where + " probe long at " + probe);
                assertEquals(m.getShort(probe), s.getShort(probe), where + " probe short at " + probe);
            }
            byte[] all = new byte[size];
            s.copyTo(0, all, 0, size);
            assertArrayEquals(model, all, "seed " + seed + " final content");
        }
    }

    // Half the offsets fall within 9 bytes of a chunk boundary, where straddling happens.
    private static int offset(Random rnd, int size, int width) {
        if (rnd.nextBoolean()) {
            int boundaries = (int) ((size - 1) / CHUNK);
            if (boundaries > 0) {
                int o = (int) (CHUNK * (1 + rnd.nextInt(boundaries))) - 9 + rnd.nextInt(10);
                if (o >= 0 && o + width <= size) {
                    return o;
                }
            }
        }
        return rnd.nextInt(size - width + 1);
    }
}
