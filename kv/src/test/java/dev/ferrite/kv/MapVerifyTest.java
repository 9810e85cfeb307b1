package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.Segment;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** {@code verify()} finds damaged entries, drops them with their section's rebuild, and leaves the rest. */
class MapVerifyTest {

    @Test
    void verifyFindsAndDropsDamagedEntriesAndKeepsTheRest() {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m").create()) {
            for (int i = 0; i < 300; i++) {
                map.put("key-" + i, "value-" + i);
            }
            assertEquals(0, map.verify(), "an intact map");
            flipAValueByte(pool, "m", "key-7");
            flipAValueByte(pool, "m", "key-123");

            assertEquals(2, map.verify());
            assertEquals(298, map.size());
            assertNull(map.get("key-7"));
            assertNull(map.get("key-123"));
            assertEquals("value-8", map.get("key-8"));
            assertEquals(2, map.stats().droppedEntries(), "the rebuilds dropped them");
            assertEquals(0, map.verify(), "nothing left to find");
        }
    }

    /** Finds a key's entry through its section and slot, as FORMAT.md says, and flips one value byte. */
    private static void flipAValueByte(ChunkPool pool, String name, String keyString) {
        byte[] key = keyString.getBytes(StandardCharsets.UTF_8);
        long hash = MapStore.hash(key, 0, key.length);
        int section;
        long generation;
        try (Segment h = pool.open(name).orElseThrow()) {
            int sections = h.getInt(MapLayout.SECTIONS);
            section = sections == 1 ? 0 : (int) (hash >>> (64 - Integer.numberOfTrailingZeros(sections)));
            generation = h.getLong(MapLayout.line(section) + MapLayout.LINE_GENERATION);
        }
        try (Segment s = pool.open(MapLayout.sectionName(name, section, generation)).orElseThrow()) {
            int slots = s.getInt(SectionLayout.SLOTS);
            for (int n = 0, i = (int) hash & (slots - 1); n < slots; n++, i = (i + 1) & (slots - 1)) {
                long w = s.getLong(SectionLayout.slot(i));
                long off = w & SectionLayout.OFFSET_MASK;
                if (w != 0 && w != SectionLayout.TOMBSTONE && s.getInt(off + EntryLayout.KEY_LENGTH) == key.length
                        && s.mismatch(off + EntryLayout.KEY, key, 0, key.length) < 0) {
                    long at = off + EntryLayout.KEY + key.length;
                    s.putByte(at, (byte) ~s.getByte(at));
                    return;
                }
            }
        }
        throw new AssertionError("no entry for " + keyString);
    }
}
