package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * File pools on a full file system: a 1 MiB tmpfs that this test mounts (as Docker's small
 * {@code /dev/shm} would be). An extent or bookkeeping the file system cannot hold is a
 * {@link PoolExhaustedException} naming the file system and the bytes it lacks, at allocation
 * (or creation) time, never a SIGBUS on a later write; what fits works. Skipped, with the reason,
 * where mounting is not permitted.
 */
public interface FullFileSystemContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 64 * 1024;

    private static Path mountSmallTmpfs(Path dir, String name) throws IOException, InterruptedException {
        Path mount = Files.createDirectories(dir.resolve(name));
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "ferrite-full-test", mount.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assumeTrue(p.waitFor() == 0, "cannot mount a small tmpfs here: " + out);
        return mount;
    }

    // Lazy: a backend that leaves unmapping to the garbage collector still has the files mapped.
    private static void unmount(Path mount) throws IOException, InterruptedException {
        new ProcessBuilder("umount", "--lazy", mount.toString()).inheritIO().start().waitFor();
    }

    /** Extents that do not fit are refused at allocation; what fits is written and read back. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE"})
    default void aFullFileSystemIsAnExceptionAtAllocationAndWhatFitsWorks(PoolSpec.Kind kind, @TempDir Path dir)
            throws Exception {
        assumeTrue(backend().supports(kind), backend().name() + " does not make file pools");
        Path mount = mountSmallTmpfs(dir, "tmpfs-a");
        try {
            // 8 MiB at once: far more than the file system holds.
            try (ChunkPool big = backend().createPool(PoolSpec.file(mount.resolve("big.pool")).chunkSize(CHUNK)
                    .capacity(1024 * CHUNK).maxNamedSegments(16).build())) {
                PoolExhaustedException e = assertThrows(PoolExhaustedException.class, () -> big.allocate(8 << 20));
                assertTrue(e.getMessage().contains("ferrite-full-test") && e.getMessage().contains("lacks"),
                        e.getMessage());
                assertEquals(0, big.usedChunks(), "nothing stays allocated");
            }
        } finally {
            unmount(mount);
        }
        mount = mountSmallTmpfs(dir, "tmpfs-b");
        try {
            // Segments of 4 chunks (256 KiB): some fit, the rest are refused.
            try (ChunkPool pool = backend().createPool(PoolSpec.file(mount.resolve("small.pool")).chunkSize(CHUNK)
                    .capacity(64 * CHUNK).extentSize(4 * CHUNK).maxNamedSegments(16).build())) {
                List<Segment> fitted = new ArrayList<>();
                PoolExhaustedException full = null;
                for (int i = 0; i < 16 && full == null; i++) {
                    try {
                        Segment s = pool.allocate(4 * CHUNK);
                        for (long off = 0; off < s.size(); off += 8) {
                            s.putLong(off, off ^ i);
                        }
                        fitted.add(s);
                    } catch (PoolExhaustedException e) {
                        full = e;
                    }
                }
                assertTrue(full != null, "1 MiB cannot hold 16 extents of 256 KiB");
                assertTrue(full.getMessage().contains("ferrite-full-test") && full.getMessage().contains("lacks"),
                        full.getMessage());
                assertFalse(fitted.isEmpty(), "what fits is allocated");
                for (int i = 0; i < fitted.size(); i++) {
                    Segment s = fitted.get(i);
                    for (long off = 0; off < s.size(); off += 8) {
                        assertEquals(off ^ i, s.getLong(off));
                    }
                }
                assertEquals(4L * fitted.size(), pool.usedChunks());
                fitted.remove(0).close();
                try (Segment again = pool.allocate(4 * CHUNK)) {
                    again.fill(0, again.size(), (byte) 7);
                    assertEquals(7, again.getByte(again.size() - 1), "freed chunks are reused without new space");
                }
                fitted.forEach(Segment::close);
            }
        } finally {
            unmount(mount);
        }
    }

    /** A pool whose bookkeeping alone does not fit is refused at creation and leaves no file. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE"})
    default void bookkeepingThatDoesNotFitIsRefusedAtCreation(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        assumeTrue(backend().supports(kind), backend().name() + " does not make file pools");
        Path mount = mountSmallTmpfs(dir, "tmpfs-c");
        try {
            Path file = mount.resolve("huge.pool");
            // 4 KiB chunks over 4 GiB: a chunk table of 8 MiB.
            PoolExhaustedException e = assertThrows(PoolExhaustedException.class, () -> backend().createPool(
                    PoolSpec.file(file).chunkSize(4096).capacity(4L << 30).build()));
            assertTrue(e.getMessage().contains("bookkeeping") && e.getMessage().contains("lacks"), e.getMessage());
            assertFalse(Files.exists(file), "no file left behind");
        } finally {
            unmount(mount);
        }
    }
}
