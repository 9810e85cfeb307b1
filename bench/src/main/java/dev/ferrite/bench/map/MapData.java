package dev.ferrite.bench.map;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/**
 * Seed 003's data: keys of 16 bytes (16 ASCII hex digits of a scrambled index, so hashes and
 * placement are random) and values of 100 bytes; hit keys are indices [0, entries), miss keys
 * indices from 2^40 on, churn keys from 2^41 on.
 */
public final class MapData {

    /** Bytes per value. */
    public static final int VALUE_BYTES = 100;
    /** First index of the keys that are never present. */
    static final long MISS_BASE = 1L << 40;
    /** First index of the keys inserted and removed by the churn benchmark. */
    static final long CHURN_BASE = 1L << 41;

    private MapData() {
    }

    /** @return the 16-character key of an index (a bijection: distinct indices give distinct keys) */
    public static String key(long index) {
        long x = index * 0x9E3779B97F4A7C15L;
        x ^= x >>> 29;
        String hex = Long.toHexString(x);
        return "0".repeat(16 - hex.length()) + hex;
    }

    /** @return the key of an index as its 16 UTF-8 bytes */
    public static byte[] keyBytes(long index) {
        return key(index).getBytes(StandardCharsets.UTF_8);
    }

    /** @return a 100-byte value derived from an index */
    public static byte[] value(long index) {
        byte[] v = new byte[VALUE_BYTES];
        new SplittableRandom(index).nextBytes(v);
        return v;
    }

    /**
     * Ends a setup. First writes to disk what loading the maps of a directory left dirty in the
     * page cache (fsync of each file, which takes pages written through a mapping too): otherwise
     * the kernel writes the load back about 30 seconds after it (vm.dirty_expire), in the
     * middle of the measurement, and a file-backed map's gets run up to twice as slow while it does
     * (paired runs: 0.95x and 1.85x ConcurrentHashMap's time in two forks, 0.82x in both on
     * {@code /dev/shm}).
     *
     * <p>Then collects the heap once, so that the setup's objects (the maps' keys and values, the
     * benchmarks' arrays of keys: tens of millions of objects at 10M entries) are in the old
     * generation before the measurement. Otherwise the first young collections of a benchmark that
     * allocates copy them between the survivor spaces (0.3-0.4 s a collection at 10M entries under
     * G1) and charge that to the benchmark, and not to one that allocates nothing.
     *
     * @param dir a directory of map files
     * @throws IOException if a file cannot be synced
     */
    public static void settle(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                try (FileChannel c = FileChannel.open(f, StandardOpenOption.READ)) {
                    c.force(true);
                }
            }
        }
        System.gc();
    }

    /** @return keys of the indices [base, base + n) */
    static String[] keys(long base, int n) {
        String[] k = new String[n];
        for (int i = 0; i < n; i++) {
            k[i] = key(base + i);
        }
        return k;
    }
}
