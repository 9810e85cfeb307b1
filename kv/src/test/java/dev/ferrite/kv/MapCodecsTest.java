package dev.ferrite.kv;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A map records its codecs' identities and refuses an opener with others, naming both; raw bytes
 * open any map, and a map that records none opens with any codec.
 */
class MapCodecsTest {

    public record V1(int a, long b) { }

    public record V2(long b, int a) { }

    public record Renamed(int a, long b) { }

    public record Outer(String name, V1 inner) { }

    @TempDir
    Path dir;

    @Test
    void theBuiltInsHaveTheIdentitiesFormatMdNames() {
        assertEquals(List.of("bytes", "utf8", "int64", "int32", "float64", "uuid"),
                List.of(Codec.bytes().id(), Codec.utf8().id(), Codec.int64().id(), Codec.int32().id(),
                        Codec.float64().id(), Codec.uuid().id()));
        assertEquals("record(int a, long b)", Codec.record(V1.class).id());
        assertEquals("record(String name, record(int a, long b) inner)", Codec.record(Outer.class).id());
    }

    @Test
    void aStringMapOpenedWithALongCodecIsRefusedNamingBoth() {
        FerriteMapBuilder<String, String> made = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(dir.resolve("s.map"));
        try (FerriteMap<String, String> m = made.create()) {
            m.put("k", "12345678");
        }
        FerriteException e = assertThrows(FerriteException.class,
                () -> FerriteMap.builder(Codec.utf8(), Codec.int64()).file(dir.resolve("s.map")).open().close());
        assertTrue(e.getMessage().contains("value codec 'utf8', opened with 'int64'"), e.getMessage());
        assertTrue(!e.getMessage().contains("key codec"), "the key codecs agree: " + e.getMessage());
        try (FerriteMap<String, String> m = made.open()) {
            assertEquals("12345678", m.get("k"), "the refused open left the map as it was");
        }
    }

    @Test
    void aRecordWithItsComponentsReorderedIsRefusedAndARenamedOneIsNot() {
        FerriteMapBuilder<String, V1> made = FerriteMap.builder(Codec.utf8(), Codec.record(V1.class)).file(dir.resolve("r.map"));
        try (FerriteMap<String, V1> m = made.create()) {
            m.put("k", new V1(7, 99L));
        }
        FerriteException e = assertThrows(FerriteException.class,
                () -> FerriteMap.builder(Codec.utf8(), Codec.record(V2.class)).file(dir.resolve("r.map")).open().close());
        assertTrue(e.getMessage().contains("'record(int a, long b)', opened with 'record(long b, int a)'"), e.getMessage());
        try (FerriteMap<String, Renamed> m = FerriteMap.builder(Codec.utf8(), Codec.record(Renamed.class))
                .file(dir.resolve("r.map")).open()) {
            assertEquals(new Renamed(7, 99L), m.get("k"));
        }
    }

    @Test
    void rawBytesOpenAnyMapAndABytesMapOpensWithAnyCodec() {
        try (FerriteMap<String, Long> m = FerriteMap.builder(Codec.utf8(), Codec.int64()).file(dir.resolve("l.map")).create()) {
            m.put("k", 5L);
        }
        try (FerriteMap<byte[], byte[]> raw = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(dir.resolve("l.map")).open()) {
            assertArrayEquals(new byte[] {5, 0, 0, 0, 0, 0, 0, 0}, raw.get("k".getBytes()));
        }
        try (FerriteMap<byte[], byte[]> m = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(dir.resolve("b.map")).create()) {
            m.put("k".getBytes(), "v".getBytes());
        }
        try (FerriteMap<String, String> typed = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(dir.resolve("b.map")).open()) {
            assertEquals("v", typed.get("k"));
        }
    }

    @Test
    void aMapThatRecordsNoCodecsOpensWithAnyAndADamagedRecordIsReported() throws Exception {
        Path file = dir.resolve("old.map");
        try (FerriteMap<String, String> m = FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).create()) {
            m.put("k", "v");
        }
        long header = headerOffset(file);
        byte[] zeros = new byte[MapLayout.CODECS_CRC + 4 - MapLayout.KEY_CODEC_HASH];
        byte[] saved = patch(file, header + MapLayout.KEY_CODEC_HASH, zeros); // as a map made before codecs were recorded
        try (FerriteMap<String, Long> m = FerriteMap.builder(Codec.utf8(), Codec.int64()).file(file).open()) {
            assertEquals(1, m.size());
        }
        saved[3] ^= 1; // one bit of the key codec's hash
        patch(file, header + MapLayout.KEY_CODEC_HASH, saved);
        CorruptFileException e = assertThrows(CorruptFileException.class,
                () -> FerriteMap.builder(Codec.utf8(), Codec.utf8()).file(file).open().close());
        assertTrue(e.getMessage().contains("codec block's CRC"), e.getMessage());
    }

    /** @return the file offset of the map header, found by its magic */
    private static long headerOffset(Path file) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            var buf = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()).order(ByteOrder.LITTLE_ENDIAN);
            for (int at = 0; at + 8 <= buf.limit(); at += 8) {
                if (buf.getLong(at) == MapLayout.MAGIC_VALUE) {
                    return at;
                }
            }
        }
        throw new AssertionError("no map header in " + file);
    }

    /** Writes bytes at a file offset; @return the bytes that were there */
    private static byte[] patch(Path file, long at, byte[] bytes) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            var buf = ch.map(FileChannel.MapMode.READ_WRITE, at, bytes.length);
            byte[] old = new byte[bytes.length];
            buf.get(old);
            buf.position(0);
            buf.put(bytes);
            return Arrays.copyOf(old, old.length);
        }
    }
}
