package dev.ferrite.bench.map;

import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.FerriteMapBuilder;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.map.ChronicleMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Opening a persisted map of {@code entries} entries after a clean close, reading one key, and
 * closing it again: what a restart costs. Score: µs per open.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class MapReopen {

    @Param({"unsafe", "bytebuffer", "ffm", "shm"})
    public String backend;

    @Param({"1000000"})
    public int entries;

    private Path dir;
    private FerriteMapBuilder<String, byte[]> builder;
    private String key;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("ferrite-map-reopen");
        builder = FerriteMap.builder(Codec.utf8(), Codec.bytes()).backend(backend).expectedEntries(entries)
                .averageKeySize(16).averageValueSize(MapData.VALUE_BYTES).capacity(64L << 30);
        if (backend.equals("shm")) {
            builder.shm(shmName());
        } else {
            builder.file(dir.resolve("map.pool"));
        }
        try (FerriteMap<String, byte[]> map = builder.create()) {
            for (int i = 0; i < entries; i++) {
                map.put(MapData.key(i), MapData.value(i));
            }
        }
        key = MapData.key(entries / 2);
    }

    private String shmName() {
        return "ferrite-map-reopen-" + ProcessHandle.current().pid();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (backend.equals("shm")) {
            Ferrite.backend(backend).deletePool(PoolSpec.shm(shmName()).build());
        }
        deleteTree(dir);
    }

    static void deleteTree(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public byte[] openGetClose() {
        try (FerriteMap<String, byte[]> map = builder.open()) {
            return map.get(key);
        }
    }

    /** The same with Chronicle Map persisted to a file. */
    @State(Scope.Benchmark)
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public static class Chronicle {

        @Param({"1000000"})
        public int entries;

        private Path dir;
        private File file;
        private String key;

        @Setup(Level.Trial)
        public void setup() throws IOException {
            dir = Files.createTempDirectory("chronicle-map-reopen");
            file = dir.resolve("chronicle.map").toFile();
            try (ChronicleMap<String, byte[]> map = builder().createPersistedTo(file)) {
                for (int i = 0; i < entries; i++) {
                    map.put(MapData.key(i), MapData.value(i));
                }
            }
            key = MapData.key(entries / 2);
        }

        private net.openhft.chronicle.map.ChronicleMapBuilder<String, byte[]> builder() {
            return ChronicleMap.of(String.class, byte[].class).name("bench").averageKeySize(16)
                    .averageValueSize(MapData.VALUE_BYTES).entries(entries * 2L);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            deleteTree(dir);
        }

        @Benchmark
        public byte[] openGetClose() throws IOException {
            try (ChronicleMap<String, byte[]> map = builder().createPersistedTo(file)) {
                return map.get(key);
            }
        }
    }
}
