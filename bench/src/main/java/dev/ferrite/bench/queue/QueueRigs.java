package dev.ferrite.bench.queue;

import dev.ferrite.queue.IpcQueue;
import dev.ferrite.queue.QueueSpec;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/** Queues of the same capacity for every contender, in /dev/shm where they cross processes. */
final class QueueRigs {

    /** Ring capacity for every queue in the bench: 1 MiB. */
    static final int CAPACITY = 1 << 20;
    /** Messages per benchmark invocation in the throughput benchmarks. */
    static final int BURST = 1000;
    /** Messages per batch in the batch benchmarks. */
    static final int BATCH = 32;

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private QueueRigs() {
    }

    /** @return a unique shm name for a bench queue of this process */
    static String uniqueName(String what) {
        return "ferrite-bench-" + what + "-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
    }

    static QueueSpec ferriteSpec(String backend, String name, boolean many) {
        return QueueSpec.shm(name).backend(backend).capacity(CAPACITY).manyProducers(many).overwrite(true).build();
    }

    static IpcQueue createFerrite(String backend, String name, boolean many) {
        return IpcQueue.create(ferriteSpec(backend, name, many));
    }

    /** @return an Agrona ring-buffer buffer mapped from a file in /dev/shm (or the temp dir) */
    static UnsafeBuffer agronaBuffer(Path file, boolean create) throws IOException {
        int length = CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
        if (create) {
            Files.deleteIfExists(file);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
            return new UnsafeBuffer(map);
        }
    }

    static Path shmFile(String name) {
        Path shm = Path.of("/dev/shm");
        return (Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"))).resolve(name);
    }
}
