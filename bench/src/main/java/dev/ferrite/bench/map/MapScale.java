package dev.ferrite.bench.map;

import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The map's sizing claim, checked at full size: a file-backed map built with
 * {@code expectedEntries(1000)} takes {@code N} entries ({@code Long} keys and values), closes,
 * reopens (timed), and returns the right value for a million random keys. Prints progress every
 * 10 million entries and deletes the file at the end.
 *
 * <pre>
 * java -cp bench/target/ferrite-bench.jar dev.ferrite.bench.map.MapScale 100000000 /data/scale.map
 * </pre>
 */
public final class MapScale {

    private static final long SCRAMBLE = 0x9E3779B97F4A7C15L;

    private MapScale() {
    }

    /**
     * @param args number of entries, file
     * @throws Exception if the map fails or a key reads back wrong
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: MapScale ENTRIES FILE");
        }
        long n = Long.parseLong(args[0]);
        Path file = Path.of(args[1]);
        long t0 = System.nanoTime();
        try (FerriteMap<Long, Long> map = FerriteMap.builder(Codec.int64(), Codec.int64()).file(file)
                .expectedEntries(1000).create()) {
            for (long i = 0; i < n; i++) {
                map.put(i * SCRAMBLE, i);
                if ((i + 1) % 10_000_000 == 0) {
                    System.out.printf(Locale.ROOT, "%,d entries in %.0f s: %s%n", i + 1, seconds(t0), map.stats());
                }
            }
            System.out.printf(Locale.ROOT, "%,d entries in %.0f s; size() %,d%n", n, seconds(t0), map.longSize());
        }
        long t1 = System.nanoTime();
        try (FerriteMap<Long, Long> map = FerriteMap.builder(Codec.int64(), Codec.int64()).file(file).open()) {
            System.out.printf(Locale.ROOT, "reopened in %.1f ms: %,d entries%n", (System.nanoTime() - t1) / 1e6,
                    map.longSize());
            SplittableRandom random = new SplittableRandom(5);
            for (int k = 0; k < 1_000_000; k++) {
                long i = random.nextLong(n);
                Long v = map.get(i * SCRAMBLE);
                if (v == null || v != i) {
                    throw new AssertionError("entry " + i + " reads back as " + v);
                }
            }
            System.out.println("1,000,000 random keys read back right");
        }
        System.out.printf(Locale.ROOT, "file: %,d bytes (apparent size)%n", Files.size(file));
        Files.delete(file);
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
