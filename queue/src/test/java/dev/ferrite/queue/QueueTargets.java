package dev.ferrite.queue;

import dev.ferrite.Ferrite;
import dev.ferrite.spi.MemoryBackend;
import org.junit.jupiter.params.provider.Arguments;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/** Every available backend, with a file queue where it supports files and an shm queue else. */
final class QueueTargets {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private QueueTargets() {
    }

    /** @return (backend name) for each available backend */
    static Stream<Arguments> backends() {
        List<Arguments> out = new ArrayList<>();
        for (MemoryBackend b : Ferrite.backends()) {
            if (b.isAvailable()) {
                out.add(Arguments.of(b.name()));
            }
        }
        return out.stream();
    }

    /** @return a spec builder for a new queue on that backend: a file in dir, or shm for shm */
    static QueueSpec.Builder spec(String backend, Path dir) {
        int n = COUNTER.incrementAndGet();
        QueueSpec.Builder b = backend.equals("shm")
                ? QueueSpec.shm("ferrite-queue-test-" + ProcessHandle.current().pid() + "-" + n)
                : QueueSpec.file(dir.resolve("queue-" + n + ".ferrite"));
        return b.backend(backend);
    }
}
