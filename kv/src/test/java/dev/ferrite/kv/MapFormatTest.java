package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Segment;
import dev.ferrite.internal.XxHash64;
import dev.ferrite.internal.pool.Liveness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads a map's bytes at the offsets written in docs/FORMAT.md ("Map, version 2"), as literals,
 * not through the descriptor classes, and finds a key the way the document says a reader in
 * another language would: the document and the code must agree.
 */
class MapFormatTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void bytesAreWhereTheFormatSays(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8())
                     .pool(pool, "m").maxKeySize(100).maxValueSize(1000).create()) {
            map.put("hello", "world");
            map.put("gone", "soon");
            map.remove("gone");
            Segment h = pool.open("m").orElseThrow();
            assertEquals("FERRMAP1", ascii(h, 0));
            assertEquals(2, h.getInt(8));
            int sections = h.getInt(12);
            assertEquals(16, sections);
            assertEquals(64, h.getInt(16));
            assertEquals(100, h.getInt(20));
            assertEquals(1000, h.getInt(24));
            CRC32C crc = new CRC32C();
            crc.update(bytes(h, 8, 20));
            crc.update(bytes(h, 32, 8));
            assertEquals((int) crc.getValue(), h.getInt(28));
            assertTrue(Math.abs(System.currentTimeMillis() - h.getLong(32)) < 60_000);
            assertTrue(h.size() >= 4224 + 64L * sections);
            byte[] utf8 = "utf8".getBytes(StandardCharsets.UTF_8);
            assertEquals(XxHash64.hash(utf8, 0, utf8.length), h.getLong(40), "KEY_CODEC_HASH");
            assertEquals(XxHash64.hash(utf8, 0, utf8.length), h.getLong(48), "VALUE_CODEC_HASH");
            assertEquals("utf8", new String(bytes(h, 56, 4), StandardCharsets.UTF_8), "KEY_CODEC_NAME");
            assertEquals(0, h.getByte(60), "KEY_CODEC_NAME is zero-padded");
            assertEquals("utf8", new String(bytes(h, 88, 4), StandardCharsets.UTF_8), "VALUE_CODEC_NAME");
            CRC32C codecs = new CRC32C();
            codecs.update(bytes(h, 40, 80));
            assertEquals((int) codecs.getValue(), h.getInt(120), "CODECS_CRC");
            assertEquals(0, h.getInt(124));

            // This process holds a client slot: its identity word, a generation, a liveness record.
            int slot = -1;
            for (int c = 0; c < 64; c++) {
                if (h.getLong(128 + 64L * c) == Liveness.self()) {
                    slot = c;
                }
            }
            assertTrue(slot >= 0, "a client slot holds this process's identity word");
            long clientGeneration = h.getLong(128 + 64L * slot + 8);
            assertTrue(clientGeneration >= 1);
            assertEquals(Liveness.self(), h.getLong(128 + 64L * slot + 24), "the liveness record's owner");

            byte[] key = "hello".getBytes(StandardCharsets.UTF_8);
            long hash = XxHash64.hash(key, 0, key.length);
            int section = (int) (hash >>> (64 - Integer.numberOfTrailingZeros(sections)));
            long line = 4224 + 64L * section;
            assertEquals(0, h.getLong(line), "no writer holds the lock");
            long generation = h.getLong(line + 8);
            assertEquals(1, h.getLong(line + 16), "one live entry in the section");
            assertTrue(generation >= 1);

            Segment s = pool.open("m." + section + "." + generation).orElseThrow();
            assertEquals("FERRSEC1", ascii(s, 0));
            assertEquals(generation, s.getLong(8));
            assertEquals(section, s.getInt(16));
            int slots = s.getInt(20);
            assertEquals(384 + 8L * slots, s.getLong(24));
            byte[] gone = "gone".getBytes(StandardCharsets.UTF_8);
            long goneHash = XxHash64.hash(gone, 0, gone.length);
            if ((int) (goneHash >>> (64 - Integer.numberOfTrailingZeros(sections))) != section) {
                for (int j = 0; j < 7; j++) {
                    assertEquals(0, s.getLong(64 + 8L * j), "free list " + j + " is empty: nothing was removed here");
                }
            }
            assertEquals(s.size(), s.getLong(32));
            assertEquals(~s.getLong(40) * 0x9E3779B97F4A7C15L, s.getLong(120), "TOP_CHECK");
            CRC32C sc = new CRC32C();
            sc.update(bytes(s, 8, 32));
            assertEquals((int) sc.getValue(), s.getInt(60));

            long word = 0;
            int idx = (int) hash & (slots - 1);
            for (int n = 0; n < slots; n++, idx = (idx + 1) & (slots - 1)) {
                long w = s.getLong(384 + 8L * idx);
                assertTrue(w != 0, "the probe reaches the key before an empty slot");
                if (w != 1 && (w >>> 48) == ((hash >>> 32) & 0xFFFF)) {
                    word = w;
                    break;
                }
            }
            long entry = word & ((1L << 48) - 1);
            assertEquals(0, entry % 8);
            assertEquals(5, s.getInt(entry + 4));
            assertEquals(5, s.getInt(entry + 8));
            assertEquals(0, s.getInt(entry + 12));
            assertEquals("hello", new String(bytes(s, entry + 16, 5), StandardCharsets.UTF_8));
            assertEquals("world", new String(bytes(s, entry + 21, 5), StandardCharsets.UTF_8));
            byte[] checked = bytes(s, entry + 4, 12 + 10);
            assertEquals((int) XxHash64.hash(checked, 0, checked.length), s.getInt(entry));
            assertTrue(s.getLong(40) >= entry + 32, "HEAP_TOP is past the entry (26 bytes, padded to 32)");
            h.close();
            s.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void anOverwrittenEntryBecomesAHoleThatTheNextEntryOfItsSizeTakes(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m").create()) {
            map.put("key", "value-1");
            Segment h = pool.open("m").orElseThrow();
            byte[] key = "key".getBytes(StandardCharsets.UTF_8);
            long hash = XxHash64.hash(key, 0, key.length);
            int section = (int) (hash >>> (64 - Integer.numberOfTrailingZeros(h.getInt(12))));
            long line = 4224 + 64L * section;
            long stamp = h.getLong(line + 40);
            Segment s = pool.open("m." + section + "." + h.getLong(line + 8)).orElseThrow();
            long first = entryOf(s, hash);
            // 16 + 3 + 7 = 26 bytes, 32 with padding: 4 words, free list 4.
            map.put("key", "value-2");
            long second = entryOf(s, hash);
            assertTrue(second != first, "an update writes a new entry");
            assertEquals(stamp + 2, h.getLong(line + 40), "STAMP + 2 before the old entry's bytes changed");
            assertEquals(first, s.getLong(64 + 8L * 4), "the old entry heads free list 4");
            assertEquals(0, s.getLong(first), "the hole is the list's last");
            assertEquals(32, s.getInt(first + 8), "the hole's size");
            long x = first * 0x9E3779B97F4A7C15L ^ 0L * 0xC2B2AE3D27D4EB4FL ^ 32 * 0x165667B19E3779F9L;
            x ^= x >>> 29;
            x *= 0xBF58476D1CE4E5B9L;
            assertEquals((int) (x ^ x >>> 32) ^ 0x454C4F48, s.getInt(first + 12), "the hole's check word");
            assertEquals(32, s.getLong(48), "GARBAGE holds the hole");
            long top = s.getLong(40);

            map.put("key", "value-3");
            assertEquals(first, entryOf(s, hash), "the next entry of that size takes the hole");
            assertEquals(second, s.getLong(64 + 8L * 4), "and the entry it replaced heads the list now");
            assertEquals(top, s.getLong(40), "HEAP_TOP did not move");
            assertEquals(stamp + 6, h.getLong(line + 40), "STAMP + 2 to take the hole, + 2 to free the old entry");
            assertEquals("value-3", map.get("key"));

            map.remove("key");
            assertEquals(first, s.getLong(64 + 8L * 4), "a removed entry becomes a hole too");
            assertEquals(second, s.getLong(first));
            assertEquals(64, s.getLong(48), "GARBAGE holds both holes");
            h.close();
            s.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void anInPlaceUpdateSavesTheOldValueInTheUndoRecordAndKeepsItsEntry(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m").create()) {
            byte[] key = "counter".getBytes(StandardCharsets.UTF_8);
            byte[] old = "0123456789".getBytes(StandardCharsets.UTF_8);
            map.put(key, old);
            Segment h = pool.open("m").orElseThrow();
            long hash = XxHash64.hash(key, 0, key.length);
            int section = (int) (hash >>> (64 - Integer.numberOfTrailingZeros(h.getInt(12))));
            long line = 4224 + 64L * section;
            long stamp = h.getLong(line + 40);
            assertEquals(0, stamp % 2, "STAMP is even while no update is under way");
            Segment s = pool.open("m." + section + "." + h.getLong(line + 8)).orElseThrow();
            long entry = entryOf(s, hash);
            int oldChecksum = s.getInt(entry);
            long[] seen = new long[4];
            byte[][] saved = new byte[1][];
            assertTrue(map.updateValue(key, (seg, off, len) -> {
                seen[0] = h.getLong(line + 40);
                seen[1] = off;
                seen[2] = s.getInt(128 + 4);
                seen[3] = s.getLong(128 + 8);
                saved[0] = bytes(s, 128 + 24, 10);
                byte[] checked = bytes(s, 128 + 4, 20 + 10);
                assertEquals((int) XxHash64.hash(checked, 0, checked.length), s.getInt(128), "the record's CHECK");
                assertEquals(oldChecksum, s.getInt(128 + 16), "the entry's old checksum");
                assertEquals(0, s.getInt(128 + 20));
                seg.putByte(off, (byte) 'X');
            }));
            assertEquals(stamp + 1, seen[0], "STAMP is odd while the updater runs");
            assertEquals(entry + 16 + 7, seen[1], "the updater writes the entry's own value bytes");
            assertEquals(10, seen[2], "LENGTH");
            assertEquals(entry, seen[3], "ENTRY");
            assertEquals("0123456789", new String(saved[0], StandardCharsets.UTF_8), "the old value");
            assertEquals(stamp + 2, h.getLong(line + 40), "STAMP is even again afterwards");
            assertEquals(entry, entryOf(s, hash), "the same entry");
            assertEquals("X123456789", new String(bytes(s, entry + 16 + 7, 10), StandardCharsets.UTF_8));
            byte[] checked = bytes(s, entry + 4, 12 + 7 + 10);
            assertEquals((int) XxHash64.hash(checked, 0, checked.length), s.getInt(entry), "the new checksum");
            h.close();
            s.close();
        }
    }

    /**
     * An in-place update cut short, written by hand as FORMAT.md describes it (an undo record, the
     * value torn, STAMP odd, no lock held: a damaged file, as a dead writer keeps its lock): readers
     * get the saved value, and the next writer of the section puts it back before it writes.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void anInPlaceUpdateCutShortIsReadFromTheUndoRecordAndPutBack(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m").create()) {
            byte[] key = "counter".getBytes(StandardCharsets.UTF_8);
            map.put(key, "0123456789".getBytes(StandardCharsets.UTF_8));
            Segment h = pool.open("m").orElseThrow();
            long hash = XxHash64.hash(key, 0, key.length);
            int section = (int) (hash >>> (64 - Integer.numberOfTrailingZeros(h.getInt(12))));
            long line = 4224 + 64L * section;
            Segment s = pool.open("m." + section + "." + h.getLong(line + 8)).orElseThrow();
            long entry = entryOf(s, hash);
            s.putInt(128 + 4, 10);
            s.putLong(128 + 8, entry);
            s.putInt(128 + 16, s.getInt(entry));
            s.putInt(128 + 20, 0);
            s.copyFrom("0123456789".getBytes(StandardCharsets.UTF_8), 0, 128 + 24, 10);
            byte[] record = bytes(s, 128 + 4, 20 + 10);
            s.putInt(128, (int) XxHash64.hash(record, 0, record.length));
            long stamp = h.getLong(line + 40);
            h.putLong(line + 40, stamp + 1);
            s.copyFrom("XXXXX".getBytes(StandardCharsets.UTF_8), 0, entry + 16 + 7, 5); // torn

            assertEquals("0123456789", new String(map.get(key), StandardCharsets.UTF_8), "read from the undo record");
            assertEquals(0, map.stats().damagedReads());
            map.put("another".getBytes(StandardCharsets.UTF_8), new byte[1]); // maybe another section
            assertTrue(map.updateValue(key, (seg, off, len) -> seg.putByte(off, (byte) 'A'))); // this section
            assertEquals(0, h.getLong(line + 40) % 2, "STAMP even again");
            assertEquals("A123456789", new String(map.get(key), StandardCharsets.UTF_8),
                    "the saved value was put back, then updated");
            assertEquals("A123456789", new String(bytes(s, entry + 16 + 7, 10), StandardCharsets.UTF_8));
            assertEquals(0, map.stats().damagedReads());
            h.close();
            s.close();
        }
    }

    /** @return the offset of the entry the key's slot word names, found as FORMAT.md says */
    private static long entryOf(Segment s, long hash) {
        int slots = s.getInt(20);
        int idx = (int) hash & (slots - 1);
        for (int n = 0; n < slots; n++, idx = (idx + 1) & (slots - 1)) {
            long w = s.getLong(384 + 8L * idx);
            if (w != 1 && w != 0 && (w >>> 48) == ((hash >>> 32) & 0xFFFF)) {
                return w & ((1L << 48) - 1);
            }
        }
        throw new AssertionError("key not found");
    }

    private static String ascii(Segment s, long off) {
        return new String(bytes(s, off, 8), StandardCharsets.US_ASCII);
    }

    private static byte[] bytes(Segment s, long off, int len) {
        byte[] b = new byte[len];
        s.copyTo(off, b, 0, len);
        return b;
    }
}
