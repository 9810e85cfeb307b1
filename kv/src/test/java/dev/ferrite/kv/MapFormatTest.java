package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Segment;
import dev.ferrite.internal.XxHash64;
import dev.ferrite.internal.pool.Liveness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads a map's bytes at the offsets written in docs/FORMAT.md ("Map, version 4"), as literals,
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
            assertEquals(4, h.getInt(8));
            int sections = h.getInt(12);
            assertEquals(16, sections);
            assertEquals(64, h.getInt(16));
            assertEquals(100, h.getInt(20));
            assertEquals(1000, h.getInt(24));
            assertEquals(850, h.getInt(124), "LOAD_LIMIT (the default 0.85)");
            CRC32C crc = new CRC32C();
            crc.update(bytes(h, 8, 20));
            crc.update(bytes(h, 32, 8));
            crc.update(bytes(h, 124, 4));
            assertEquals((int) crc.getValue(), h.getInt(28));
            assertTrue(Math.abs(System.currentTimeMillis() - h.getLong(32)) < 60_000);
            assertTrue(h.size() >= 4224 + 128L * sections);
            byte[] utf8 = "utf8".getBytes(StandardCharsets.UTF_8);
            assertEquals(XxHash64.hash(utf8, 0, utf8.length), h.getLong(40), "KEY_CODEC_HASH");
            assertEquals(XxHash64.hash(utf8, 0, utf8.length), h.getLong(48), "VALUE_CODEC_HASH");
            assertEquals("utf8", new String(bytes(h, 56, 4), StandardCharsets.UTF_8), "KEY_CODEC_NAME");
            assertEquals(0, h.getByte(60), "KEY_CODEC_NAME is zero-padded");
            assertEquals("utf8", new String(bytes(h, 88, 4), StandardCharsets.UTF_8), "VALUE_CODEC_NAME");
            CRC32C codecs = new CRC32C();
            codecs.update(bytes(h, 40, 80));
            assertEquals((int) codecs.getValue(), h.getInt(120), "CODECS_CRC");

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
            long line = 4224 + 128L * section;
            assertEquals(0, h.getLong(line + 64), "no writer holds the lock");
            long generation = h.getLong(line);
            assertEquals(1, h.getLong(line + 72), "one live entry in the section");
            assertTrue(generation >= 1);

            Segment s = pool.open("m." + section + "." + generation).orElseThrow();
            assertEquals("FERRSEC3", ascii(s, 0));
            assertEquals(generation, s.getLong(8));
            assertEquals(section, s.getInt(16));
            int buckets = s.getInt(20);
            assertEquals(128, s.getInt(24), "BUCKET_SIZE: 12 + 16 + 64 (the default averages) rounded up to 64");
            assertEquals(0, s.getInt(28));
            assertEquals(512 + 128L * buckets, s.getLong(32), "HEAP_START");
            assertEquals(s.size(), s.getLong(40), "HEAP_END");
            CRC32C sc = new CRC32C();
            sc.update(bytes(s, 8, 40));
            assertEquals((int) sc.getValue(), s.getInt(48), "CRC");
            assertEquals(~s.getLong(56) * 0x9E3779B97F4A7C15L, s.getLong(64), "TOP_CHECK");

            long bucket = bucketOf(s, hash);
            long word = s.getLong(bucket);
            assertEquals(2, word & 3, "kind: inline");
            assertEquals(5, (word >>> 8) & 0xFF, "key length");
            assertEquals(5, (word >>> 16) & 0xFF, "value length");
            assertEquals((hash >>> 32) & 0xFFFF, (word >>> 24) & 0xFFFF, "tag");
            assertEquals(2, word >>> 40, "version: 2 after the bucket's first write");
            assertEquals("hello", new String(bytes(s, bucket + 12, 5), StandardCharsets.UTF_8));
            assertEquals("world", new String(bytes(s, bucket + 17, 5), StandardCharsets.UTF_8));
            byte[] kv = bytes(s, bucket + 12, 10);
            assertEquals((int) XxHash64.hash(kv, 0, 10) ^ (5 | 5 << 8) * 0x9E3779B1, s.getInt(bucket + 8), "checksum");

            // An entry longer than its bucket lives in the heap; its bucket holds the offset.
            String longValue = "v".repeat(300);
            map.put("hello", longValue);
            word = s.getLong(bucket);
            assertEquals(3, word & 3, "kind: outside");
            assertEquals(0, (word >>> 8) & 0xFFFF, "no lengths in an outside entry's word");
            assertEquals(4, word >>> 40, "version + 2");
            long entry = s.getLong(bucket + 8);
            assertEquals(0, entry % 8);
            assertTrue(entry >= s.getLong(32) && entry < s.getLong(56), "in the heap, below HEAP_TOP");
            assertEquals(5, s.getInt(entry + 4));
            assertEquals(300, s.getInt(entry + 8));
            assertEquals(0, s.getInt(entry + 12));
            assertEquals("hello", new String(bytes(s, entry + 16, 5), StandardCharsets.UTF_8));
            assertEquals(longValue, new String(bytes(s, entry + 21, 300), StandardCharsets.UTF_8));
            byte[] checked = bytes(s, entry + 4, 12 + 305);
            assertEquals((int) XxHash64.hash(checked, 0, checked.length), s.getInt(entry));
            assertTrue(s.getLong(56) >= entry + 328, "HEAP_TOP is past the entry (321 bytes, padded to 328)");
            h.close();
            s.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void anOverwrittenOutsideEntryBecomesAHoleThatTheNextEntryOfItsSizeTakes(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m").create()) {
            String v = "v".repeat(195); // 16 + 3 + 197 = 216 bytes: 27 words, free list 6 (at 80 + 8 * 6)
            map.put("key", v + "-1");
            Segment h = pool.open("m").orElseThrow();
            byte[] key = "key".getBytes(StandardCharsets.UTF_8);
            long hash = XxHash64.hash(key, 0, key.length);
            int section = (int) (hash >>> (64 - Integer.numberOfTrailingZeros(h.getInt(12))));
            long line = 4224 + 128L * section;
            Segment s = pool.open("m." + section + "." + h.getLong(line)).orElseThrow();
            long bucket = bucketOf(s, hash);
            long first = s.getLong(bucket + 8);
            long version = s.getLong(bucket) >>> 40;
            map.put("key", v + "-2");
            long second = s.getLong(bucket + 8);
            assertTrue(second != first, "an update writes a new entry");
            assertEquals(version + 2, s.getLong(bucket) >>> 40, "the bucket's version + 2");
            assertEquals(first, s.getLong(128), "the old entry heads free list 6");
            assertEquals(0, s.getLong(first), "the hole is the list's last");
            assertEquals(216, s.getInt(first + 8), "the hole's size");
            long x = first * 0x9E3779B97F4A7C15L ^ 0L * 0xC2B2AE3D27D4EB4FL ^ 216 * 0x165667B19E3779F9L;
            x ^= x >>> 29;
            x *= 0xBF58476D1CE4E5B9L;
            assertEquals((int) (x ^ x >>> 32) ^ 0x454C4F48, s.getInt(first + 12), "the hole's check word");
            assertEquals(216, s.getLong(72), "GARBAGE holds the hole");
            long top = s.getLong(56);

            map.put("key", v + "-3");
            assertEquals(first, s.getLong(bucket + 8), "the next entry of that size takes the hole");
            assertEquals(second, s.getLong(128), "and the entry it replaced heads the list now");
            assertEquals(top, s.getLong(56), "HEAP_TOP did not move");
            assertEquals(v + "-3", map.get("key"));

            map.remove("key");
            assertEquals(1, s.getLong(bucket) & 3, "a tombstone");
            assertEquals(version + 6, s.getLong(bucket) >>> 40, "with the version moved on");
            assertEquals(first, s.getLong(128), "a removed entry becomes a hole too");
            assertEquals(second, s.getLong(first));
            assertEquals(432, s.getLong(72), "GARBAGE holds both holes");
            h.close();
            s.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void anInPlaceUpdateSavesTheBucketInTheUndoRecordWhileItsWordIsOdd(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m").create()) {
            byte[] key = "counter".getBytes(StandardCharsets.UTF_8);
            byte[] old = "0123456789".getBytes(StandardCharsets.UTF_8);
            map.put(key, old);
            Segment h = pool.open("m").orElseThrow();
            long hash = XxHash64.hash(key, 0, key.length);
            int section = (int) (hash >>> (64 - Integer.numberOfTrailingZeros(h.getInt(12))));
            Segment s = pool.open("m." + section + "." + h.getLong(4224 + 128L * section)).orElseThrow();
            long bucket = bucketOf(s, hash);
            long oldWord = s.getLong(bucket);
            byte[] oldBytes = bytes(s, bucket + 8, 4 + 7 + 10);
            long[] seen = new long[8];
            byte[][] saved = new byte[1][];
            assertTrue(map.updateValue(key, (seg, off, len) -> {
                seen[0] = s.getLong(bucket);
                seen[1] = off;
                seen[2] = s.getInt(192 + 4);
                seen[3] = s.getLong(192 + 8);
                seen[4] = s.getLong(192 + 16);
                seen[5] = s.getLong(192 + 24);
                seen[6] = s.getInt(192 + 32);
                seen[7] = s.getInt(192 + 36);
                saved[0] = bytes(s, 192 + 40, 21);
                byte[] checked = bytes(s, 192 + 4, 36 + 21);
                assertEquals((int) XxHash64.hash(checked, 0, checked.length), s.getInt(192), "the record's CHECK");
                seg.putByte(off, (byte) 'X');
            }));
            assertEquals(oldWord | 1L << 40, seen[0], "the bucket's word is odd while the updater runs");
            assertEquals(bucket + 12 + 7, seen[1], "the updater writes the bucket's own value bytes");
            assertEquals(21, seen[2], "LENGTH: checksum, key and value");
            assertEquals(bucket, seen[3], "BUCKET");
            assertEquals(oldWord, seen[4], "WORD");
            assertEquals(0, seen[5], "ENTRY");
            assertEquals(0, seen[6], "CHECKSUM");
            assertEquals(0, seen[7], "MODE: inline bytes");
            assertArrayEquals(oldBytes, saved[0], "the old bytes");
            assertEquals(oldWord + (2L << 40), s.getLong(bucket), "settled: version + 2");
            assertEquals("X123456789", new String(bytes(s, bucket + 12 + 7, 10), StandardCharsets.UTF_8));
            byte[] kv = bytes(s, bucket + 12, 17);
            assertEquals((int) XxHash64.hash(kv, 0, 17) ^ (7 | 10 << 8) * 0x9E3779B1, s.getInt(bucket + 8), "the new checksum");
            h.close();
            s.close();
        }
    }

    /**
     * A change cut short, written by hand as FORMAT.md describes it (an undo record, the value
     * torn, the bucket's word odd, no lock held: a damaged file, as a dead writer keeps its lock):
     * readers get the saved entry, and the next writer of the key puts it back before it writes.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void aChangeCutShortIsReadFromTheUndoRecordAndPutBack(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m").create()) {
            byte[] key = "counter".getBytes(StandardCharsets.UTF_8);
            map.put(key, "0123456789".getBytes(StandardCharsets.UTF_8));
            Segment h = pool.open("m").orElseThrow();
            long hash = XxHash64.hash(key, 0, key.length);
            int section = (int) (hash >>> (64 - Integer.numberOfTrailingZeros(h.getInt(12))));
            Segment s = pool.open("m." + section + "." + h.getLong(4224 + 128L * section)).orElseThrow();
            long bucket = bucketOf(s, hash);
            long word = s.getLong(bucket);
            s.putInt(192 + 4, 21);
            s.putLong(192 + 8, bucket);
            s.putLong(192 + 16, word);
            s.putLong(192 + 24, 0);
            s.putInt(192 + 32, 0);
            s.putInt(192 + 36, 0);
            s.copyTo(bucket + 8, s, 192 + 40, 21);
            byte[] record = bytes(s, 192 + 4, 36 + 21);
            s.putInt(192, (int) XxHash64.hash(record, 0, record.length));
            s.putLong(bucket, word | 1L << 40);
            s.copyFrom("XXXXX".getBytes(StandardCharsets.UTF_8), 0, bucket + 12 + 7, 5); // torn

            assertEquals("0123456789", new String(map.get(key), StandardCharsets.UTF_8), "read from the undo record");
            assertEquals(0, map.stats().damagedReads());
            assertTrue(map.updateValue(key, (seg, off, len) -> seg.putByte(off, (byte) 'A')));
            assertEquals(word + (4L << 40), s.getLong(bucket), "put back (+ 2), then updated (+ 2)");
            assertEquals("A123456789", new String(map.get(key), StandardCharsets.UTF_8),
                    "the saved value was put back, then updated");
            assertEquals("A123456789", new String(bytes(s, bucket + 12 + 7, 10), StandardCharsets.UTF_8));
            assertEquals(0, map.stats().damagedReads());
            assertEquals(0, map.verify());
            h.close();
            s.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void everyEntryLiesWithinItsHomeBucketsReach(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m")
                     .sections(1).loadFactor(0.9).averageKeySize(8).averageValueSize(8).create()) {
            for (int i = 0; i < 6000; i++) {
                map.put("k" + i, i % 7 == 0 ? "v".repeat(100) : "v" + i); // some outside their buckets
                if (i % 3 == 0) {
                    map.remove("k" + (i / 2));
                }
            }
            Segment h = pool.open("m").orElseThrow();
            Segment s = pool.open("m.0." + h.getLong(4224)).orElseThrow();
            int buckets = s.getInt(20);
            int size = s.getInt(24);
            int entries = 0;
            int farthest = 0;
            for (int i = 0; i < buckets; i++) {
                long b = 512 + (long) size * i;
                long w = s.getLong(b);
                if ((w & 3) < 2) {
                    continue;
                }
                byte[] key = (w & 3) == 2 ? bytes(s, b + 12, (int) (w >>> 8) & 0xFF)
                        : bytes(s, s.getLong(b + 8) + 16, s.getInt(s.getLong(b + 8) + 4));
                long hash = XxHash64.hash(key, 0, key.length);
                int home = (int) (((hash & 0xFFFF_FFFFL) * buckets) >>> 32);
                int reach = (int) (s.getLong(512 + (long) size * home) >>> 2) & 63;
                int distance = Math.floorMod(i - home, buckets);
                assertTrue(reach == 63 || distance <= reach, "bucket " + i + " lies " + distance
                        + " after its home " + home + ", whose reach is " + reach);
                farthest = Math.max(farthest, distance);
                entries++;
            }
            assertEquals(map.size(), entries);
            assertTrue(farthest > 0, "some entry lies past its home (else the check checked nothing)");
            h.close();
            s.close();
        }
    }

    /** @return the offset of the key's bucket, found as FORMAT.md says (by its tag: the test's keys do not share one) */
    private static long bucketOf(Segment s, long hash) {
        int buckets = s.getInt(20);
        int size = s.getInt(24);
        int idx = (int) (((hash & 0xFFFF_FFFFL) * buckets) >>> 32);
        for (int n = 0; n < buckets; n++, idx = (idx + 1) % buckets) {
            long b = 512 + (long) size * idx;
            long w = s.getLong(b);
            assertTrue(w != 0, "the probe reaches the key before an empty bucket");
            if ((w & 3) >= 2 && ((w >>> 24) & 0xFFFF) == ((hash >>> 32) & 0xFFFF)) {
                return b;
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
