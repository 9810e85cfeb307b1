package dev.ferrite.bench;

import dev.ferrite.ChunkPool;
import dev.ferrite.Segment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Seed 001's store of 1 KiB chunks: put and get of one 1 KiB chunk at a pseudo-random slot of a
 * store of {@code slots} chunks held in one segment. Score: ns per chunk.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ChunkStore {

    static final int CHUNK = 1024;

    @Param({"unsafe", "bytebuffer", "ffm", "shm"})
    public String backend;

    @Param({"1000000"})
    public int slots;

    private ChunkPool pool;
    private Segment store;
    private final byte[] in = new byte[CHUNK];
    private final byte[] out = new byte[CHUNK];
    private int[] order;
    private int next;

    static int[] order(int slots) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
        int[] o = new int[1 << 16];
        for (int i = 0; i < o.length; i++) {
            o[i] = rnd.nextInt(slots);
        }
        return o;
    }

    @Setup
    public void setup() {
        pool = Pools.anonymous(backend, (long) slots * CHUNK);
        store = pool.allocate((long) slots * CHUNK);
        store.fill(0, store.size(), (byte) 1);
        order = order(slots);
        java.util.Arrays.fill(in, (byte) 7);
    }

    @TearDown
    public void tearDown() {
        pool.close();
    }

    private long nextSlot() {
        int i = next++ & (order.length - 1);
        return (long) order[i] * CHUNK;
    }

    @Benchmark
    public void put() {
        store.copyFrom(in, 0, nextSlot(), CHUNK);
    }

    @Benchmark
    public byte[] get() {
        store.copyTo(nextSlot(), out, 0, CHUNK);
        return out;
    }
}
