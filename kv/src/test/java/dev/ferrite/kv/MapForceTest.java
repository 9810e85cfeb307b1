package dev.ferrite.kv;

import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.testkit.DirtyPages;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link FerriteMap#force()} writes the map's changed pages to its file on every backend: afterwards
 * none of this process's mappings of the file holds a dirty page (Linux's {@code /proc/self/smaps}
 * tells). On {@code ffm} the pool's flush once left the data region out.
 */
class MapForceTest {

    private static final int ENTRIES = 4000;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void forceLeavesNoDirtyPageOfTheMapFile(String backend, @TempDir Path dir) throws Exception {
        assumeTrue(DirtyPages.readable(), "needs Linux's /proc/self/smaps");
        assumeTrue(Ferrite.backend(backend).supports(PoolSpec.Kind.FILE), () -> backend + " makes no file pools");
        FerriteMapBuilder<Integer, byte[]> b = MapTargets.place(FerriteMap.builder(Codec.int32(), Codec.bytes()),
                backend, MapTargets.Kind.FILE, dir);
        try (FerriteMap<Integer, byte[]> map = b.create()) {
            String file = map.pool().spec().path().toRealPath().toString();
            long written = 0;
            long dirty = 0;
            // A liveness stamp may dirty a page (on newer kernels a whole large folio) between the
            // force and the reading: then the round goes again. Without a working force() every
            // round finds the megabytes just written still dirty.
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < ENTRIES; i++) {
                    map.put(i, new byte[1000 + round]);
                }
                written = DirtyPages.kilobytes(file);
                if (written < ENTRIES / 2) {
                    continue; // the kernel wrote pages back already: this round tells nothing
                }
                map.force();
                dirty = DirtyPages.kilobytes(file);
                if (dirty <= written / 8) {
                    assertEquals(ENTRIES, map.size());
                    return;
                }
            }
            long w = written;
            assumeTrue(w >= ENTRIES / 2, () -> "the kernel wrote the pages back already (" + w + " kB dirty)");
            fail(backend + ": " + dirty + " kB of " + file + " still dirty after force(), of " + written + " kB before");
        }
    }
}
