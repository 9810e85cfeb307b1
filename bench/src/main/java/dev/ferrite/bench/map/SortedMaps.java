package dev.ferrite.bench.map;

import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteSortedMap;
import org.lmdbjava.Cursor;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.GetOp;
import org.lmdbjava.SeekOp;
import org.lmdbjava.Txn;
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
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Sorted maps side by side, one subclass each: {@code FerriteSortedMap} (a file pool of the
 * {@code unsafe} backend), {@code ConcurrentSkipListMap} on the heap, and LMDB through lmdbjava
 * ({@code MDB_NOSYNC | MDB_WRITEMAP}, one transaction per operation); {@code entries} 16-byte ASCII
 * keys and 100-byte values. A point get at a random key, an overwrite at a random key, and a range
 * scan of the 100 entries from a random key on. Scores are ns per operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public abstract class SortedMaps {

    @Param({"1000000"})
    public int entries;

    private Path dir;
    private String[] keys;
    private byte[] value;

    abstract void open(Path dir, int entries) throws IOException;

    abstract byte[] get(String key);

    abstract void put(String key, byte[] value);

    /** Hands the values of up to 100 entries from {@code from} on to the blackhole. */
    abstract void scan(String from, Blackhole bh);

    abstract void close();

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("ferrite-sorted-bench");
        keys = new String[entries];
        for (int i = 0; i < entries; i++) {
            keys[i] = String.format("key-%012d", (i * 2_654_435_761L) % 1_000_000_000_000L);
        }
        value = new byte[100];
        open(dir, entries);
        for (String k : keys) {
            put(k, value);
        }
        MapData.settle(dir);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private String randomKey() {
        return keys[ThreadLocalRandom.current().nextInt(keys.length)];
    }

    /** @return the value of a random key */
    @Benchmark
    public byte[] get() {
        return get(randomKey());
    }

    /** Overwrites the value of a random key. */
    @Benchmark
    public void put() {
        put(randomKey(), value);
    }

    /** Reads the 100 entries from a random key on (fewer near the end). */
    @Benchmark
    public void scan100(Blackhole bh) {
        scan(randomKey(), bh);
    }

    static void scanTail(Map<String, byte[]> tail, Blackhole bh) {
        int n = 0;
        for (Map.Entry<String, byte[]> e : tail.entrySet()) {
            bh.consume(e.getValue());
            if (++n == 100) {
                return;
            }
        }
    }

    /** FerriteSortedMap in a file pool. */
    public static class FerriteSorted extends SortedMaps {
        /** Bytes per page of the tree: the builder's default unless a run asks for others ({@code -p pageSize=...}). */
        @Param({"4096"})
        public int pageSize;

        private FerriteSortedMap<String, byte[]> map;

        @Override
        void open(Path dir, int entries) {
            map = FerriteSortedMap.builder(Codec.utf8(), Codec.bytes()).backend("unsafe").pageSize(pageSize)
                    .file(dir.resolve("sorted.pool")).create();
        }

        @Override
        byte[] get(String key) {
            return map.get(key);
        }

        @Override
        void put(String key, byte[] value) {
            map.put(key, value);
        }

        @Override
        void scan(String from, Blackhole bh) {
            scanTail(map.tailMap(from), bh);
        }

        @Override
        void close() {
            map.close();
        }
    }

    /** ConcurrentSkipListMap on the heap (a user's copy of each value put). */
    public static class SkipList extends SortedMaps {
        private final ConcurrentSkipListMap<String, byte[]> map = new ConcurrentSkipListMap<>();

        @Override
        void open(Path dir, int entries) {
        }

        @Override
        byte[] get(String key) {
            return map.get(key);
        }

        @Override
        void put(String key, byte[] value) {
            map.put(key, value.clone());
        }

        @Override
        void scan(String from, Blackhole bh) {
            scanTail(map.tailMap(from), bh);
        }

        @Override
        void close() {
            map.clear();
        }
    }

    /** LMDB through lmdbjava, values copied out as the others hand them. */
    public static class LmdbSorted extends SortedMaps {
        private Env<ByteBuffer> env;
        private Dbi<ByteBuffer> db;

        @Override
        void open(Path dir, int entries) {
            env = Env.create().setMapSize(Math.max(64L << 20, entries * 1024L)).setMaxDbs(1).setMaxReaders(64)
                    .open(dir.toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_WRITEMAP, EnvFlags.MDB_NOTLS);
            db = env.openDbi("bench", DbiFlags.MDB_CREATE);
        }

        @Override
        byte[] get(String key) {
            try (Txn<ByteBuffer> txn = env.txnRead()) {
                ByteBuffer v = db.get(txn, direct(key));
                byte[] out = new byte[v.remaining()];
                v.get(out);
                return out;
            }
        }

        @Override
        void put(String key, byte[] value) {
            db.put(direct(key), ByteBuffer.allocateDirect(value.length).put(value).flip());
        }

        @Override
        void scan(String from, Blackhole bh) {
            try (Txn<ByteBuffer> txn = env.txnRead(); Cursor<ByteBuffer> c = db.openCursor(txn)) {
                boolean at = c.get(direct(from), GetOp.MDB_SET_RANGE);
                for (int i = 0; at && i < 100; i++) {
                    byte[] v = new byte[c.val().remaining()];
                    c.val().get(v);
                    bh.consume(v);
                    at = c.seek(SeekOp.MDB_NEXT);
                }
            }
        }

        @Override
        void close() {
            db.close();
            env.close();
        }

        private static ByteBuffer direct(String k) {
            byte[] b = k.getBytes(StandardCharsets.ISO_8859_1);
            return ByteBuffer.allocateDirect(b.length).put(b).flip();
        }
    }
}
