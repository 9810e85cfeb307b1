package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.Segment;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Map internals damaged on purpose, in the words of the header and section layouts: a damaged
 * word may cost the entries it names, but never hangs a caller or makes an iteration mislead.
 */
class MapDamageTest {

    /**
     * A lock word that names the writer's own client slot and generation, while no thread of its
     * process holds the lock, can only be damage (the process's own holders are known to it): the
     * writer takes the lock over and repairs the section instead of waiting for itself.
     */
    @Test
    void aLockWordNamingTheWritersOwnSlotIsTakenOverNotWaitedFor() {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m").create()) {
            map.put("before", "1");
            long mine;
            try (Segment h = pool.open("m").orElseThrow()) {
                int sections = h.getInt(MapLayout.SECTIONS);
                mine = map.store().clientLockValue();
                for (int s = 0; s < sections; s++) {
                    h.putLongVolatile(MapLayout.line(s) + MapLayout.LINE_LOCK, mine);
                }
            }
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                map.put("after", "2");
                assertEquals("1", map.put("before", "3"));
            }, "a writer waited for a lock its own slot holds and no thread of its own");
            assertEquals("3", map.get("before"));
            assertEquals("2", map.get("after"));
        }
    }

    /**
     * A slot word copied over its neighbour names one entry twice; iteration, scan and
     * {@code containsValue} meet that entry once (the copy is the duplicate of an entry already met
     * in the same probe run), and a copy placed in another bucket's run fails its home check.
     */
    @Test
    void aSlotWordCopiedOverAnotherDoesNotRepeatAKey() {
        try (ChunkPool pool = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "m")
                     .expectedEntries(200).create()) {
            for (int i = 0; i < 200; i++) {
                map.put("key-" + i, "value-" + i);
            }
            int copies = copySlotWordsOverTheirNeighbours(pool, "m");
            assertTrue(copies > 0, "no slot word was copied");

            List<String> iterated = new ArrayList<>();
            for (Map.Entry<String, String> e : map.entrySet()) {
                iterated.add(e.getKey());
            }
            assertEquals(new HashSet<>(iterated).size(), iterated.size(), "iteration repeated a key: " + iterated);

            List<String> scanned = new ArrayList<>();
            long cursor = 0;
            do {
                cursor = map.scan(cursor, 7, (k, v) -> scanned.add(k));
            } while (cursor != 0);
            assertEquals(new HashSet<>(scanned).size(), scanned.size(), "scan repeated a key: " + scanned);
            assertEquals(new HashSet<>(iterated), new HashSet<>(scanned), "iteration and scan met the same keys");
        }
    }

    /**
     * In every section, copies the word of each third occupied slot over the slot after it when
     * that one is occupied too (so the copy sits in the same probe run as the original).
     *
     * @return how many words were copied
     */
    private static int copySlotWordsOverTheirNeighbours(ChunkPool pool, String name) {
        int copies = 0;
        try (Segment h = pool.open(name).orElseThrow()) {
            int sections = h.getInt(MapLayout.SECTIONS);
            for (int section = 0; section < sections; section++) {
                long generation = h.getLong(MapLayout.line(section) + MapLayout.LINE_GENERATION);
                try (Segment s = pool.open(MapLayout.sectionName(name, section, generation)).orElseThrow()) {
                    int slots = s.getInt(SectionLayout.SLOTS);
                    Set<Integer> written = new HashSet<>();
                    int occupied = 0;
                    for (int i = 0; i + 1 < slots; i++) {
                        long w = s.getLong(SectionLayout.slot(i));
                        long next = s.getLong(SectionLayout.slot(i + 1));
                        if (w != 0 && w != SectionLayout.TOMBSTONE && next != 0 && next != SectionLayout.TOMBSTONE && !written.contains(i)
                                && occupied++ % 3 == 0) {
                            s.putLong(SectionLayout.slot(i + 1), w);
                            written.add(i + 1);
                            copies++;
                        }
                    }
                }
            }
        }
        return copies;
    }
}
