package dev.ferrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class PoolSpecTest {

    private static void rejects(Supplier<PoolSpec> build, String... mustMention) {
        InvalidSpecException e = assertThrows(InvalidSpecException.class, build::get);
        for (String s : mustMention) {
            assertTrue(e.getMessage().contains(s), "'" + e.getMessage() + "' should mention " + s);
        }
    }

    @Test
    void defaults() {
        PoolSpec spec = PoolSpec.anonymous().build();
        assertEquals(PoolSpec.Kind.ANONYMOUS, spec.kind());
        assertEquals(1 << 20, spec.chunkSize());
        assertEquals(1L << 30, spec.capacity());
        assertEquals(1L << 30, spec.extentSize());
        assertEquals(0, spec.initialSize());
        assertNull(spec.path());
    }

    @Test
    void theBackingFileIsThePoolFileOrTheShmFile() {
        assertEquals(Path.of("data", "p.pool"), PoolSpec.file(Path.of("data", "p.pool")).build().backingFile());
        assertEquals(Path.of("/dev/shm/orders"), PoolSpec.shm("orders").build().backingFile());
        assertNull(PoolSpec.anonymous().build().backingFile());
    }

    @Test
    void defaultExtentIsCapacityRoundedUpToAPowerOfTwoAtMostOneGib() {
        assertEquals(4L << 20, PoolSpec.anonymous().capacity(3L << 20).build().extentSize());
        assertEquals(1L << 30, PoolSpec.anonymous().capacity(200L << 30).build().extentSize());
        assertEquals(1L << 20, PoolSpec.anonymous().capacity(1L << 20).build().extentSize());
    }

    @Test
    void chunkSizeMustBeAPowerOfTwoInRange() {
        rejects(() -> PoolSpec.anonymous().chunkSize(2048).build(), "chunkSize", "2048", "4096");
        rejects(() -> PoolSpec.anonymous().chunkSize(3 << 12).build(), "12288", "power of two");
        rejects(() -> PoolSpec.anonymous().chunkSize(2L << 30).capacity(2L << 30).build(), "1073741824");
        rejects(() -> PoolSpec.anonymous().chunkSize(0).build(), "chunkSize 0");
        rejects(() -> PoolSpec.anonymous().chunkSize(-4096).build(), "-4096");
    }

    @Test
    void capacityMustBeAPositiveMultipleOfTheChunkSizeWithinLimits() {
        rejects(() -> PoolSpec.anonymous().capacity(0).build(), "capacity 0");
        rejects(() -> PoolSpec.anonymous().capacity(-1).build(), "capacity -1");
        rejects(() -> PoolSpec.anonymous().capacity((1L << 20) + 1).build(), "1048577", "multiple of chunkSize 1048576");
        rejects(() -> PoolSpec.anonymous().capacity(1L << 51).build(), String.valueOf(PoolSpec.MAX_CAPACITY));
        rejects(() -> PoolSpec.anonymous().chunkSize(4096).capacity(1L << 44).build(),
                "4294967296 chunks", String.valueOf(PoolSpec.MAX_CHUNKS));
    }

    @Test
    void initialSizeMustLieWithinCapacity() {
        rejects(() -> PoolSpec.anonymous().initialSize(-1).build(), "initialSize -1");
        rejects(() -> PoolSpec.anonymous().capacity(1L << 20).initialSize(2L << 20).build(), "2097152", "1048576");
    }

    @Test
    void extentSizeMustBeAPowerOfTwoBetweenChunkAndOneGib() {
        rejects(() -> PoolSpec.anonymous().extentSize(1L << 19).build(), "extentSize 524288", "chunkSize 1048576");
        rejects(() -> PoolSpec.anonymous().extentSize(3L << 20).build(), "3145728");
        rejects(() -> PoolSpec.anonymous().extentSize(2L << 30).build(), "2147483648", "1073741824");
    }

    @Test
    void readOnlyAndOverwriteApplyOnlyWhereTheyMeanSomething() {
        rejects(() -> PoolSpec.anonymous().readOnly(true).build(), "readOnly", "anonymous");
        rejects(() -> PoolSpec.anonymous().overwrite(true).build(), "overwrite", "anonymous");
        rejects(() -> PoolSpec.file(Path.of("x")).readOnly(true).overwrite(true).build(), "readOnly and overwrite");
    }

    @Test
    void fileNeedsAPathAndShmAValidName() {
        assertThrows(InvalidSpecException.class, () -> PoolSpec.file(null));
        rejects(() -> PoolSpec.shm(null).build(), "null");
        rejects(() -> PoolSpec.shm("").build(), "empty");
        rejects(() -> PoolSpec.shm("a/b").build(), "'a/b'");
        rejects(() -> PoolSpec.shm("..").build(), "'..'");
        rejects(() -> PoolSpec.shm("x".repeat(201)).build(), "201", "200");
        assertEquals("queue-1.ring", PoolSpec.shm("queue-1.ring").build().shmName());
    }

    @Test
    void specsAreValuesAndDescribeThemselves() {
        PoolSpec a = PoolSpec.file(Path.of("/data/pool")).chunkSize(4096).capacity(1L << 20).build();
        PoolSpec b = PoolSpec.file(Path.of("/data/pool")).chunkSize(4096).capacity(1L << 20).build();
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertTrue(a.toString().contains("/data/pool") && a.toString().contains("chunkSize=4096"), a.toString());
        assertEquals("shm pool 'q'", PoolSpec.shm("q").build().describe());
    }
}
