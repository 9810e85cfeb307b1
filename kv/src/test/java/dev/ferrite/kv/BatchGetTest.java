package dev.ferrite.kv;

import dev.ferrite.FerriteException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code getAll} against a {@code HashMap}, and {@code get(key, into)} for values that fit, do not, or are absent. */
class BatchGetTest {

    @Test
    void getAllReturnsWhatAHashMapHoldsForTheKeysAskedInTheirOrder() {
        Random random = new Random(11);
        Map<String, String> model = new HashMap<>();
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).expectedEntries(500).create()) {
            for (int i = 0; i < 500; i++) {
                String k = "k" + random.nextInt(1000);
                String v = "v" + random.nextInt();
                model.put(k, v);
                map.put(k, v);
            }
            for (int round = 0; round < 50; round++) {
                List<String> asked = new ArrayList<>();
                int n = random.nextInt(60); // from none to several groups of 16
                for (int i = 0; i < n; i++) {
                    asked.add("k" + random.nextInt(1000)); // about half absent, some asked twice
                }
                Map<String, String> expected = new LinkedHashMap<>();
                for (String k : asked) {
                    if (model.containsKey(k)) {
                        expected.put(k, model.get(k));
                    }
                }
                Map<String, String> got = map.getAll(asked);
                assertEquals(expected, got, "round " + round);
                assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(got.keySet()), "in the keys' order");
            }
            assertThrows(NullPointerException.class, () -> map.getAll(Arrays.asList("k1", null)));
        }
        FerriteMap<String, String> closed = FerriteMap.builder(Codec.utf8(), Codec.utf8()).create();
        closed.close();
        assertThrows(FerriteException.class, () -> closed.getAll(List.of("k")));
    }

    @Test
    void getIntoCopiesAValueThatFitsAndReportsTheLengthOfOneThatDoesNot() {
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).create()) {
            map.put("short", "abc");
            map.put("long", "0123456789");
            byte[] into = new byte[8];
            Arrays.fill(into, (byte) '-');
            assertEquals(3, map.get("short", into));
            assertArrayEquals("abc-----".getBytes(StandardCharsets.UTF_8), into);
            Arrays.fill(into, (byte) '-');
            assertEquals(10, map.get("long", into), "the length a caller must allocate");
            assertArrayEquals("--------".getBytes(StandardCharsets.UTF_8), into, "nothing copied");
            assertEquals(-1, map.get("absent", into));
            byte[] fits = new byte[10];
            assertEquals(10, map.get("long", fits));
            assertEquals("0123456789", new String(fits, StandardCharsets.UTF_8));
            assertThrows(NullPointerException.class, () -> map.get("short", null));
        }
    }
}
