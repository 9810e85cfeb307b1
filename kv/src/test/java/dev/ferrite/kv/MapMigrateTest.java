package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.Ferrite;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.internal.XxHash64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A map of format version 2, written byte by byte as that version's format said: the builder
 * refuses to open it and names {@code MapMigrate}, which copies its intact entries (and its
 * recorded codecs) into a new map of the current version.
 */
class MapMigrateTest {

    @Test
    void aVersion2MapIsRefusedWithTheWayOutAndMigrated(@TempDir Path dir) {
        Path old = dir.resolve("old.pool");
        Path fresh = dir.resolve("new.pool");
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            expected.put("key-" + i, "value-" + i + "-".repeat(i % 40));
        }
        try (ChunkPool pool = Ferrite.backend().createPool(PoolSpec.file(old).chunkSize(1 << 16).capacity(64L << 20).build())) {
            writeVersion2(pool, expected);
        }

        CorruptFileException refused = assertThrows(CorruptFileException.class,
                () -> FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(old).open());
        assertTrue(refused.getMessage().contains("format version 2") && refused.getMessage().contains("MapMigrate"),
                refused.getMessage());

        assertEquals(300, MapMigrate.migrate(old, fresh, "map"));
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(fresh).open()) {
            assertEquals(expected, new HashMap<>(map));
            assertEquals(4, map.stats().sections());
        }
        FerriteException otherCodec = assertThrows(FerriteException.class,
                () -> FerriteMap.builder(Codec.int64(), Codec.utf8()).file(fresh).open());
        assertTrue(otherCodec.getMessage().contains("utf8"), "the old map's codecs came along: " + otherCodec.getMessage());

        FerriteException again = assertThrows(FerriteException.class, () -> MapMigrate.migrate(old, fresh, "map"));
        assertTrue(again.getMessage().contains("exists already"), again.getMessage());
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(fresh).open()) {
            assertEquals(expected, new HashMap<>(map), "a refused migration leaves the new map as it was");
        }
    }

    /** Writes a 4-section map of version 2 named "map", with utf8 codecs recorded. */
    private static void writeVersion2(ChunkPool pool, Map<String, String> entries) {
        int sections = 4;
        try (Segment h = pool.allocate("map", 4224 + 64L * sections)) {
            h.fill(0, h.size(), (byte) 0);
            h.putInt(8, 2);
            h.putInt(12, sections);
            h.putInt(16, 64);
            h.putInt(20, 100);
            h.putInt(24, 1000);
            h.putLong(32, System.currentTimeMillis());
            byte[] utf8 = "utf8".getBytes(StandardCharsets.UTF_8);
            h.putLong(40, XxHash64.hash(utf8, 0, utf8.length));
            h.putLong(48, XxHash64.hash(utf8, 0, utf8.length));
            h.copyFrom(utf8, 0, 56, utf8.length);
            h.copyFrom(utf8, 0, 88, utf8.length);
            h.putInt(120, crc(h, 40, 80));
            CRC32C c = new CRC32C();
            c.update(bytes(h, 8, 20));
            c.update(bytes(h, 32, 8));
            h.putInt(28, (int) c.getValue());
            int slots = 256;
            long heapStart = 384 + 8L * slots;
            long[] tops = new long[sections];
            Segment[] segs = new Segment[sections];
            for (int s = 0; s < sections; s++) {
                segs[s] = pool.allocate("map." + s + ".1", heapStart + 64 * 1024);
                segs[s].fill(0, heapStart, (byte) 0);
                tops[s] = heapStart;
                h.putLong(4224 + 64L * s + 8, 1);
            }
            for (Map.Entry<String, String> e : entries.entrySet()) {
                byte[] k = e.getKey().getBytes(StandardCharsets.UTF_8);
                byte[] v = e.getValue().getBytes(StandardCharsets.UTF_8);
                long hash = XxHash64.hash(k, 0, k.length);
                int s = (int) (hash >>> 62);
                Segment seg = segs[s];
                long at = tops[s];
                seg.putInt(at + 4, k.length);
                seg.putInt(at + 8, v.length);
                seg.putInt(at + 12, 0);
                seg.copyFrom(k, 0, at + 16, k.length);
                seg.copyFrom(v, 0, at + 16 + k.length, v.length);
                seg.putInt(at, (int) seg.hash64(at + 4, 12L + k.length + v.length));
                tops[s] = at + ((16L + k.length + v.length + 7) & ~7L);
                int i = (int) hash & (slots - 1);
                while (seg.getLong(384 + 8L * i) != 0) {
                    i = (i + 1) & (slots - 1);
                }
                seg.putLong(384 + 8L * i, ((hash >>> 32) & 0xFFFF) << 48 | at);
                h.putLong(4224 + 64L * s + 16, h.getLong(4224 + 64L * s + 16) + 1);
            }
            // A damaged entry: its checksum does not match, so it is not copied.
            long bad = tops[0];
            segs[0].putInt(bad, 12345);
            segs[0].putInt(bad + 4, 3);
            segs[0].putInt(bad + 8, 3);
            segs[0].copyFrom("badbad".getBytes(StandardCharsets.UTF_8), 0, bad + 16, 6);
            tops[0] += 24;
            int free = 0;
            while (segs[0].getLong(384 + 8L * free) != 0) {
                free++;
            }
            segs[0].putLong(384 + 8L * free, bad);
            for (int s = 0; s < sections; s++) {
                Segment seg = segs[s];
                seg.putLong(0, 0x3143455352524546L);
                seg.putLong(8, 1);
                seg.putInt(16, s);
                seg.putInt(20, slots);
                seg.putLong(24, heapStart);
                seg.putLong(32, seg.size());
                seg.putLong(40, tops[s]);
                seg.close();
            }
            h.putLong(0, 0x3150414D52524546L);
        }
    }

    private static int crc(Segment s, long off, int len) {
        CRC32C c = new CRC32C();
        c.update(bytes(s, off, len));
        return (int) c.getValue();
    }

    private static byte[] bytes(Segment s, long off, int len) {
        byte[] b = new byte[len];
        s.copyTo(off, b, 0, len);
        return b;
    }
}
