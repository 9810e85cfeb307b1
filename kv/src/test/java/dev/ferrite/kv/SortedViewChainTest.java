package dev.ferrite.kv;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sub-maps of sub-maps, in both directions: random chains of {@code subMap}, {@code headMap},
 * {@code tailMap} and {@code descendingMap} on a sorted map and on a {@code ConcurrentSkipListMap}
 * holding the same entries give the same keys in the same order, the same ends and neighbours, the
 * same sizes, and refuse the same bounds and keys out of their range.
 */
class SortedViewChainTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void chainedViewsAnswerAsConcurrentSkipListMapsDo(long seed) {
        Random r = new Random(seed);
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8()).create()) {
            NavigableMap<String, String> model = new TreeMap<>();
            for (int i = 0; i < 300; i++) {
                String k = key(r);
                map.put(k, "v" + i);
                model.put(k, "v" + i);
            }
            ConcurrentSkipListMap<String, String> peer = new ConcurrentSkipListMap<>(model);
            int boundsRefused = 0;
            int keysRefused = 0;
            for (int chain = 0; chain < 400; chain++) {
                NavigableMap<String, String> view = map;
                NavigableMap<String, String> expected = peer;
                StringBuilder how = new StringBuilder();
                int steps = 1 + r.nextInt(4);
                for (int step = 0; step < steps; step++) {
                    String a = key(r);
                    String b = key(r);
                    if (a.compareTo(b) > 0 != (expected.comparator() != null)) { // from before to in the view's order
                        String t = a;
                        a = b;
                        b = t;
                    }
                    boolean ai = r.nextBoolean();
                    boolean bi = r.nextBoolean();
                    int op = r.nextInt(4);
                    how.append(switch (op) {
                        case 0 -> ".subMap(" + a + "," + ai + "," + b + "," + bi + ")";
                        case 1 -> ".headMap(" + b + "," + bi + ")";
                        case 2 -> ".tailMap(" + a + "," + ai + ")";
                        default -> ".descendingMap()";
                    });
                    NavigableMap<String, String> next;
                    try {
                        next = narrow(expected, op, a, ai, b, bi);
                    } catch (IllegalArgumentException e) {
                        final NavigableMap<String, String> v = view;
                        final String fa = a;
                        final String fb = b;
                        final boolean fai = ai;
                        final boolean fbi = bi;
                        assertThrows(IllegalArgumentException.class,
                                () -> narrow(v, op, fa, fai, fb, fbi), how::toString);
                        boundsRefused++;
                        break;
                    }
                    expected = next;
                    view = narrow(view, op, a, ai, b, bi);
                }
                String at = how.toString();
                assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(view.keySet()), at);
                assertEquals(expected.size(), view.size(), at);
                assertEquals(expected.firstEntry(), view.firstEntry(), at);
                assertEquals(expected.lastEntry(), view.lastEntry(), at);
                String probe = key(r);
                assertEquals(expected.ceilingKey(probe), view.ceilingKey(probe), at + " ceiling " + probe);
                assertEquals(expected.lowerKey(probe), view.lowerKey(probe), at + " lower " + probe);
                assertEquals(expected.floorKey(probe), view.floorKey(probe), at + " floor " + probe);
                assertEquals(expected.higherKey(probe), view.higherKey(probe), at + " higher " + probe);
                boolean refused = false;
                try {
                    expected.put(probe, "x"); // on the peer, put back below
                } catch (IllegalArgumentException e) {
                    refused = true;
                }
                peer.clear();
                peer.putAll(model);
                if (refused) {
                    keysRefused++;
                    final NavigableMap<String, String> v = view;
                    assertThrows(IllegalArgumentException.class, () -> v.put(probe, "x"), at + " put " + probe);
                }
            }
            assertTrue(boundsRefused > 20 && keysRefused > 20, boundsRefused + " bounds, " + keysRefused + " keys refused");
            assertEquals(model, new TreeMap<>(map), "the views changed nothing");
        }
    }

    private static NavigableMap<String, String> narrow(NavigableMap<String, String> m, int op, String a, boolean ai,
                                                       String b, boolean bi) {
        return switch (op) {
            case 0 -> m.subMap(a, ai, b, bi);
            case 1 -> m.headMap(b, bi);
            case 2 -> m.tailMap(a, ai);
            default -> m.descendingMap();
        };
    }

    private static String key(Random r) {
        return Integer.toString(100 + r.nextInt(800));
    }
}
