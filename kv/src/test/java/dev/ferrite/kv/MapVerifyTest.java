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

    /** Finds a key's entry through its section and bucket, as FORMAT.md says, and flips one value byte. */
    private static void flipAValueByte(ChunkPool pool, String name, String keyString) {
        MapBytes.Located e = MapBytes.locate(pool, name, keyString.getBytes(StandardCharsets.UTF_8));
        try (Segment s = e.segment()) {
            s.putByte(e.valueAt(), (byte) ~s.getByte(e.valueAt()));
        }
    }
}
