package dev.ferrite.bench;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

/**
 * The mix with what a user would pick instead: {@code double[]} (the baseline), direct
 * {@code ByteBuffer[]} chunks of 1 MiB, Chronicle Bytes (a {@code MappedBytes} file and a native
 * {@code BytesStore}), and Agrona's {@code UnsafeBuffer} over direct {@code ByteBuffer}s and over the memory of
 * Ferrite's anonymous pools (unlinked {@code /dev/shm} files). Peers that cannot hold {@code size}
 * doubles (a Java array or an int-indexed buffer past 2^31 bytes) fail their setup and are
 * missing from the report.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MixPeers {

    private static final int CHUNK_SHIFT = 20;
    private static final int CHUNK_MASK = (1 << CHUNK_SHIFT) - 1;

    @Param({"16777216"})
    public long size;

    private double[] ha;
    private double[] hb;
    private double[] hout;
    private ByteBuffer[] ba;
    private ByteBuffer[] bb;
    private ByteBuffer[] bout;
    private File[] mappedFiles;
    private MappedBytes ma;
    private MappedBytes mb;
    private MappedBytes mout;
    private BytesStore<?, Void> nativeStore;
    private UnsafeBuffer ua;
    private UnsafeBuffer ub;
    private UnsafeBuffer uout;

    private boolean fitsJavaArrays() {
        return 8 * size < Integer.MAX_VALUE;
    }

    @Setup
    public void setup(org.openjdk.jmh.infra.BenchmarkParams params) throws IOException {
        setup(PairedSubject.methodOf(params));
    }

    /**
     * Builds what one benchmark method uses (the setup {@link Paired} runs outside JMH).
     *
     * @param method the benchmark method's name
     * @throws IOException if a file cannot be made
     */
    public void setup(String method) throws IOException {
        switch (method) {
            case "doubleArray":
                requireFits();
                ha = new double[(int) size];
                hb = new double[(int) size];
                hout = new double[(int) size];
                for (int i = 0; i < size; i++) {
                    ha[i] = i * 0.5;
                    hb[i] = 1.0 / (i + 1);
                }
                break;
            case "byteBufferChunks":
                ba = chunks();
                bb = chunks();
                bout = chunks();
                for (long i = 0; i < size; i++) {
                    ba[(int) (i >>> (CHUNK_SHIFT - 3))].putDouble((int) ((i << 3) & CHUNK_MASK), i * 0.5);
                    bb[(int) (i >>> (CHUNK_SHIFT - 3))].putDouble((int) ((i << 3) & CHUNK_MASK), 1.0 / (i + 1));
                }
                break;
            case "chronicleMapped":
                // One single-mapped file per signal: Chronicle's fastest mapped form for this access pattern.
                mappedFiles = new File[3];
                MappedBytes[] m = new MappedBytes[3];
                for (int f = 0; f < 3; f++) {
                    mappedFiles[f] = Files.createTempFile("ferrite-bench-chronicle", ".map").toFile();
                    mappedFiles[f].delete();
                    m[f] = MappedBytes.singleMappedBytes(mappedFiles[f], 8 * size);
                }
                ma = m[0];
                mb = m[1];
                mout = m[2];
                for (long i = 0; i < size; i++) {
                    ma.writeDouble(8 * i, i * 0.5);
                }
                for (long i = 0; i < size; i++) {
                    mb.writeDouble(8 * i, 1.0 / (i + 1));
                }
                break;
            case "chronicleNative":
                nativeStore = BytesStore.nativeStoreWithFixedCapacity(24 * size);
                for (long i = 0; i < size; i++) {
                    nativeStore.writeDouble(8 * i, i * 0.5);
                }
                for (long i = 0; i < size; i++) {
                    nativeStore.writeDouble(8 * (size + i), 1.0 / (i + 1));
                }
                break;
            case "agronaUnsafeBuffer":
                requireFits();
                ua = new UnsafeBuffer(ByteBuffer.allocateDirect((int) (8 * size)));
                ub = new UnsafeBuffer(ByteBuffer.allocateDirect((int) (8 * size)));
                uout = new UnsafeBuffer(ByteBuffer.allocateDirect((int) (8 * size)));
                for (int i = 0; i < size; i++) {
                    ua.putDouble(8 * i, i * 0.5);
                    ub.putDouble(8 * i, 1.0 / (i + 1));
                }
                break;
            case "agronaUnsafeBufferShm":
                requireFits();
                ua = new UnsafeBuffer(unlinkedShm());
                ub = new UnsafeBuffer(unlinkedShm());
                uout = new UnsafeBuffer(unlinkedShm());
                for (int i = 0; i < size; i++) {
                    ua.putDouble(8 * i, i * 0.5);
                    ub.putDouble(8 * i, 1.0 / (i + 1));
                }
                break;
            default:
                throw new IllegalStateException("unknown benchmark " + method);
        }
    }

    private void requireFits() {
        if (!fitsJavaArrays()) {
            throw new UnsupportedOperationException("n/a: " + size + " doubles exceed a Java array or int index");
        }
    }

    /**
     * @return {@code size} doubles of the memory Ferrite's anonymous pools use: a file in
     *         {@code /dev/shm} (else the temporary directory), mapped shared, then unlinked
     */
    private ByteBuffer unlinkedShm() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path file = Files.isDirectory(shm) ? Files.createTempFile(shm, "ferrite-bench-agrona", ".map")
                : Files.createTempFile("ferrite-bench-agrona", ".map");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, 8 * size).order(ByteOrder.LITTLE_ENDIAN);
        } finally {
            Files.delete(file); // the mapping keeps the memory until the buffer is collected
        }
    }

    private ByteBuffer[] chunks() {
        int n = (int) ((8 * size + CHUNK_MASK) >>> CHUNK_SHIFT);
        ByteBuffer[] c = new ByteBuffer[n];
        for (int i = 0; i < n; i++) {
            c[i] = ByteBuffer.allocateDirect(1 << CHUNK_SHIFT).order(ByteOrder.LITTLE_ENDIAN);
        }
        return c;
    }

    @TearDown
    public void tearDown() {
        if (mappedFiles != null) {
            for (MappedBytes m : new MappedBytes[] {ma, mb, mout}) {
                m.releaseLast();
            }
            for (File f : mappedFiles) {
                f.delete();
            }
        }
        if (nativeStore != null) {
            nativeStore.releaseLast();
        }
    }

    @Benchmark
    public void doubleArray() {
        double[] x = ha;
        double[] y = hb;
        double[] z = hout;
        for (int i = 0; i < z.length; i++) {
            z[i] = x[i] + y[i];
        }
    }

    @Benchmark
    public void byteBufferChunks() {
        ByteBuffer[] x = ba;
        ByteBuffer[] y = bb;
        ByteBuffer[] z = bout;
        long n = size;
        for (long i = 0; i < n; i++) {
            int c = (int) (i >>> (CHUNK_SHIFT - 3));
            int p = (int) ((i << 3) & CHUNK_MASK);
            z[c].putDouble(p, x[c].getDouble(p) + y[c].getDouble(p));
        }
    }

    @Benchmark
    public void chronicleMapped() {
        MappedBytes x = ma;
        MappedBytes y = mb;
        MappedBytes z = mout;
        long n = size;
        for (long i = 0; i < n; i++) {
            z.writeDouble(8 * i, x.readDouble(8 * i) + y.readDouble(8 * i));
        }
    }

    @Benchmark
    public void chronicleNative() {
        BytesStore<?, Void> m = nativeStore;
        long n = size;
        for (long i = 0; i < n; i++) {
            m.writeDouble(8 * (2 * n + i), m.readDouble(8 * i) + m.readDouble(8 * (n + i)));
        }
    }

    /** As {@link #agronaUnsafeBuffer}, over the memory of Ferrite's anonymous pools (unlinked /dev/shm files). */
    @Benchmark
    public void agronaUnsafeBufferShm() {
        agronaUnsafeBuffer();
    }

    @Benchmark
    public void agronaUnsafeBuffer() {
        UnsafeBuffer x = ua;
        UnsafeBuffer y = ub;
        UnsafeBuffer z = uout;
        int n = (int) size;
        for (int i = 0; i < n; i++) {
            z.putDouble(8 * i, x.getDouble(8 * i) + y.getDouble(8 * i));
        }
    }
}
