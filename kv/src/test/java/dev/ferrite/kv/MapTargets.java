package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.spi.MemoryBackend;
import org.junit.jupiter.params.provider.Arguments;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/** Where the map tests put maps: every available backend, with each kind of pool it makes. */
final class MapTargets {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private MapTargets() {
    }

    /** The kinds of place a map lives in. */
    enum Kind { FILE, SHM, ANONYMOUS }

    /** @return (backend, kind) for every available backend and pool kind it supports */
    static Stream<Arguments> targets() {
        List<Arguments> out = new ArrayList<>();
        for (MemoryBackend b : Ferrite.backends()) {
            if (!b.isAvailable()) {
                continue;
            }
            for (Kind k : Kind.values()) {
                PoolSpec.Kind pk = k == Kind.FILE ? PoolSpec.Kind.FILE : k == Kind.SHM ? PoolSpec.Kind.SHM : PoolSpec.Kind.ANONYMOUS;
                if (b.supports(pk)) {
                    out.add(Arguments.of(b.name(), k));
                }
            }
        }
        return out.stream();
    }

    /** @return (backend) for every available backend */
    static Stream<Arguments> backends() {
        return Ferrite.backends().stream().filter(MemoryBackend::isAvailable).map(b -> Arguments.of(b.name()));
    }

    /** @return a builder placing a new map of that backend and kind (file in dir, or a fresh shm name) */
    static <K, V> FerriteMapBuilder<K, V> place(FerriteMapBuilder<K, V> b, String backend, Kind kind, Path dir) {
        int n = COUNTER.incrementAndGet();
        b.backend(backend).capacity(4L << 30);
        switch (kind) {
            case FILE:
                return b.file(dir.resolve("map-" + n + ".ferrite"));
            case SHM:
                return b.shm(shmName(n));
            default:
                return b;
        }
    }

    static String shmName(int n) {
        return "ferrite-kv-test-" + ProcessHandle.current().pid() + "-" + n;
    }

    /** Deletes what a map of that builder left (shm pools outlive the process). */
    static void cleanUp(FerriteMap<?, ?> map) {
        PoolSpec spec = map.pool().spec();
        map.close();
        if (spec.kind() == PoolSpec.Kind.SHM) {
            map.pool().backend().deletePool(spec);
        }
    }

    /** @return a new anonymous pool of a backend */
    static ChunkPool anonymousPool(String backend) {
        return Ferrite.backend(backend).createPool(PoolSpec.anonymous().capacity(1L << 30).chunkSize(64 << 10).build());
    }
}
