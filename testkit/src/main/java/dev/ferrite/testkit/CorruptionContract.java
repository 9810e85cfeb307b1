package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.internal.pool.ChunkTableLayout;
import dev.ferrite.internal.pool.DirectoryLayout;
import dev.ferrite.internal.pool.PoolHeaderLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad pool files: each kind of damage gives a {@link CorruptFileException} naming the field and
 * the value, before any memory access that could fault; a fuzz test flips and truncates bytes and
 * accepts only a sound open (then the pool must work) or that exception, never a crash.
 */
public interface CorruptionContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 4096;

    /**
     * Makes a closed pool file with named segments, freed chunks and a few extents.
     *
     * @param dir where
     * @return its path
     */
    default Path samplePool(Path dir) {
        PoolSpec spec = spec(PoolSpec.Kind.FILE, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(8 * CHUNK)
                .maxNamedSegments(8).build();
        try (ChunkPool pool = backend().createPool(spec)) {
            Segment a = pool.allocate("alpha", 3 * CHUNK);
            a.putLong(0, 11);
            a.close();
            Segment junk = pool.allocate(9 * CHUNK);
            pool.allocate("beta", 2 * CHUNK + 5).close();
            junk.close();
            pool.allocate("gamma", 0).close();
        }
        return spec.path();
    }

    private static ByteBuffer readAll(Path file) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void write(Path file, ByteBuffer bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            bytes.position(0);
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
        }
    }

    private void assertCorrupt(Path file, Consumer<ByteBuffer> damage, String... mustMention) throws IOException {
        ByteBuffer bytes = readAll(file);
        damage.accept(bytes);
        write(file, bytes);
        CorruptFileException e = assertThrows(CorruptFileException.class,
                () -> backend().openPool(PoolSpec.file(file).build()).close());
        for (String s : mustMention) {
            assertTrue(e.getMessage().contains(s), "'" + e.getMessage() + "' should mention '" + s + "'");
        }
    }

    private static long chunkEntry(ByteBuffer b, int chunk) {
        return b.getLong(PoolHeaderLayout.CHUNK_TABLE_OFFSET_OFFSET) + (long) chunk * ChunkTableLayout.ENTRY_SIZE;
    }

    /** Each kind of damage to the header is named. */
    @Test
    default void damagedHeadersAreNamed(@TempDir Path dir) throws IOException {
        Path file = samplePool(dir);
        byte[] good = Files.readAllBytes(file);
        assertCorrupt(file, b -> b.putLong(PoolHeaderLayout.MAGIC_OFFSET, 0x1234), "magic", "0x1234", "FERRPOOL");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putInt(PoolHeaderLayout.VERSION_OFFSET, 99), "version is 99");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putLong(PoolHeaderLayout.CHUNK_SIZE_OFFSET, 1000), "chunk size is 1000");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putLong(PoolHeaderLayout.CREATED_MILLIS_OFFSET, 7), "geometry CRC");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putInt(PoolHeaderLayout.OBTAINED_EXTENTS_OFFSET, 9), "obtained extents is 9", "[0, 8]");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putInt(PoolHeaderLayout.STATE_OFFSET, 5), "state is 5");
    }

    /** A file cut short anywhere is refused before anything is mapped. */
    @Test
    default void truncatedFilesAreRefused(@TempDir Path dir) throws IOException {
        Path file = samplePool(dir);
        byte[] good = Files.readAllBytes(file);
        ByteBuffer g = ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN);
        long dataOffset = g.getLong(PoolHeaderLayout.DATA_OFFSET_OFFSET);
        long required = dataOffset + g.getInt(PoolHeaderLayout.OBTAINED_EXTENTS_OFFSET) * 8 * CHUNK;
        for (long length : new long[] {0, 100, PoolHeaderLayout.HEADER_SIZE - 1, dataOffset - 1, dataOffset + CHUNK,
            required - 1}) {
            Files.write(file, good);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(length);
            }
            CorruptFileException e = assertThrows(CorruptFileException.class,
                    () -> backend().openPool(PoolSpec.file(file).build()).close(), "length " + length);
            assertTrue(e.getMessage().contains("file length is " + length) || e.getMessage().contains("magic"),
                    e.getMessage());
        }
    }

    /** Damage to the free stack and to chains is named, not followed. */
    @Test
    default void damagedLinksAreNamed(@TempDir Path dir) throws IOException {
        Path file = samplePool(dir);
        byte[] good = Files.readAllBytes(file);
        int head = (int) ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN).getLong(PoolHeaderLayout.FREE_HEAD_OFFSET);
        assertCorrupt(file, b -> b.putInt((int) chunkEntry(b, head) + ChunkTableLayout.NEXT, head), "free stack", "cycle");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putInt((int) chunkEntry(b, head) + ChunkTableLayout.NEXT, 1_000_000),
                "free stack link", "1000000");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putLong(PoolHeaderLayout.FREE_HEAD_OFFSET, 5_000), "5000");

        Files.write(file, good);
        ByteBuffer g = ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN);
        long slot0 = PoolHeaderLayout.HEADER_SIZE;
        int first = g.getInt((int) slot0 + DirectoryLayout.FIRST_CHUNK);
        assertCorrupt(file, b -> b.putInt((int) chunkEntry(b, first) + ChunkTableLayout.NEXT, 77_777),
                "chain of directory slot 0", "77777");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putInt((int) chunkEntry(b, first) + ChunkTableLayout.OWNER, 0), "owner of chunk " + first);
        Files.write(file, good);
        assertCorrupt(file, b -> b.put((int) slot0 + DirectoryLayout.NAME, (byte) 'X'), "directory slot 0 CRC");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putInt((int) slot0 + DirectoryLayout.STATE, 9), "directory slot 0 state is 9");
        Files.write(file, good);
        assertCorrupt(file, b -> b.putInt((int) chunkEntry(b, first) + ChunkTableLayout.OWNER, 1000), "is 1000");

        Files.write(file, good);
        try (ChunkPool pool = backend().openPool(PoolSpec.file(file).build())) {
            assertTrue(pool.openReport().wasClean(), pool.openReport().toString());
            assertEquals(11, pool.open("alpha").orElseThrow().getLong(0));
        }
    }

    /**
     * A reproducer of a hang the fuzz below found: an owner slot with a non-zero word, a liveness
     * record whose owner is another non-zero word (which, for the microseconds of a claim, means
     * "still writing its record: alive") and a busy count — three flipped bits of a free slot.
     * Opening waited forever for that "process" to leave its busy section; it now waits out the
     * liveness timeout (10 s), then treats the slot as damage, and the pool opens.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    default void aDamagedOwnerSlotNamingALiveProcessDoesNotHangTheOpen(@TempDir Path dir) throws IOException {
        Path file = samplePool(dir);
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int slot = PoolHeaderLayout.OWNER_TABLE_OFFSET + 5 * PoolHeaderLayout.OWNER_SLOT_SIZE;
        b.putLong(slot + PoolHeaderLayout.OWNER_WORD, 1L << 40);
        b.putLong(slot + dev.ferrite.internal.pool.LivenessLayout.SLOT_OFFSET + dev.ferrite.internal.pool.LivenessLayout.OWNER,
                1L << 20);
        b.putInt(slot + PoolHeaderLayout.OWNER_BUSY, 1);
        Files.write(file, bytes);
        try (ChunkPool pool = backend().openPool(PoolSpec.file(file).build())) {
            assertEquals(11, pool.open("alpha").orElseThrow().getLong(0));
        } catch (CorruptFileException e) {
            // a clear refusal is as good as a sound open; waiting forever is not
        }
    }

    /**
     * Random damage to the bookkeeping: every open is either sound (and the pool then works,
     * checks clean after recovery, and keeps the data it reports) or a CorruptFileException.
     */
    @Test
    default void fuzzedFilesOpenSoundlyOrFailClearly(@TempDir Path dir) throws IOException {
        Path file = samplePool(dir);
        byte[] good = Files.readAllBytes(file);
        ByteBuffer g = ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN);
        long tableOffset = g.getLong(PoolHeaderLayout.CHUNK_TABLE_OFFSET_OFFSET);
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        int sound = 0;
        int corrupt = 0;
        for (int round = 0; round < 300; round++) {
            byte[] bytes = good.clone();
            long length = bytes.length;
            int damage = rnd.nextInt(10);
            if (damage == 0) {
                length = rnd.nextInt(bytes.length);
            } else {
                for (int i = 0; i < 1 + rnd.nextInt(3); i++) {
                    int region = rnd.nextInt(4);
                    int at;
                    if (region == 0) {
                        at = rnd.nextInt(1024);
                    } else if (region == 1) {
                        at = PoolHeaderLayout.OWNER_TABLE_OFFSET + rnd.nextInt(256);
                    } else if (region == 2) {
                        at = PoolHeaderLayout.HEADER_SIZE + rnd.nextInt(4 * DirectoryLayout.SLOT_SIZE);
                    } else {
                        at = (int) tableOffset + rnd.nextInt(32 * ChunkTableLayout.ENTRY_SIZE);
                    }
                    bytes[at] ^= (byte) (1 << rnd.nextInt(8));
                }
            }
            Files.write(file, java.util.Arrays.copyOf(bytes, (int) length));
            try (ChunkPool pool = backend().openPool(PoolSpec.file(file).build())) {
                sound++;
                exercise(pool);
            } catch (CorruptFileException e) {
                corrupt++;
            } catch (FerriteException | AssertionError e) {
                throw new AssertionError("seed " + seed + " round " + round + ": " + e, e);
            }
        }
        assertTrue(sound > 0 && corrupt > 0, "seed " + seed + ": " + sound + " sound, " + corrupt + " corrupt");
    }

    private static void exercise(ChunkPool pool) {
        for (String name : pool.segmentNames()) {
            try (Segment s = pool.open(name).orElseThrow()) {
                byte[] all = new byte[(int) s.size()];
                s.copyTo(0, all, 0, all.length);
            }
        }
        long free = pool.freeChunks();
        if (free > 0) {
            try (Segment s = pool.allocate(free * pool.chunkSize())) {
                s.fill(0, s.size(), (byte) 3);
                assertEquals(0, pool.freeChunks());
            }
        }
        assertEquals(free, pool.freeChunks());
        if (!pool.recover().wasClean()) {
            fail("a second recovery found more to do: " + pool.recover());
        }
        byte[] data = {1, 2, 3};
        try (Segment s = pool.allocate("fuzz-new", 3)) {
            s.copyFrom(data, 0, 0, 3);
            byte[] back = new byte[3];
            s.copyTo(0, back, 0, 3);
            assertArrayEquals(data, back);
        } catch (FerriteException full) {
            if (!full.getMessage().contains("full") && !full.getMessage().contains("already exists")
                    && !(full instanceof dev.ferrite.PoolExhaustedException)) {
                throw full;
            }
        }
    }
}
