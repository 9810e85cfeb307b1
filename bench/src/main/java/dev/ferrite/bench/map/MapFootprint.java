package dev.ferrite.bench.map;

import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.FerriteMapBuilder;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Bytes per entry of each map holding the benchmark's data ({@link MapData}: 16-byte keys, 100-byte
 * values), each in a fresh JVM. What counts: for maps in files or {@code /dev/shm}, the blocks the
 * file system allocated for them after the load and a clean close ({@code du}); for OHC, its
 * {@code memUsed()}; for {@code ConcurrentHashMap}, the heap it holds after a full GC.
 *
 * <pre>
 * java [flags] -cp ferrite-bench.jar dev.ferrite.bench.map.MapFootprint LIBRARY ENTRIES [LOAD_FACTOR]
 * </pre>
 *
 * <p>{@code LIBRARY} is {@code ferrite-BACKEND}, {@code chm}, {@code chronicle}, {@code ohc} or
 * {@code lmdb}; prints the bytes per entry on one line. {@code LOAD_FACTOR} (Ferrite only, default
 * the builder's) is {@link FerriteMapBuilder#loadFactor}'s.
 */
public final class MapFootprint {

    private MapFootprint() {
    }

    /**
     * @param args library, number of entries and, for Ferrite, optionally the load factor
     * @throws Exception if the map cannot be built or measured
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2 && !(args.length == 3 && args[0].startsWith("ferrite-"))) {
            throw new IllegalArgumentException("usage: MapFootprint LIBRARY ENTRIES [LOAD_FACTOR (ferrite-BACKEND only)]");
        }
        int entries = Integer.parseInt(args[1]);
        double loadFactor = args.length == 3 ? Double.parseDouble(args[2]) : 0;
        Path dir = Files.createTempDirectory("ferrite-footprint");
        try {
            double bytes = measure(args[0], entries, loadFactor, dir);
            System.out.println(String.format(Locale.ROOT, "%.1f", bytes / entries));
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** @param loadFactor Ferrite's load factor, or 0 for the builder's default */
    private static double measure(String library, int entries, double loadFactor, Path dir) throws Exception {
        if (library.startsWith("ferrite-")) {
            return ferrite(library.substring("ferrite-".length()), entries, loadFactor, dir);
        }
        switch (library) {
            case "chm":
                return chm(entries);
            case "chronicle":
                try (net.openhft.chronicle.map.ChronicleMap<String, byte[]> map = Peers.chronicle(dir, entries)) {
                    load(PeerMap.of(map), entries);
                }
                return allocated(dir);
            case "ohc": {
                PeerMap map = Peers.ohc(entries);
                load(map, entries);
                long used = map.offHeapBytes();
                map.close();
                return used;
            }
            case "lmdb": {
                PeerMap map = Peers.lmdb(dir, entries);
                load(map, entries);
                map.close();
                return allocated(dir);
            }
            default:
                throw new IllegalArgumentException("unknown library " + library);
        }
    }

    private static double ferrite(String backend, int entries, double loadFactor, Path dir)
            throws IOException, InterruptedException {
        String shmName = "ferrite-footprint-" + ProcessHandle.current().pid();
        FerriteMapBuilder<String, byte[]> builder = FerriteMap.builder(Codec.utf8(), Codec.bytes()).backend(backend)
                .expectedEntries(entries).averageKeySize(16).averageValueSize(MapData.VALUE_BYTES)
                .capacity(64L << 30);
        if (loadFactor > 0) {
            builder.loadFactor(loadFactor);
        }
        boolean shm = backend.equals("shm");
        if (shm) {
            builder.shm(shmName);
        } else {
            builder.file(dir.resolve("map.pool"));
        }
        try (FerriteMap<String, byte[]> map = builder.create()) {
            for (int i = 0; i < entries; i++) {
                map.put(MapData.key(i), MapData.value(i));
            }
        }
        if (!shm) {
            return allocated(dir);
        }
        try {
            return allocated(Path.of("/dev/shm", shmName));
        } finally {
            Ferrite.backend(backend).deletePool(PoolSpec.shm(shmName).build());
        }
    }

    private static double chm(int entries) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = heapAfterGc(memory);
        ConcurrentHashMap<String, byte[]> map = new ConcurrentHashMap<>(entries * 2);
        load(PeerMap.of(map), entries);
        long after = heapAfterGc(memory);
        if (map.size() != entries) {
            throw new IllegalStateException("lost entries");
        }
        return after - before;
    }

    private static long heapAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static void load(PeerMap map, int entries) {
        for (int i = 0; i < entries; i++) {
            map.put(MapData.key(i), MapData.value(i));
        }
    }

    /** @return the bytes the file system allocated for a file or a directory's files */
    static long allocated(Path path) throws IOException, InterruptedException {
        Process du = new ProcessBuilder("du", "-s", "--block-size=1", path.toString()).redirectErrorStream(true).start();
        String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!du.waitFor(60, TimeUnit.SECONDS) || du.exitValue() != 0) {
            throw new IOException("du " + path + " failed: " + out);
        }
        return Long.parseLong(out.split("\\s+")[0]);
    }
}
