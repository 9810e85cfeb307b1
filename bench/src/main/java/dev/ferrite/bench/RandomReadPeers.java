package dev.ferrite.bench;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytes;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/** Random reads with the peers of {@link MixPeers}; {@code double[]} is the baseline. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RandomReadPeers {

    private static final int CHUNK_SHIFT = 20;
    private static final int CHUNK_MASK = (1 << CHUNK_SHIFT) - 1;

    @Param({"16777216"})
    public long size;

    private long[] indices;
    private double[] heap;
    private ByteBuffer[] chunks;
    private File mappedFile;
    private MappedBytes mapped;
    private BytesStore<?, Void> nativeStore;
    private UnsafeBuffer agrona;

    @Setup
    public void setup(BenchmarkParams params) throws IOException {
        setup(PairedSubject.methodOf(params));
    }

    /**
     * Builds what one benchmark method uses (the setup {@link Paired} runs outside JMH).
     *
     * @param method the benchmark method's name
     * @throws IOException if a file cannot be made
     */
    public void setup(String method) throws IOException {
        indices = RandomRead.indices(size);
        boolean fits = 8 * size < Integer.MAX_VALUE;
        switch (method) {
            case "doubleArray":
                if (!fits) {
                    throw new UnsupportedOperationException("n/a: too large for a Java array");
                }
                heap = new double[(int) size];
                for (int i = 0; i < size; i++) {
                    heap[i] = i;
                }
                break;
            case "byteBufferChunks":
                chunks = new ByteBuffer[(int) ((8 * size + CHUNK_MASK) >>> CHUNK_SHIFT)];
                for (int c = 0; c < chunks.length; c++) {
                    chunks[c] = ByteBuffer.allocateDirect(1 << CHUNK_SHIFT).order(ByteOrder.LITTLE_ENDIAN);
                }
                for (long i = 0; i < size; i++) {
                    chunks[(int) (i >>> (CHUNK_SHIFT - 3))].putDouble((int) ((i << 3) & CHUNK_MASK), i);
                }
                break;
            case "chronicleMapped":
                mappedFile = Files.createTempFile("ferrite-bench-chronicle", ".map").toFile();
                mappedFile.delete();
                mapped = MappedBytes.singleMappedBytes(mappedFile, 8 * size);
                for (long i = 0; i < size; i++) {
                    mapped.writeDouble(8 * i, i);
                }
                break;
            case "chronicleNative":
                nativeStore = BytesStore.nativeStoreWithFixedCapacity(8 * size);
                for (long i = 0; i < size; i++) {
                    nativeStore.writeDouble(8 * i, i);
                }
                break;
            case "agronaUnsafeBuffer":
                if (!fits) {
                    throw new UnsupportedOperationException("n/a: too large for an int-indexed buffer");
                }
                agrona = new UnsafeBuffer(ByteBuffer.allocateDirect((int) (8 * size)));
                for (int i = 0; i < size; i++) {
                    agrona.putDouble(8 * i, i);
                }
                break;
            default:
                throw new IllegalStateException("unknown benchmark " + method);
        }
    }

    @TearDown
    public void tearDown() {
        if (mapped != null) {
            mapped.releaseLast();
            mappedFile.delete();
        }
        if (nativeStore != null) {
            nativeStore.releaseLast();
        }
    }

    @Benchmark
    public double doubleArray() {
        double[] d = heap;
        double sum = 0;
        for (long i : indices) {
            sum += d[(int) i];
        }
        return sum;
    }

    @Benchmark
    public double byteBufferChunks() {
        ByteBuffer[] c = chunks;
        double sum = 0;
        for (long i : indices) {
            sum += c[(int) (i >>> (CHUNK_SHIFT - 3))].getDouble((int) ((i << 3) & CHUNK_MASK));
        }
        return sum;
    }

    @Benchmark
    public double chronicleMapped() {
        MappedBytes m = mapped;
        double sum = 0;
        for (long i : indices) {
            sum += m.readDouble(8 * i);
        }
        return sum;
    }

    @Benchmark
    public double chronicleNative() {
        BytesStore<?, Void> m = nativeStore;
        double sum = 0;
        for (long i : indices) {
            sum += m.readDouble(8 * i);
        }
        return sum;
    }

    @Benchmark
    public double agronaUnsafeBuffer() {
        UnsafeBuffer b = agrona;
        double sum = 0;
        for (long i : indices) {
            sum += b.getDouble(8 * (int) i);
        }
        return sum;
    }
}
