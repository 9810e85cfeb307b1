package dev.ferrite.bench.map;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ConcurrentHashMap;
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
 * What a user would pick instead of FerriteMap, on the same data and operations as
 * {@link MapOps}; a subclass per library makes the map.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public abstract class MapPeers {

    @Param({"1000000"})
    public int entries;

    private Path dir;
    private PeerMap map;
    private String[] hits;
    private String[] misses;
    private String[] churn;
    private byte[] value;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("ferrite-map-peers");
        map = create(dir, entries);
        String[] stored = MapData.keys(0, entries);
        for (int i = 0; i < entries; i++) {
            map.put(stored[i], MapData.value(i));
        }
        hits = MapData.keys(0, entries); // equal keys, other instances: as a request would bring them
        misses = MapData.keys(MapData.MISS_BASE, entries);
        churn = MapData.keys(MapData.CHURN_BASE, entries);
        value = MapData.value(-1);
        MapData.settle(dir);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        map.close();
        map = null;
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * @param dir     a fresh directory for files
     * @param entries entries it will hold
     * @return the map to measure
     */
    abstract PeerMap create(Path dir, int entries) throws IOException;

    /** @return what the peer's atomic update of a long field returned (see {@link PeerMap#incrementFirstLong}) */
    Object incrementFirstLong(MapAccess a) {
        return map.incrementFirstLong(hits[a.next(entries)]);
    }

    /** @return the last character of a random lookup key: the key's fetch, without a map */
    int lastCharOfRandomKey(MapAccess a) {
        String k = hits[a.next(entries)];
        return k.charAt(k.length() - 1);
    }

    /** {@code ConcurrentHashMap<String, byte[]>} on the heap. */
    public static class Chm extends MapPeers {
        @Override
        PeerMap create(Path dir, int entries) {
            return PeerMap.of(new ConcurrentHashMap<>(entries * 2));
        }

        /**
         * What every get and put row of every map includes before it reaches the map: a random
         * lookup key is picked and its bytes read (the {@code String}, then its array: at 1M keys
         * and more, two cache misses one after the other), and no map is asked. Here nothing else
         * delays the next key's fetch, so fetches overlap; in a map's row they may not.
         */
        @Benchmark
        public int keyFetch(MapAccess a) {
            return lastCharOfRandomKey(a);
        }

        /** A long field of a value incremented: {@code computeIfPresent} of a changed copy. */
        @Benchmark
        public Object update(MapAccess a) {
            return incrementFirstLong(a);
        }
    }

    /**
     * Chronicle Map persisted to a file, sized for twice the entries (its flags are in every fork,
     * see {@code JvmFlags}).
     */
    public static class Chronicle extends MapPeers {
        @Override
        PeerMap create(Path dir, int entries) throws IOException {
            return PeerMap.of(Peers.chronicle(dir, entries * 2L));
        }

        /** A long field of a value incremented: {@code computeIfPresent} of a changed copy. */
        @Benchmark
        public Object update(MapAccess a) {
            return incrementFirstLong(a);
        }
    }

    /** OHC (off-heap, not persistent), without eviction and with room for every entry. */
    public static class Ohc extends MapPeers {
        @Override
        PeerMap create(Path dir, int entries) {
            return Peers.ohc(entries);
        }
    }

    /** LMDB through lmdbjava, a memory-mapped file with {@code MDB_NOSYNC} and {@code MDB_WRITEMAP}. */
    public static class Lmdb extends MapPeers {
        @Override
        PeerMap create(Path dir, int entries) {
            return Peers.lmdb(dir, entries);
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

    @Benchmark
    public byte[] getMiss(MapAccess a) {
        return map.get(misses[a.next(entries)]);
    }

    @Benchmark
    public Object put(MapAccess a) {
        return map.put(hits[a.next(entries)], value);
    }

    @Benchmark
    public Object insertRemove(MapAccess a) {
        String k = churn[a.next(entries)];
        map.put(k, value);
        return map.remove(k);
    }
}
