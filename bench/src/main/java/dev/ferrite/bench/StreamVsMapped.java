package dev.ferrite.bench;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Seed 002's mapped I/O: write {@code chars} chars, read them back, and read-modify-write the
 * first half, in each backend's mapped pool (a file pool; {@code /dev/shm} for {@code shm}). The
 * stream versions are in {@link StreamIo}. Score: ms per pass.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class StreamVsMapped {

    @Param({"unsafe", "bytebuffer", "ffm", "shm"})
    public String backend;

    @Param({"12000000"})
    public int chars;

    private Path dir;
    private PoolSpec spec;
    private ChunkPool pool;
    private Segment file;

    @Setup
    public void setup() throws IOException {
        dir = Files.createTempDirectory("ferrite-bench-io");
        spec = Pools.mappedSpec(backend, dir, "chars", 2L * chars);
        pool = Ferrite.backend(backend).createPool(spec);
        file = pool.allocate("chars", 2L * chars);
        write();
    }

    @TearDown
    public void tearDown() throws IOException {
        pool.close();
        pool.backend().deletePool(spec);
        Files.deleteIfExists(dir);
    }

    @Benchmark
    public void write() {
        Segment s = file;
        int n = chars;
        for (int i = 0; i < n; i++) {
            s.putChar(2L * i, (char) i);
        }
    }

    @Benchmark
    public long read() {
        Segment s = file;
        int n = chars;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += s.getChar(2L * i);
        }
        return sum;
    }

    @Benchmark
    public void readModifyWrite() {
        Segment s = file;
        int n = chars / 2;
        for (int i = 0; i < n; i++) {
            long at = 2L * i;
            s.putChar(at, (char) (s.getChar(at) + 1));
        }
    }
}
