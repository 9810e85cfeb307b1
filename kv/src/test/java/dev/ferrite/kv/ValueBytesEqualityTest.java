package dev.ferrite.kv;

import org.junit.jupiter.api.Test;

import java.util.AbstractMap;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Both maps compare values by their bytes in every method that compares values: a {@code byte[]}
 * value (whose {@code equals} is identity) is found, matched and removed by an equal copy, and
 * the queries agree with the changes they guard.
 */
class ValueBytesEqualityTest {

    @Test
    void theHashMapComparesValuesByBytesEverywhere() {
        try (FerriteMap<String, byte[]> map = FerriteMap.builder(Codec.utf8(), Codec.bytes()).create()) {
            assertComparesByBytes(map, map);
        }
    }

    @Test
    void theSortedMapAndItsSubMapsCompareValuesByBytesEverywhere() {
        try (FerriteSortedMap<String, byte[]> map = FerriteSortedMap.builder(Codec.utf8(), Codec.bytes()).create()) {
            assertComparesByBytes(map, map);
            map.clear();
            assertComparesByBytes(map, map.subMap("a", true, "z", true));
            map.clear();
            assertComparesByBytes(map, map.descendingMap().headMap("a", true));
        }
    }

    /** Fills {@code map} through {@code view} (which holds "k") and checks every comparing method. */
    private static void assertComparesByBytes(ConcurrentMap<String, byte[]> map, ConcurrentMap<String, byte[]> view) {
        view.put("k", new byte[] {1, 2, 3});
        map.put("~other", new byte[] {9});

        assertTrue(view.containsValue(new byte[] {1, 2, 3}), "containsValue of an equal copy");
        assertFalse(view.containsValue(new byte[] {1, 2}), "containsValue of other bytes");
        assertTrue(view.values().contains(new byte[] {1, 2, 3}), "values().contains of an equal copy");
        assertTrue(view.entrySet().contains(Map.entry("k", new byte[] {1, 2, 3})), "entrySet().contains of an equal copy");
        assertFalse(view.entrySet().contains(Map.entry("k", new byte[] {1, 2})), "entrySet().contains of other bytes");
        assertFalse(view.entrySet().contains(new AbstractMap.SimpleEntry<>(null, new byte[] {1, 2, 3})),
                "entrySet().contains of an entry without a key");
        assertFalse(((Map<?, ?>) view).entrySet().contains(Map.entry(42, new byte[] {1, 2, 3})),
                "entrySet().contains of an entry whose key is of another type");
        assertFalse(((Map<?, ?>) view).containsValue("not bytes"), "containsValue of another type");
        assertFalse(((Map<?, ?>) view).values().remove("not bytes"), "values().remove of another type");
        assertFalse(((Map<?, ?>) view).remove("k", "not bytes"), "remove(k, v) of another type");
        assertEquals(view.containsKey("~other"), view.containsValue(new byte[] {9}), "a value is found only in range");

        assertFalse(view.replace("k", new byte[] {1, 2}, new byte[] {4}), "replace with other bytes expected");
        assertTrue(view.replace("k", new byte[] {1, 2, 3}, new byte[] {4, 5}), "replace with an equal copy expected");
        assertArrayEquals(new byte[] {4, 5}, view.get("k"));

        assertFalse(view.remove("k", new byte[] {4}), "remove(k, v) with other bytes");
        assertTrue(view.entrySet().remove(Map.entry("k", new byte[] {4, 5})), "entrySet().remove of an equal copy");
        assertNull(view.get("k"));

        view.put("k", new byte[] {6});
        assertTrue(view.values().remove(new byte[] {6}), "values().remove of an equal copy");
        assertNull(view.get("k"));

        view.put("k", new byte[] {7});
        assertTrue(view.remove("k", new byte[] {7}), "remove(k, v) with an equal copy");
        assertNull(view.get("k"));
        assertArrayEquals(new byte[] {9}, map.get("~other"), "an entry outside the comparisons is left alone");
    }
}
