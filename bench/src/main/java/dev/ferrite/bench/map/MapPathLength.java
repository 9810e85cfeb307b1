package dev.ferrite.bench.map;

import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.FerriteMapBuilder;
import dev.ferrite.kv.ValueReader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One map operation run a given number of times on one thread, after a warm-up of the same
 * operation: the program {@code bench/tools/path-length.sh} runs under callgrind to count the
 * instructions an operation takes (its own loop's share measured by the {@code loop} mode), and
 * {@code bench/tools/path-annotate.sh} to show which instructions of a compiled method they are. An
 * instruction count does not move with the host's load, where a time does; it says how long a
 * path is, not how fast it runs.
 *
 * <p>Usage: {@code MapPathLength MODE BACKEND ENTRIES WARM-UP OPERATIONS}. Modes: {@code loop}
 * (a random key fetched, no map), {@code chm-get} ({@code ConcurrentHashMap.get}), {@code get},
 * {@code get-into} ({@code get(key, byte[])}), {@code contains}, {@code miss} ({@code containsKey} of a key
 * not in the map), {@code read-value} (zero-copy, a
 * {@code byte[]} key, the last byte of the value read), {@code get-all} (16 keys a call: an
 * operation is one key), {@code chm-put} and {@code put} (an existing key's value replaced by
 * another of the same length), {@code insert} (a key not in the map put, then removed: an operation is
 * both), {@code get-text} and {@code put-text} (the same on a map of
 * {@code String} values, 100 ASCII chars, through the {@code utf8} codec). Keys of 16 bytes,
 * values of 100 ({@link MapData}), as the map benchmarks.
 */
public final class MapPathLength {

    /** The modes this program runs. */
    static final List<String> MODES = List.of("loop", "chm-get", "get", "get-into", "contains", "miss", "read-value", "get-all", "chm-put", "put", "insert",
            "get-text", "put-text");

    private static final ValueReader<Boolean> LAST_BYTE = (segment, offset, length) ->
            segment.getByte(offset + length - 1) == 0 ? Boolean.TRUE : Boolean.FALSE;
    private static final int BATCH = 16;

    private final String mode;
    private final int entries;
    private final String[] keys;
    /** Keys not in the map, for {@code miss} and {@code insert}; only those modes make them. */
    private final String[] misses;
    private final byte[][] keyBytes;
    private final byte[] into = new byte[MapData.VALUE_BYTES];
    private final byte[] value = MapData.value(-1);
    private final SplittableRandom random = new SplittableRandom(42);
    private ConcurrentHashMap<String, byte[]> chm;
    private FerriteMap<String, byte[]> map;
    private FerriteMap<String, String> textMap;
    private final String text = text(-1);

    private MapPathLength(String mode, int entries) {
        this.mode = mode;
        this.entries = entries;
        this.keys = MapData.keys(0, entries); // other instances than the stored keys, as a request brings them
        this.misses = mode.equals("miss") || mode.equals("insert") ? MapData.keys(MapData.MISS_BASE, entries) : null;
        this.keyBytes = new byte[entries][];
        for (int i = 0; i < entries; i++) {
            keyBytes[i] = MapData.keyBytes(i);
        }
    }

    /**
     * @param args mode, backend, entries, warm-up operations, measured operations
     * @throws IOException if the map's directory cannot be made or deleted
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 5 || !MODES.contains(args[0])) {
            System.err.println("usage: MapPathLength " + String.join("|", MODES) + " BACKEND ENTRIES WARM-UP OPERATIONS");
            System.exit(2);
        }
        long sum = measure(args[0], args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]), Long.parseLong(args[4]));
        System.out.printf(Locale.ROOT, "%s: %s operations after %s (checksum %d)%n", args[0], args[4], args[3], sum);
    }

    /**
     * Runs a mode's warm-up, then its measured operations, on a new map in a temporary directory
     * (or a named {@code /dev/shm} pool for {@code shm}), deleted afterwards.
     *
     * @param mode       one of {@link #MODES}
     * @param backend    the map's backend
     * @param entries    keys in the map, at least 1
     * @param warmUp     operations before
     * @param operations operations measured
     * @return the sum of what the measured operations returned (value lengths, hits)
     * @throws IOException if the directory cannot be made or deleted
     */
    static long measure(String mode, String backend, int entries, long warmUp, long operations) throws IOException {
        MapPathLength run = new MapPathLength(mode, entries);
        Path dir = Files.createTempDirectory("ferrite-path-length");
        try {
            run.fill(backend, dir);
            run.run(warmUp);
            return run.run(operations);
        } finally {
            if (run.map != null || run.textMap != null) {
                (run.map != null ? run.map : run.textMap).close();
                if (backend.equals("shm")) {
                    Ferrite.backend("shm").deletePool(PoolSpec.shm(shmName()).build());
                }
            }
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static String shmName() {
        return "ferrite-path-length-" + ProcessHandle.current().pid();
    }

    private void fill(String backend, Path dir) {
        if (mode.startsWith("chm-")) {
            chm = new ConcurrentHashMap<>();
            for (int i = 0; i < entries; i++) {
                chm.put(MapData.key(i), MapData.value(i));
            }
            return;
        }
        if (mode.endsWith("-text")) {
            FerriteMapBuilder<String, String> builder = FerriteMap.builder(Codec.utf8(), Codec.utf8()).backend(backend)
                    .expectedEntries(entries).averageKeySize(16).averageValueSize(MapData.VALUE_BYTES).capacity(16L << 30);
            textMap = backend.equals("shm") ? builder.shm(shmName()).create() : builder.file(dir.resolve("map.pool")).create();
            for (int i = 0; i < entries; i++) {
                textMap.put(MapData.key(i), text(i));
            }
            return;
        }
        FerriteMapBuilder<String, byte[]> builder = FerriteMap.builder(Codec.utf8(), Codec.bytes()).backend(backend)
                .expectedEntries(entries).averageKeySize(16).averageValueSize(MapData.VALUE_BYTES).capacity(16L << 30);
        map = backend.equals("shm") ? builder.shm(shmName()).create() : builder.file(dir.resolve("map.pool")).create();
        for (int i = 0; i < entries; i++) {
            map.put(MapData.key(i), MapData.value(i));
        }
    }

    /** @return a value of {@link MapData#VALUE_BYTES} ASCII letters derived from an index */
    private static String text(long index) {
        byte[] v = MapData.value(index);
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) ('a' + (v[i] & 15));
        }
        return new String(v, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** @return a sum of what the operations returned, so that none is left out */
    private long run(long operations) {
        switch (mode) {
            case "loop": return loop(operations);
            case "chm-get": return chmGet(operations);
            case "get": return get(operations);
            case "get-into": return getInto(operations);
            case "contains": return contains(operations);
            case "miss": return miss(operations);
            case "read-value": return readValue(operations);
            case "get-all": return getAll(operations);
            case "chm-put": return chmPut(operations);
            case "insert": return insert(operations);
            case "get-text": return getText(operations);
            case "put-text": return putText(operations);
            default: return put(operations);
        }
    }

    // One method a mode: each loop compiled on its own, as a JMH benchmark method is.

    private long loop(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += keys[random.nextInt(entries)].length();
        }
        return sum;
    }

    private long chmGet(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += chm.get(keys[random.nextInt(entries)]).length;
        }
        return sum;
    }

    private long get(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += map.get(keys[random.nextInt(entries)]).length;
        }
        return sum;
    }

    private long getInto(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += map.get(keys[random.nextInt(entries)], into);
        }
        return sum;
    }

    private long contains(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += map.containsKey(keys[random.nextInt(entries)]) ? 1 : 0;
        }
        return sum;
    }

    private long miss(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += map.containsKey(misses[random.nextInt(entries)]) ? 1 : 0;
        }
        return sum;
    }

    private long readValue(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += map.readValue(keyBytes[random.nextInt(entries)], LAST_BYTE) ? 1 : 0;
        }
        return sum;
    }

    private long chmPut(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += chm.put(keys[random.nextInt(entries)], value).length;
        }
        return sum;
    }

    private long put(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += map.put(keys[random.nextInt(entries)], value).length;
        }
        return sum;
    }

    private long insert(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            String k = misses[random.nextInt(entries)];
            sum += map.put(k, value) == null ? 1 : 0;
            sum += map.remove(k).length;
        }
        return sum;
    }

    private long getText(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += textMap.get(keys[random.nextInt(entries)]).length();
        }
        return sum;
    }

    private long putText(long operations) {
        long sum = 0;
        for (long i = 0; i < operations; i++) {
            sum += textMap.put(keys[random.nextInt(entries)], text).length();
        }
        return sum;
    }

    private long getAll(long operations) {
        long sum = 0;
        String[] batch = new String[BATCH];
        for (long i = 0; i < operations; i += BATCH) {
            for (int k = 0; k < BATCH; k++) {
                batch[k] = keys[random.nextInt(entries)];
            }
            sum += map.getAll(Arrays.asList(batch)).size();
        }
        return sum;
    }
}
