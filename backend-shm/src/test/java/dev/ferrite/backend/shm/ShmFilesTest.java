package dev.ferrite.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.spi.MemoryBackend;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import org.junit.jupiter.api.Test;

/** The shm backend's files: where they live, who may read them, and that they go on delete. */
class ShmFilesTest {

    private final MemoryBackend shm = Ferrite.backend("shm");

    @Test
    void poolsAreOwnerOnlyFilesInDevShmRemovedOnDelete() throws Exception {
        String name = "ferrite-perm-" + ProcessHandle.current().pid();
        PoolSpec spec = PoolSpec.shm(name).chunkSize(4096).capacity(1 << 20).build();
        Path file = Path.of("/dev/shm", name);
        try (ChunkPool pool = shm.createPool(spec); Segment s = pool.allocate(8192)) {
            assertTrue(Files.exists(file));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            s.putLong(4096, 0x1122334455667788L);
            // Another mapping of the same file sees the write at once: the memory is shared.
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                MappedByteBuffer view = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
                view.order(ByteOrder.LITTLE_ENDIAN);
                boolean found = false;
                for (int i = 0; i + 8 <= view.capacity(); i += 4096) {
                    found |= view.getLong(i) == 0x1122334455667788L;
                }
                assertTrue(found, "the value is in the shm file");
            }
        } finally {
            assertTrue(shm.deletePool(spec));
        }
        assertFalse(Files.exists(file));
        assertFalse(shm.deletePool(spec));
    }

    @Test
    void anonymousPoolsLeaveNoFileBehind() throws Exception {
        long before;
        try (var files = Files.list(Path.of("/dev/shm"))) {
            before = files.filter(p -> p.getFileName().toString().startsWith("ferrite-anon-")).count();
        }
        try (ChunkPool pool = shm.createPool(PoolSpec.anonymous().chunkSize(4096).capacity(1 << 20).build());
             Segment s = pool.allocate(1 << 20)) {
            s.fill(0, s.size(), (byte) 1);
            try (var files = Files.list(Path.of("/dev/shm"))) {
                assertEquals(before, files.filter(p -> p.getFileName().toString().startsWith("ferrite-anon-")).count());
            }
        }
    }
}
