package dev.ferrite.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import sun.misc.Unsafe;

/**
 * The 1 KiB chunk store with seed 001's contenders: heap and direct {@code ByteBuffer}, a
 * {@code RandomAccessFile}'s {@code FileChannel}, a {@code MappedByteBuffer} on a file and on
 * {@code /dev/shm}, and raw {@code Unsafe.copyMemory} into {@code allocateMemory} memory (the
 * baseline).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ChunkStorePeers {

    private static final int CHUNK = ChunkStore.CHUNK;
    private static final Unsafe U = unsafe();

    @Param({"1000000"})
    public int slots;

    private final byte[] in = new byte[CHUNK];
    private final byte[] out = new byte[CHUNK];
    private final ByteBuffer outBuffer = ByteBuffer.wrap(out);
    private final ByteBuffer inBuffer = ByteBuffer.wrap(in);
    private int[] order;
    private int next;
    private ByteBuffer buffer;
    private Path file;
    private RandomAccessFile raf;
    private FileChannel channel;
    private long address;

    private static Unsafe unsafe() {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
        order = ChunkStore.order(slots);
        java.util.Arrays.fill(in, (byte) 7);
        long bytes = (long) slots * CHUNK;
        if (method.startsWith("heap")) {
            buffer = ByteBuffer.allocate((int) bytes);
        } else if (method.startsWith("direct")) {
            buffer = ByteBuffer.allocateDirect((int) bytes);
        } else if (method.startsWith("fileChannel") || method.startsWith("mappedFile") || method.startsWith("mappedShm")) {
            Path dir = method.startsWith("mappedShm") ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
            file = Files.createTempFile(dir, "ferrite-bench-store", ".bin");
            raf = new RandomAccessFile(file.toFile(), "rw");
            raf.setLength(bytes);
            channel = raf.getChannel();
            if (!method.startsWith("fileChannel")) {
                MappedByteBuffer m = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
                buffer = m;
            }
        } else if (method.startsWith("unsafe")) {
            address = U.allocateMemory(bytes);
            U.setMemory(address, bytes, (byte) 1);
        }
        if (buffer != null) {
            for (long i = 0; i < bytes; i += 4096) {
                buffer.put((int) i, (byte) 1);
            }
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        if (raf != null) {
            raf.close();
            Files.deleteIfExists(file);
        }
        if (address != 0) {
            U.freeMemory(address);
        }
    }

    private int nextSlot() {
        return order[next++ & (order.length - 1)] * CHUNK;
    }

    @Benchmark
    public void heapPut() {
        buffer.put(nextSlot(), in);
    }

    @Benchmark
    public byte[] heapGet() {
        buffer.get(nextSlot(), out);
        return out;
    }

    @Benchmark
    public void directPut() {
        buffer.put(nextSlot(), in);
    }

    @Benchmark
    public byte[] directGet() {
        buffer.get(nextSlot(), out);
        return out;
    }

    @Benchmark
    public void fileChannelPut() throws IOException {
        inBuffer.clear();
        channel.write(inBuffer, nextSlot());
    }

    @Benchmark
    public byte[] fileChannelGet() throws IOException {
        outBuffer.clear();
        channel.read(outBuffer, nextSlot());
        return out;
    }

    @Benchmark
    public void mappedFilePut() {
        buffer.put(nextSlot(), in);
    }

    @Benchmark
    public byte[] mappedFileGet() {
        buffer.get(nextSlot(), out);
        return out;
    }

    @Benchmark
    public void mappedShmPut() {
        buffer.put(nextSlot(), in);
    }

    @Benchmark
    public byte[] mappedShmGet() {
        buffer.get(nextSlot(), out);
        return out;
    }

    @Benchmark
    public void unsafeCopyPut() {
        U.copyMemory(in, Unsafe.ARRAY_BYTE_BASE_OFFSET, null, address + nextSlot(), CHUNK);
    }

    @Benchmark
    public byte[] unsafeCopyGet() {
        U.copyMemory(null, address + nextSlot(), out, Unsafe.ARRAY_BYTE_BASE_OFFSET, CHUNK);
        return out;
    }
}
