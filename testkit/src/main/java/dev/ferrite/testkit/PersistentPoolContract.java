package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.RecoveryReport;
import dev.ferrite.Segment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * File and shm pools persist: closing and reopening gives back the same named segments and bytes,
 * the geometry comes from the file, two pool objects on one file share it, and read-only opening
 * works.
 */
public interface PersistentPoolContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 4096;

    /**
     * @param spec a file or shm spec
     * @return the same location with default settings, as a user reopening it would write
     */
    default PoolSpec reopenSpec(PoolSpec spec) {
        return spec.kind() == PoolSpec.Kind.FILE ? PoolSpec.file(spec.path()).build() : PoolSpec.shm(spec.shmName()).build();
    }

    private static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /**
     * {@code force()} writes every page the pool's segments changed to the file: afterwards none of
     * this process's mappings of the file holds a dirty page of the data written (Linux's
     * {@code /proc/self/smaps} tells). The {@code ffm} backend maps its data region as a memory
     * segment of its own, which {@code force()} once left out: 8 MiB written, 8 MiB still dirty
     * after it, so a power loss could take writes the caller had forced.
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE"})
    default void forceLeavesNoDirtyPageOfTheFile(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        assumeTrue(DirtyPages.readable(), "needs Linux's /proc/self/smaps");
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(4096 * CHUNK).build();
        long bytes = 2048 * CHUNK;
        try (TestPool tp = pool(spec); Segment s = tp.pool().allocate(bytes)) {
            String file = spec.path().toRealPath().toString();
            long before = 0;
            long after = 0;
            // The pool's liveness stamp may dirty a page (with the large page-cache folios of newer
            // kernels, a whole folio) between force() and the reading: the whole round goes again
            // then. Without a working force() every round finds the 8 MiB still dirty.
            for (int round = 0; round < 3; round++) {
                for (long off = 0; off < bytes; off += CHUNK) {
                    s.putLong(off, off + round + 1);
                }
                before = DirtyPages.kilobytes(file);
                if (before < bytes / 1024) {
                    continue; // the kernel wrote some back already: this round tells nothing
                }
                tp.pool().force();
                after = DirtyPages.kilobytes(file);
                if (after <= bytes / 1024 / 8) {
                    return;
                }
            }
            long b = before;
            assumeTrue(b >= bytes / 1024, () -> "the kernel wrote the pages back already (" + b + " kB dirty)");
            fail(after + " kB of " + file + " still dirty after force(), of " + before + " kB written");
        }
    }

    /** Named segments and their bytes survive close and reopen; unnamed ones are freed on close. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void reopenGivesBackTheSameSegmentsAndBytes(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(256 * CHUNK).extentSize(16 * CHUNK).build();
        byte[] big = pattern(40 * (int) CHUNK + 123, 1);
        byte[] small = pattern(100, 2);
        try (TestPool tp = pool(spec)) {
            ChunkPool pool = tp.pool();
            try (Segment a = pool.allocate("big", big.length); Segment b = pool.allocate("small", small.length);
                 Segment empty = pool.allocate("empty", 0)) {
                a.copyFrom(big, 0, 0, big.length);
                b.copyFrom(small, 0, 0, small.length);
                assertEquals(0, empty.size());
            }
            Segment unnamed = pool.allocate(10 * CHUNK);
            unnamed.fill(0, unnamed.size(), (byte) 1);
            pool.allocate("deleted", CHUNK).close();
            assertTrue(pool.delete("deleted"));
            assertEquals(42 + 10, pool.usedChunks());
            pool.force();
            pool.close();

            try (ChunkPool again = backend().openPool(reopenSpec(spec))) {
                assertTrue(again.openReport().wasClean(), again.openReport().toString());
                assertEquals(Set.of("big", "small", "empty"), again.segmentNames());
                assertEquals(42, again.usedChunks(), "the unnamed segment was freed by close");
                assertEquals(CHUNK, again.chunkSize(), "geometry comes from the file");
                assertEquals(256 * CHUNK, again.capacity());
                try (Segment a = again.open("big").orElseThrow(); Segment b = again.open("small").orElseThrow()) {
                    byte[] back = new byte[big.length];
                    a.copyTo(0, back, 0, back.length);
                    assertArrayEquals(big, back);
                    byte[] smallBack = new byte[small.length];
                    b.copyTo(0, smallBack, 0, smallBack.length);
                    assertArrayEquals(small, smallBack);
                    assertEquals("big", a.name());
                }
                assertEquals(0, again.open("empty").orElseThrow().size());
                assertTrue(again.open("deleted").isEmpty());
                assertTrue(again.recover().wasClean());
            }
        }
    }

    /** A pool that never obtained memory, or that was filled to capacity, reopens. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void emptyAndFullPoolsReopen(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(20 * CHUNK).extentSize(8 * CHUNK).build();
        try (TestPool tp = pool(spec)) {
            tp.pool().close();
            try (ChunkPool again = backend().openPool(reopenSpec(spec))) {
                assertEquals(20, again.freeChunks());
                try (Segment all = again.allocate("all", 20 * CHUNK)) {
                    all.putLong(all.size() - 8, 77);
                }
            }
            try (ChunkPool again = backend().openPool(reopenSpec(spec))) {
                assertEquals(0, again.freeChunks());
                try (Segment all = again.open("all").orElseThrow()) {
                    assertEquals(77, all.getLong(20 * CHUNK - 8));
                }
                assertTrue(again.delete("all"));
                assertEquals(20, again.freeChunks());
                try (Segment s = again.allocate(20 * CHUNK)) {
                    assertEquals(0, again.freeChunks());
                }
            }
        }
    }

    /**
     * Two pool objects on one file (as two processes would have) share named segments, bytes and
     * chunks; a segment deleted in one stays alive while the other holds it.
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void twoOpenersShareOnePool(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(8 * CHUNK).build();
        try (TestPool tp = pool(spec); ChunkPool other = backend().openPool(reopenSpec(spec))) {
            ChunkPool pool = tp.pool();
            Segment mine = pool.allocate("shared", 3 * CHUNK);
            mine.putLong(CHUNK + 8, 1234);
            Segment theirs = other.open("shared").orElseThrow();
            assertEquals(1234, theirs.getLong(CHUNK + 8));
            theirs.putLong(2 * CHUNK, -5);
            assertEquals(-5, mine.getLong(2 * CHUNK));

            Segment a = pool.allocate(10 * CHUNK);
            Segment b = other.allocate(10 * CHUNK);
            assertEquals(23, pool.usedChunks());
            assertEquals(23, other.usedChunks());
            a.fill(0, a.size(), (byte) 1);
            b.fill(0, b.size(), (byte) 2);
            assertEquals(1, a.getByte(a.size() - 1), "no chunk is in both segments");

            mine.close();
            assertTrue(pool.delete("shared"));
            assertFalse(other.segmentNames().contains("shared"));
            assertEquals(-5, theirs.getLong(2 * CHUNK), "the other opener's handle keeps the memory");
            assertEquals(23, pool.usedChunks());
            theirs.close();
            assertEquals(20, pool.usedChunks(), "freed when the last opener closed it");
            a.close();
            b.close();
            assertEquals(0, other.usedChunks());
        }
    }

    /** Opening read-only reads everything and changes nothing; writing needs a writable open. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE"})
    default void readOnlyOpenAndUnwritableFiles(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(16 * CHUNK).build();
        try (TestPool tp = pool(spec)) {
            try (Segment s = tp.pool().allocate("x", 2 * CHUNK)) {
                s.putLong(CHUNK, 99);
            }
            tp.pool().close();
            Files.setPosixFilePermissions(spec.path(), PosixFilePermissions.fromString("r--r--r--"));
            boolean root = Files.isWritable(spec.path());
            if (!root) {
                FerriteException e = assertThrows(FerriteException.class, () -> backend().openPool(reopenSpec(spec)));
                assertTrue(e.getMessage().contains("readOnly(true)"), e.getMessage());
            }
            PoolSpec ro = PoolSpec.file(spec.path()).readOnly(true).build();
            try (ChunkPool pool = backend().openPool(ro)) {
                assertEquals(Set.of("x"), pool.segmentNames());
                try (Segment s = pool.open("x").orElseThrow()) {
                    assertEquals(99, s.getLong(CHUNK));
                    FerriteException w = assertThrows(FerriteException.class, () -> s.fill(0, 8, (byte) 1));
                    assertTrue(w.getMessage().contains("read-only"), w.getMessage());
                    assertThrows(FerriteException.class, () -> s.copyFrom(new byte[4], 0, 0, 4));
                    if (backend().isChecked()) {
                        assertThrows(FerriteException.class, () -> s.putLong(0, 1));
                        assertThrows(FerriteException.class, () -> s.compareAndSetLong(0, 0, 1));
                    }
                    assertEquals(99, s.getLong(CHUNK));
                }
                assertThrows(FerriteException.class, () -> pool.allocate(1));
                assertThrows(FerriteException.class, () -> pool.allocate("y", 1));
                assertThrows(FerriteException.class, () -> pool.delete("x"));
                assertThrows(FerriteException.class, pool::recover);
            }
            Files.setPosixFilePermissions(spec.path(), PosixFilePermissions.fromString("rw-------"));
        }
    }

    /**
     * A read-only opener reads segments that a writer made after it opened, in extents the pool
     * obtained (and the file grew by) after it opened.
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void readOnlyOpenerSeesExtentsObtainedLater(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(8 * CHUNK).build();
        // The writer grows the file extent by extent: another backend where one is at hand (ffm maps
        // and sizes the whole capacity at once, so it would hide a reader that maps too little).
        dev.ferrite.spi.MemoryBackend writer = dev.ferrite.Ferrite.backends().stream()
                .filter(b -> b.isAvailable() && b.supports(kind) && !b.name().equals(backend().name())
                        && !b.name().equals("ffm"))
                .findFirst().orElse(backend());
        try (TestPool tp = new TestPool(writer.createPool(spec), spec)) {
            try (Segment first = tp.pool().allocate("first", CHUNK)) {
                first.putLong(0, 1);
            }
            PoolSpec ro = (kind == PoolSpec.Kind.FILE ? PoolSpec.file(spec.path()) : PoolSpec.shm(spec.shmName()))
                    .readOnly(true).build();
            try (ChunkPool reader = backend().openPool(ro)) {
                // 40 chunks: the writer obtains extents 1 to 5 now, after the reader mapped what there was.
                try (Segment later = tp.pool().allocate("later", 40 * CHUNK)) {
                    for (long off = 0; off < later.size(); off += CHUNK) {
                        later.putLong(off, off + 7);
                    }
                }
                try (Segment seen = reader.open("later").orElseThrow()) {
                    for (long off = 0; off < seen.size(); off += CHUNK) {
                        assertEquals(off + 7, seen.getLong(off), "offset " + off);
                    }
                    byte[] copy = new byte[8];
                    seen.copyTo(39 * CHUNK, copy, 0, 8);
                    assertEquals(39 * CHUNK + 7, java.nio.ByteBuffer.wrap(copy).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                            .getLong());
                }
            }
        }
    }

    /**
     * The file holds what docs/FORMAT.md says, at the offsets it gives (numbers written here from
     * the document, not taken from the code): what a reader in another language would rely on.
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE"})
    default void theFileMatchesTheDocumentedLayout(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(16 * CHUNK)
                .maxNamedSegments(10).build();
        try (TestPool tp = pool(spec)) {
            tp.pool().allocate(5 * CHUNK).close();
            try (Segment s = tp.pool().allocate("doc", CHUNK + 8)) {
                s.putLong(CHUNK, 0x1122334455667788L);
            }
            tp.pool().force();
            java.nio.ByteBuffer f = java.nio.ByteBuffer.wrap(Files.readAllBytes(spec.path()))
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            assertEquals("FERRPOOL", new String(f.array(), 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
            assertEquals(1, f.getInt(8));
            assertEquals(8192, f.getInt(12));
            assertEquals(CHUNK, f.getLong(16));
            assertEquals(64 * CHUNK, f.getLong(24));
            assertEquals(16 * CHUNK, f.getLong(32));
            assertEquals(64, f.getInt(40));
            assertEquals(10, f.getInt(48));
            long table = f.getLong(64);
            long data = f.getLong(72);
            assertEquals(((8192 + 10 * 320) + 4095) / 4096 * 4096, table);
            assertEquals((table + 64 * 8 + 65535) / 65536 * 65536, data);
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(f.array(), 0, 88);
            assertEquals((int) crc.getValue(), f.getInt(88));
            assertEquals(1, f.getInt(128), "one extent obtained");
            assertEquals(2, f.getLong(384), "used chunks");
            long slot = 8192;
            assertEquals(2, f.getInt((int) slot), "LIVE");
            assertEquals(CHUNK + 8, f.getLong((int) slot + 16));
            assertEquals(2, f.getInt((int) slot + 28));
            assertEquals(3, f.getInt((int) slot + 40));
            assertEquals("doc", new String(f.array(), (int) slot + 64, 3, java.nio.charset.StandardCharsets.UTF_8));
            int first = f.getInt((int) slot + 24);
            int second = f.getInt((int) (table + 8L * first));
            assertEquals(-1, f.getInt((int) (table + 8L * first + 4)), "owned by directory slot 0");
            assertEquals(-1, f.getInt((int) (table + 8L * second)), "the chain ends after two chunks");
            assertEquals(0x1122334455667788L, f.getLong((int) (data + second * CHUNK)), "segment byte 4096 is "
                    + "byte 0 of its second chunk");
            int head = (int) f.getLong(256);
            assertEquals(0, f.getInt((int) (table + 8L * head + 4)), "the free stack's head is free");
            // Owner slot 0 (4096): this process, its identity word, one claim, its liveness record.
            long identity = f.getLong(4096);
            assertEquals(ProcessHandle.current().pid(), identity & 0xFFFFFFFFL, "pid in the identity word");
            assertEquals(0, f.getInt(4096 + 8), "no thread inside a free-stack operation");
            assertEquals(1, f.getInt(4096 + 12), "GENERATION: claimed once");
            assertEquals(identity, f.getLong(4096 + 24), "the liveness record's OWNER");
            if (Files.isSymbolicLink(Path.of("/proc/self/ns/pid"))) {
                String ns = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
                assertEquals(Long.parseLong(ns.substring(ns.indexOf('[') + 1, ns.indexOf(']'))), f.getLong(4096 + 32));
                String stat = Files.readString(Path.of("/proc/self/stat"));
                long ticks = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19]);
                assertEquals(ticks & 0xFFFFFFFFL, identity >>> 32, "start ticks in the identity word");
            }
            assertTrue(f.getLong(4096 + 48) != 0, "HEARTBEAT_NANOS");
            assertEquals(0, f.getLong(512), "META_LOCK free");
        }
    }

    /** Opening what is not there fails clearly. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void openingAMissingPoolFails(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).build();
        FerriteException e = assertThrows(FerriteException.class, () -> backend().openPool(spec));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        assertThrows(FerriteException.class, () -> backend().openPool(PoolSpec.anonymous().build()));
    }

    /** The directory holds as many names as the spec says, and says so when full. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE"})
    default void theDirectoryHasTheSizeTheSpecGives(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(16 * CHUNK).maxNamedSegments(3).build();
        try (TestPool tp = pool(spec)) {
            for (int i = 0; i < 3; i++) {
                tp.pool().allocate("n" + i, 1).close();
            }
            FerriteException e = assertThrows(FerriteException.class, () -> tp.pool().allocate("n3", 1));
            assertTrue(e.getMessage().contains("full") && e.getMessage().contains("3"), e.getMessage());
            assertEquals(3, tp.pool().usedChunks(), "the failed allocation holds nothing");
            assertTrue(tp.pool().delete("n1"));
            tp.pool().allocate("n3", 1).close();
            assertEquals(Set.of("n0", "n2", "n3"), tp.pool().segmentNames());
            String unicode = "ünïcødé-€";
            tp.pool().delete("n0");
            tp.pool().allocate(unicode, 8).close();
            assertTrue(tp.pool().open(unicode).isPresent());
        }
    }

    /** recover() on a sound pool in use finds nothing and changes nothing. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void recoveryOfASoundPoolInUseIsClean(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(64 * CHUNK).extentSize(8 * CHUNK).build();
        try (TestPool tp = pool(spec)) {
            Segment a = tp.pool().allocate(5 * CHUNK);
            Segment n = tp.pool().allocate("n", 7 * CHUNK);
            a.putLong(0, 1);
            RecoveryReport r = tp.pool().recover();
            assertTrue(r.wasClean(), r.toString());
            assertEquals(12, r.ownedChunks());
            assertEquals(52, r.freeChunks());
            assertEquals(1, a.getLong(0));
            a.close();
            n.close();
        }
    }
}
