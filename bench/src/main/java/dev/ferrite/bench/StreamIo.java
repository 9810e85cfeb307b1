package dev.ferrite.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
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
 * Seed 002's stream side (the baseline of {@link StreamVsMapped}): a buffered
 * {@code DataOutputStream} writes {@code chars} chars, a buffered {@code DataInputStream} reads
 * them, and a {@code RandomAccessFile} reads and rewrites the first half char by char.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class StreamIo {

    @Param({"12000000"})
    public int chars;

    private Path file;

    @Setup
    public void setup() throws IOException {
        file = Files.createTempFile("ferrite-bench-stream", ".bin");
        write();
    }

    @TearDown
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
    }

    @Benchmark
    public void write() throws IOException {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            for (int i = 0; i < chars; i++) {
                out.writeChar(i);
            }
        }
    }

    @Benchmark
    public long read() throws IOException {
        long sum = 0;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            for (int i = 0; i < chars; i++) {
                sum += in.readChar();
            }
        }
        return sum;
    }

    @Benchmark
    public void readModifyWrite() throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            int n = chars / 2;
            for (int i = 0; i < n; i++) {
                long at = 2L * i;
                raf.seek(at);
                char c = raf.readChar();
                raf.seek(at);
                raf.writeChar(c + 1);
            }
        }
    }
}
