package dev.ferrite.bench;

import dev.ferrite.ChunkPool;
import dev.ferrite.DoubleArray;
import dev.ferrite.Region;
import dev.ferrite.Segment;
import java.util.Iterator;
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
 * Seed 000's mix: {@code out[i] = a[i] + b[i]} over three segments of {@code size} doubles, per
 * element through the typed view, and per chunk through {@link Segment#regions}. Score: ns per
 * whole mix; the report divides by {@code size}. Run with checks on ({@link Mix}) and off
 * ({@link MixUnchecked}), which differ only in the backend parameter and the JVM flag.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public abstract class MixKernel {

    @Param({"16777216"})
    public long size;

    private ChunkPool pool;
    private Segment a;
    private Segment b;
    private Segment out;
    private DoubleArray da;
    private DoubleArray db;
    private DoubleArray dout;

    /** @return the backend parameter */
    protected abstract String backend();

    @Setup
    public void setup() {
        pool = Pools.anonymous(backend(), 3 * 8 * size + 3 * Pools.CHUNK);
        a = pool.allocate(8 * size);
        b = pool.allocate(8 * size);
        out = pool.allocate(8 * size);
        da = a.asDoubles();
        db = b.asDoubles();
        dout = out.asDoubles();
        for (long i = 0; i < size; i++) {
            da.set(i, i * 0.5);
            db.set(i, 1.0 / (i + 1));
        }
    }

    @TearDown
    public void tearDown() {
        pool.close();
    }

    @Benchmark
    public void perElement() {
        DoubleArray x = da;
        DoubleArray y = db;
        DoubleArray z = dout;
        long n = size;
        for (long i = 0; i < n; i++) {
            z.set(i, x.get(i) + y.get(i));
        }
    }

    @Benchmark
    public void perChunk() {
        long bytes = 8 * size;
        Iterator<Region> ia = a.regions(0, bytes).iterator();
        Iterator<Region> ib = b.regions(0, bytes).iterator();
        Iterator<Region> io = out.regions(0, bytes).iterator();
        while (ia.hasNext()) {
            Region ra = ia.next();
            Region rb = ib.next();
            Region ro = io.next();
            int len = ra.length();
            for (int j = 0; j < len; j += 8) {
                ro.putDouble(j, ra.getDouble(j) + rb.getDouble(j));
            }
        }
    }
}
