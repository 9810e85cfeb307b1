package dev.ferrite.kv;

import com.google.common.collect.testing.ConcurrentMapTestSuiteBuilder;
import com.google.common.collect.testing.TestStringMapGenerator;
import com.google.common.collect.testing.features.CollectionFeature;
import com.google.common.collect.testing.features.CollectionSize;
import com.google.common.collect.testing.features.MapFeature;
import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.spi.MemoryBackend;
import junit.framework.Test;
import junit.framework.TestSuite;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Guava's {@code ConcurrentMapTestSuiteBuilder}, the Map/ConcurrentMap conformance suite other map
 * libraries run, against FerriteMap on every available backend and every kind of pool it makes: a
 * file, shm and anonymous pool per backend, one map at a time in it (deleted when the next is
 * made, and after each test). The suite is JUnit 3 style: {@link JUnit3Suites} runs each
 * sub-suite as one test.
 */
class FerriteMapConformanceTest {

    private static final AtomicInteger MAPS = new AtomicInteger();

    /** @return a test per backend and pool kind, each running its suite's cases in-process */
    @TestFactory
    Stream<DynamicTest> guavaTestlib() {
        return JUnit3Suites.eachOf(suite());
    }

    private static TestSuite suite() {
        TestSuite all = new TestSuite("FerriteMap conformance (guava-testlib)");
        for (MemoryBackend backend : Ferrite.backends()) {
            if (!backend.isAvailable()) {
                continue;
            }
            for (PoolSpec.Kind kind : PoolSpec.Kind.values()) {
                if (backend.supports(kind)) {
                    all.addTest(suiteFor(backend, kind));
                }
            }
        }
        return all;
    }

    private static Test suiteFor(MemoryBackend backend, PoolSpec.Kind kind) {
        ChunkPool pool = backend.createPool(spec(kind).chunkSize(64 << 10).capacity(8L << 30).maxNamedSegments(1 << 10).overwrite(kind != PoolSpec.Kind.ANONYMOUS).build());
        if (kind != PoolSpec.Kind.ANONYMOUS) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                pool.close();
                backend.deletePool(pool.spec());
            }));
        }
        List<FerriteMap<?, ?>> open = new ArrayList<>();
        return ConcurrentMapTestSuiteBuilder.using(new TestStringMapGenerator() {
                    @Override
                    protected Map<String, String> create(Map.Entry<String, String>[] entries) {
                        dropAll(pool, open); // the iterator testers make a map per step: keep the pool's names free
                        FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8())
                                .pool(pool, "conformance-" + MAPS.incrementAndGet()).create();
                        open.add(map);
                        for (Map.Entry<String, String> e : entries) {
                            map.put(e.getKey(), e.getValue());
                        }
                        return map;
                    }
                })
                .named("FerriteMap " + backend.name() + " " + kind.name().toLowerCase())
                .withFeatures(MapFeature.GENERAL_PURPOSE, CollectionFeature.SUPPORTS_ITERATOR_REMOVE, CollectionSize.ANY)
                .withTearDown(() -> dropAll(pool, open))
                .createTestSuite();
    }

    private static void dropAll(ChunkPool pool, List<FerriteMap<?, ?>> open) {
        for (FerriteMap<?, ?> m : open) {
            m.close();
            FerriteMap.delete(pool, m.name());
        }
        open.clear();
    }

    private static PoolSpec.Builder spec(PoolSpec.Kind kind) {
        int n = MAPS.incrementAndGet();
        switch (kind) {
            case FILE:
                try {
                    Path dir = Files.createTempDirectory("ferrite-kv-conformance");
                    dir.toFile().deleteOnExit();
                    Path file = dir.resolve("pool-" + n + ".ferrite");
                    file.toFile().deleteOnExit();
                    return PoolSpec.file(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            case SHM:
                return PoolSpec.shm(MapTargets.shmName(1000 + n));
            default:
                return PoolSpec.anonymous();
        }
    }
}
