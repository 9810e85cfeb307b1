package dev.ferrite.kv;

import com.google.common.collect.testing.ConcurrentNavigableMapTestSuiteBuilder;
import com.google.common.collect.testing.TestStringSortedMapGenerator;
import com.google.common.collect.testing.features.CollectionFeature;
import com.google.common.collect.testing.features.CollectionSize;
import com.google.common.collect.testing.features.MapFeature;
import com.google.common.collect.testing.testers.MapEntrySetTester;
import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.spi.MemoryBackend;
import junit.framework.TestSuite;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Guava's {@code ConcurrentNavigableMapTestSuiteBuilder} (with its derived sub-map, descending and
 * key-set suites, 33,000 tests) against FerriteSortedMap in an anonymous pool of the default backend
 * (the backends' own suites cover their memory access; {@code SortedMapProcessTest} file and shm pools). Suppressed, as Guava suppresses them for {@code ConcurrentSkipListMap}: the entry
 * {@code setValue} tests (entries are snapshots). {@link JUnit3Suites} runs the suite in-process.
 */
class FerriteSortedMapConformanceTest {

    private static final AtomicInteger MAPS = new AtomicInteger();

    /**
     * @return a test per sub-suite (one per map size Guava tests, each with its derived views),
     *         each running its cases in-process
     * @throws NoSuchMethodException if Guava's suppressed testers changed names
     */
    @TestFactory
    Stream<DynamicTest> guavaTestlib() throws NoSuchMethodException {
        return JUnit3Suites.eachOf(suiteFor(Ferrite.backend(), PoolSpec.Kind.ANONYMOUS));
    }

    private static TestSuite suiteFor(MemoryBackend backend, PoolSpec.Kind kind) throws NoSuchMethodException {
        PoolSpec.Builder spec = kind == PoolSpec.Kind.SHM
                ? PoolSpec.shm("ferrite-sorted-conformance-" + backend.name() + "-" + ProcessHandle.current().pid()).overwrite(true)
                : PoolSpec.anonymous();
        ChunkPool pool = backend.createPool(spec.chunkSize(64 << 10).capacity(8L << 30).maxNamedSegments(1 << 10).build());
        if (kind != PoolSpec.Kind.ANONYMOUS) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                pool.close();
                backend.deletePool(pool.spec());
            }));
        }
        List<FerriteSortedMap<?, ?>> open = new ArrayList<>();
        return ConcurrentNavigableMapTestSuiteBuilder.using(new TestStringSortedMapGenerator() {
                    @Override
                    protected SortedMap<String, String> create(Map.Entry<String, String>[] entries) {
                        dropAll(pool, open); // the iterator testers make a map per step: keep the pool's names free
                        FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                                .pool(pool, "conformance-" + MAPS.incrementAndGet()).create();
                        open.add(map);
                        for (Map.Entry<String, String> e : entries) {
                            map.put(e.getKey(), e.getValue());
                        }
                        return map;
                    }
                })
                .named("FerriteSortedMap " + backend.name() + " " + kind.name().toLowerCase())
                .withFeatures(MapFeature.GENERAL_PURPOSE, CollectionFeature.SUPPORTS_ITERATOR_REMOVE,
                        CollectionFeature.KNOWN_ORDER, CollectionSize.ANY)
                .suppressing(MapEntrySetTester.class.getMethod("testSetValue"),
                        MapEntrySetTester.class.getMethod("testSetValueWithNullValuesAbsent"),
                        MapEntrySetTester.class.getMethod("testSetValueWithNullValuesPresent"))
                .withTearDown(() -> dropAll(pool, open))
                .createTestSuite();
    }

    private static void dropAll(ChunkPool pool, List<FerriteSortedMap<?, ?>> open) {
        for (FerriteSortedMap<?, ?> m : open) {
            m.close();
            FerriteSortedMap.delete(pool, m.name());
        }
        open.clear();
    }
}
