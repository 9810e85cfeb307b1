package dev.ferrite.kv;

import dev.ferrite.Ferrite;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.testkit.ChildJvm;
import dev.ferrite.testkit.CloseUnderUse;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A map closed while another thread reads it, hundreds of times at random instants, in a child JVM
 * (a crash there is a failed test, not a lost test run): the reader's calls end or throw
 * {@link FerriteException}, and the JVM lives. Maps in anonymous memory and in files or named
 * shm pools, hash and sorted, on every backend.
 */
class CloseUnderReadersTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void closingAMapUnderAReaderNeverCrashesTheJvm(String backend) throws Exception {
        ChildJvm.Result r = ChildJvm.runCrashReportingTo(dir, CloseUnderReadersTest.class, backend, "250", dir.toString());
        assertEquals(0, r.exitCode(), "the child JVM died: " + r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("done"), r.stdout() + r.stderr());
    }

    /**
     * Closes maps under a reader and prints what the reader met; exits with 1 if it met anything
     * but the map's closed errors.
     *
     * @param args backend, rounds per kind of map, a directory for the file-backed ones
     */
    public static void main(String[] args) throws Exception {
        String backend = args[0];
        int rounds = Integer.parseInt(args[1]);
        Path dir = Path.of(args[2]);
        CloseUnderUse race = new CloseUnderUse();
        for (int round = 0; round < rounds; round++) {
            FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).backend(backend)
                    .expectedEntries(2000).capacity(64L << 20).create();
            race(race, map, k -> map.get(k));
            if (round % 5 == 0) { // a file, or for the shm backend a named shm pool: memory that outlives the map
                FerriteMapBuilder<byte[], byte[]> b = FerriteMap.builder(Codec.bytes(), Codec.bytes()).backend(backend)
                        .expectedEntries(2000).capacity(64L << 20);
                boolean shm = backend.equals("shm");
                FerriteMap<byte[], byte[]> named = (shm ? b.shm(MapTargets.shmName(round)) : b.file(dir.resolve("map-" + round))).create();
                PoolSpec spec = named.pool().spec();
                race(race, named, k -> named.get(k));
                if (shm) {
                    Ferrite.backend(backend).deletePool(spec);
                }
            }
            FerriteSortedMap<byte[], byte[]> sorted = FerriteSortedMap.builder(Codec.bytes(), Codec.bytes())
                    .backend(backend).capacity(64L << 20).create();
            race(race, sorted, k -> sorted.get(k));
        }
        System.exit(race.report());
    }

    /** Fills a map, then reads it from another thread and closes it at a random instant meanwhile. */
    private static void race(CloseUnderUse race, Map<byte[], byte[]> map, Function<byte[], byte[]> get) throws Exception {
        byte[][] keys = new byte[1000][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = ("key" + i).getBytes();
            map.put(keys[i], new byte[100]);
        }
        race.race(n -> get.apply(keys[(int) (n % keys.length)]), ((AutoCloseable) map)::close);
    }
}
