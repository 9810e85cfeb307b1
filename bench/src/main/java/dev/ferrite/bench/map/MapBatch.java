package dev.ferrite.bench.map;

import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.ValueReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Gets in batches, as a server answering a pipeline of 16 GETs makes them: 16 random keys of
 * {@link MapOps}'s map (file pool, {@code unsafe} backend only, to keep the quick run short) read
 * one after another, the same after {@link FerriteMap#prefetch} of the 16 keys, which lets
 * their cache misses overlap, and {@link FerriteMap#getAll} of them. Scores are ns per get.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MapBatch {

    /** Keys per batch: the pipeline depth of redis-benchmark's -P 16. */
    static final int BATCH = 16;

    private static final ValueReader<Boolean> LAST_BYTE = (segment, offset, length) ->
            segment.getByte(offset + length - 1) == 0 ? Boolean.TRUE : Boolean.FALSE;

    /** Entries in the map. */
    @Param({"1000000"})
    public int entries;

    private Path dir;
    private FerriteMap<byte[], byte[]> map;
    private byte[][] keys;

    /** Fills the map. */
    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("ferrite-map-batch");
        map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).backend("unsafe").file(dir.resolve("map.pool"))
                .expectedEntries(entries).averageKeySize(16).averageValueSize(MapData.VALUE_BYTES)
                .capacity(64L << 30).create();
        keys = new byte[entries][];
        for (int i = 0; i < entries; i++) {
            map.put(MapData.keyBytes(i), MapData.value(i));
            keys[i] = MapData.keyBytes(i); // equal keys, other arrays: as requests would bring them
        }
        MapData.settle(dir);
    }

    /** Closes and deletes the map. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        map.close();
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** 16 gets one after another: each waits for memory in turn. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getHitBatch(MapAccess a) {
        return readAll(a.batch(keys, entries, BATCH));
    }

    /** The same 16 gets after {@link FerriteMap#prefetch} of their keys. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getHitBatchPrefetched(MapAccess a) {
        byte[][] batch = a.batch(keys, entries, BATCH);
        map.prefetch(batch, 0, BATCH);
        return readAll(batch);
    }

    /** The same 16 keys through {@link FerriteMap#getAll}: warmed together, then read and copied out. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getAll(MapAccess a) {
        return map.getAll(Arrays.asList(a.batch(keys, entries, BATCH))).size();
    }

    private int readAll(byte[][] batch) {
        int found = 0;
        for (byte[] k : batch) {
            found += map.readValue(k, LAST_BYTE) != null ? 1 : 0;
        }
        return found;
    }
}
