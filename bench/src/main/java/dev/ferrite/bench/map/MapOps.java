package dev.ferrite.bench.map;

import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.FerriteMapBuilder;
import dev.ferrite.kv.ValueReader;
import dev.ferrite.kv.ValueUpdater;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Threads;

/**
 * Seed 003's off-heap map: a FerriteMap of {@code entries} 16-byte keys and 100-byte values, in a
 * file pool (the {@code shm} backend: in /dev/shm), read and written at random keys (looked up with
 * equal keys that are other String instances than the stored ones, as a request would bring). Scores are
 * ns per operation; {@code getHit2Threads} runs two threads at once (ns per operation per thread).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MapOps {

    private static final ValueReader<Boolean> LAST_BYTE = (segment, offset, length) ->
            segment.getByte(offset + length - 1) == 0 ? Boolean.TRUE : Boolean.FALSE;

    private static final ValueUpdater INCREMENT_FIRST_LONG = (segment, offset, length) ->
            segment.putLong(offset, segment.getLong(offset) + 1);

    @Param({"unsafe", "bytebuffer", "ffm", "shm"})
    public String backend;

    @Param({"1000000"})
    public int entries;

    /**
     * {@code FerriteMapBuilder.loadFactor}: the load at which a section grows; the tables hold
     * {@code entries} below it. 0.85 unless set, as a map built without {@code loadFactor} gets.
     */
    @Param({"0.85"})
    public double loadFactor;

    private Path dir;
    private FerriteMapBuilder<String, byte[]> builder;
    private FerriteMap<String, byte[]> map;
    private FerriteMap<String, byte[]> verified;
    private String[] hits;
    private byte[][] hitBytes;
    private String[] misses;
    private String[] churn;
    private byte[] value;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("ferrite-map-bench");
        builder = FerriteMap.builder(Codec.utf8(), Codec.bytes()).backend(backend)
                .expectedEntries(entries).averageKeySize(16).averageValueSize(MapData.VALUE_BYTES)
                .loadFactor(loadFactor).capacity(64L << 30);
        if (backend.equals("shm")) {
            builder.shm("ferrite-map-bench-" + ProcessHandle.current().pid());
        } else {
            builder.file(dir.resolve("map.pool"));
        }
        map = builder.create();
        String[] stored = MapData.keys(0, entries);
        hitBytes = new byte[entries][];
        for (int i = 0; i < entries; i++) {
            map.put(stored[i], MapData.value(i));
            hitBytes[i] = MapData.keyBytes(i);
        }
        hits = MapData.keys(0, entries); // equal keys, other instances: as a request would bring them
        misses = MapData.keys(MapData.MISS_BASE, entries);
        churn = MapData.keys(MapData.CHURN_BASE, entries);
        value = MapData.value(-1);
        verified = builder.verifyReads(true).open();
        MapData.settle(dir);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        System.out.println("\nFerriteMap " + backend + ": " + map.stats());
        verified.close();
        map.close();
        if (backend.equals("shm")) {
            dev.ferrite.Ferrite.backend(backend).deletePool(
                    dev.ferrite.PoolSpec.shm("ferrite-map-bench-" + ProcessHandle.current().pid()).build());
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public byte[] getHit(MapAccess a) {
        return map.get(hits[a.next(entries)]);
    }

    @Benchmark
    @Threads(2)
    public byte[] getHit2Threads(MapAccess a) {
        return map.get(hits[a.next(entries)]);
    }

    /** {@link #getHit} into the thread's own array: the same read and copy, no value allocated. */
    @Benchmark
    public int getHitInto(MapAccess a) {
        return map.get(hits[a.next(entries)], a.into);
    }

    /** {@link #getHit} through a second handle on the same map that checks every entry it reads. */
    @Benchmark
    public byte[] getHitVerified(MapAccess a) {
        return verified.get(hits[a.next(entries)]);
    }

    @Benchmark
    public Boolean getHitInPlace(MapAccess a) {
        return map.readValue(hitBytes[a.next(entries)], LAST_BYTE);
    }

    /** Seed 003's struct emulation: a {@code long} field of a stored value incremented where it lies. */
    @Benchmark
    public boolean updateInPlace(MapAccess a) {
        return map.updateValue(hitBytes[a.next(entries)], INCREMENT_FIRST_LONG);
    }

    @Benchmark
    public byte[] getMiss(MapAccess a) {
        return map.get(misses[a.next(entries)]);
    }

    @Benchmark
    public byte[] put(MapAccess a) {
        return map.put(hits[a.next(entries)], value);
    }

    @Benchmark
    public byte[] insertRemove(MapAccess a) {
        String k = churn[a.next(entries)];
        map.put(k, value);
        return map.remove(k);
    }
}
