package dev.ferrite.bench;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
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
 * Allocation churn: with 32 segments live, free the oldest and allocate one of 1 to 64 chunks
 * (64 KiB each). Score: ns per free-and-allocate.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PoolChurn {

    private static final long CHUNK = 64 << 10;
    private static final int LIVE = 32;

    @Param({"unsafe", "bytebuffer", "ffm", "shm"})
    public String backend;

    private ChunkPool pool;
    private final Segment[] ring = new Segment[LIVE];
    private int[] sizes;
    private int next;

    @Setup
    public void setup() {
        pool = Ferrite.backend(backend).createPool(PoolSpec.anonymous().chunkSize(CHUNK).capacity(LIVE * 64 * CHUNK * 2)
                .build());
        SplittableRandom rnd = new SplittableRandom(3);
        sizes = new int[1 << 12];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 1 + rnd.nextInt(64);
        }
        for (int i = 0; i < LIVE; i++) {
            ring[i] = pool.allocate(sizes[i] * CHUNK);
        }
    }

    @TearDown
    public void tearDown() {
        pool.close();
    }

    @Benchmark
    public Segment freeAndAllocate() {
        int i = next++;
        int slot = i & (LIVE - 1);
        ring[slot].close();
        Segment s = pool.allocate(sizes[i & (sizes.length - 1)] * CHUNK);
        ring[slot] = s;
        return s;
    }
}
