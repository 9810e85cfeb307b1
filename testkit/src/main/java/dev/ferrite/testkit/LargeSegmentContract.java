package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.DoubleArray;
import dev.ferrite.PoolSpec;
import dev.ferrite.Region;
import dev.ferrite.Segment;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Segments far beyond 2^31 bytes: a 3 GiB segment on every kind of pool, and a file pool whose
 * capacity exceeds the machine's RAM (sparse: only touched pages cost anything).
 */
public interface LargeSegmentContract extends BackendFixture {

    /** 3 GiB. */
    long THREE_GIB = 3L << 30;

    /** A 3 GiB segment is addressed with long offsets everywhere, across the 2^31 mark and to its end. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void threeGibSegment(PoolSpec.Kind kind, @TempDir Path dir) {
        try (TestPool tp = pool(kind, dir, PoolSpec.DEFAULT_CHUNK_SIZE, 4L << 30);
             Segment s = tp.pool().allocate(THREE_GIB)) {
            assertEquals(THREE_GIB, s.size());
            assertEquals(3072, tp.pool().usedChunks());
            long[] offsets = {0, (1L << 31) - 3, (1L << 31) + 5, (1L << 31) + (1L << 29) - 4, THREE_GIB - 16, THREE_GIB - 8};
            for (long off : offsets) {
                s.putLong(off, ~off);
            }
            for (long off : offsets) {
                assertEquals(~off, s.getLong(off), "long at " + off);
            }
            s.putByte(THREE_GIB - 1, (byte) 0x7F);
            assertEquals(0x7F, s.getByte(THREE_GIB - 1));

            DoubleArray d = s.asDoubles();
            assertEquals(THREE_GIB / 8, d.length());
            long pastTwoGib = (1L << 28) + 12345;
            d.set(pastTwoGib, 2.5);
            assertEquals(2.5, s.getDouble(8 * pastTwoGib));
            assertEquals(2.5, d.get(pastTwoGib));

            byte[] bytes = new byte[3 << 20];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (i * 31);
            }
            long at = THREE_GIB - (4 << 20) - 17;
            s.copyFrom(bytes, 0, at, bytes.length);
            s.copyTo(at, s, (1L << 31) - 5, bytes.length);
            byte[] back = new byte[bytes.length];
            s.copyTo((1L << 31) - 5, back, 0, back.length);
            assertEquals(java.util.Arrays.hashCode(bytes), java.util.Arrays.hashCode(back));

            long regions = 0;
            long covered = 0;
            for (Region r : s.regions(0, s.size())) {
                regions++;
                covered += r.length();
            }
            assertEquals(3072, regions);
            assertEquals(THREE_GIB, covered);
        }
    }

    /**
     * A file pool whose capacity is larger than RAM holds a segment larger than RAM; the file is
     * sparse, so only the touched pages take disk.
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = "FILE")
    default void filePoolBeyondRam(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        long ram = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        long capacity = Math.max(64L << 30, Long.highestOneBit(ram) << 2);
        long segmentSize = ram + (8L << 30);
        PoolSpec spec = spec(kind, dir).capacity(capacity).build();
        try (TestPool tp = pool(spec); Segment s = tp.pool().allocate(segmentSize)) {
            assertTrue(s.size() > ram, "segment of " + s.size() + " bytes exceeds RAM of " + ram);
            for (long off = 0; off + 8 <= segmentSize; off += 1L << 30) {
                s.putLong(off, off / 3);
            }
            s.putLong(segmentSize - 8, -1);
            for (long off = 0; off + 8 <= segmentSize; off += 1L << 30) {
                assertEquals(off / 3, s.getLong(off));
            }
            assertEquals(-1, s.getLong(segmentSize - 8));
            tp.pool().force();
            assertTrue(Files.size(spec.path()) >= segmentSize);
            long diskKiB = diskUsageKiB(spec.path());
            assertTrue(diskKiB >= 0 && diskKiB < 512 * 1024, "sparse file uses " + diskKiB + " KiB on disk");
        }
    }

    /**
     * @param file a file
     * @return the KiB of disk (or tmpfs RAM) it takes, as {@code du -k} says
     * @throws Exception if du cannot run
     */
    static long diskUsageKiB(Path file) throws Exception {
        Process p = new ProcessBuilder("du", "-k", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        p.waitFor();
        return Long.parseLong(out.split("\\s+")[0]);
    }
}
