package dev.ferrite.bench;

import dev.ferrite.ChunkPool;
import dev.ferrite.DoubleArray;
import dev.ferrite.Segment;
import java.util.SplittableRandom;
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
 * Seed 000's random access: {@value #READS} reads of doubles at pseudo-random indices of a segment
 * of {@code size} doubles, through the typed view. Score: ns per batch of reads; the report divides
 * by the number of reads.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RandomRead {

    /** Reads per invocation. */
    public static final int READS = 1 << 20;

    @Param({"unsafe", "bytebuffer", "ffm", "shm"})
    public String backend;

    @Param({"16777216"})
    public long size;

    private ChunkPool pool;
    private DoubleArray data;
    private long[] indices;

    static long[] indices(long size) {
        SplittableRandom rnd = new SplittableRandom(42);
        long[] idx = new long[READS];
        for (int i = 0; i < READS; i++) {
            idx[i] = rnd.nextLong(size);
        }
        return idx;
    }

    @Setup
    public void setup() {
        pool = Pools.anonymous(backend, 8 * size + Pools.CHUNK);
        Segment s = pool.allocate(8 * size);
        data = s.asDoubles();
        for (long i = 0; i < size; i++) {
            data.set(i, i);
        }
        indices = indices(size);
    }

    @TearDown
    public void tearDown() {
        pool.close();
    }

    @Benchmark
    public double perElement() {
        DoubleArray d = data;
        long[] idx = indices;
        double sum = 0;
        for (long i : idx) {
            sum += d.get(i);
        }
        return sum;
    }
}
