package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.PoolSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FerriteSortedMap#atomically}: random atomic changes, committed or thrown out, against a
 * {@code TreeMap} (reads inside see the change's own writes, other threads see none of them before
 * it returns), failures midway, and the calls it refuses. The kill -9 case is in
 * {@link SortedMapProcessTest}.
 */
class SortedMapAtomicTest {

    private ChunkPool pool;

    @BeforeEach
    void pool() {
        pool = Ferrite.backend().createPool(PoolSpec.anonymous().chunkSize(64 << 10).capacity(1L << 30).build());
    }

    @AfterEach
    void close() {
        pool.close();
    }

    /** Thrown by a body to throw its change out. */
    private static final class Abort extends RuntimeException {
        Abort() {
            super("abort", null, false, false);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void atomicChangesCommitWholeOrNotAtAllAsATreeMapModelSays(long seed) {
        Random r = new Random(seed);
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "atomic" + seed).create()) {
            NavigableMap<String, String> model = new TreeMap<>();
            for (int batch = 0; batch < 300; batch++) {
                NavigableMap<String, String> inside = new TreeMap<>(model);
                boolean abort = r.nextInt(4) == 0;
                int ops = 1 + r.nextInt(r.nextInt(10) == 0 ? 400 : 30);
                try {
                    map.atomically(() -> {
                        for (int i = 0; i < ops; i++) {
                            String k = "k" + r.nextInt(600);
                            switch (r.nextInt(8)) {
                                case 0, 1, 2 -> {
                                    String v = r.nextInt(20) == 0 ? "v".repeat(r.nextInt(9000)) : "v" + r.nextInt(1000);
                                    assertEquals(inside.put(k, v), map.put(k, v));
                                }
                                case 3 -> assertEquals(inside.remove(k), map.remove(k));
                                case 4 -> assertEquals(inside.merge(k, "+", String::concat), map.merge(k, "+", String::concat));
                                case 5 -> assertEquals(inside.ceilingEntry(k), map.ceilingEntry(k));
                                case 6 -> {
                                    String hi = "k" + r.nextInt(600);
                                    if (k.compareTo(hi) <= 0) {
                                        assertEquals(inside.subMap(k, hi).size(), map.subMap(k, hi).size());
                                        if (r.nextInt(10) == 0) {
                                            map.subMap(k, hi).clear();
                                            inside.subMap(k, hi).clear();
                                        }
                                    }
                                }
                                default -> {
                                    assertEquals(inside.get(k), map.get(k));
                                    assertEquals(inside.headMap(k).size(), map.countBelow(k));
                                }
                            }
                        }
                        if (r.nextInt(50) == 0) {
                            map.clear();
                            inside.clear();
                        }
                        assertEquals(inside.size(), map.size());
                        if (abort) {
                            throw new Abort();
                        }
                    });
                    model = inside;
                } catch (Abort expected) {
                    assertTrue(abort);
                }
                assertEquals(model.size(), map.size(), "batch " + batch);
                if (batch % 25 == 0) {
                    assertEquals(model, map);
                    SortedMapModelTest.assertNoPageLost(map);
                }
            }
            assertEquals(model, map);
            SortedMapModelTest.assertNoPageLost(map);
        }
    }

    @Test
    void otherThreadsSeeNoneOfAChangeBeforeItReturnsAndAllAfter() throws Exception {
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "isolation").create()) {
            for (int i = 0; i < 1000; i++) {
                map.put("k" + i, "before");
            }
            List<Object> seenInside = map.atomically(() -> {
                for (int i = 0; i < 1000; i += 2) {
                    map.put("k" + i, "after");
                }
                map.put("new", "after");
                map.remove("k1");
                assertEquals("after", map.get("k0"));
                assertEquals(1000, map.size());
                try {
                    return CompletableFuture.supplyAsync(() -> {
                        List<Object> seen = new ArrayList<>();
                        seen.add(map.get("k0"));
                        seen.add(map.get("new"));
                        seen.add(map.get("k1"));
                        seen.add(map.size());
                        seen.add(map.values().stream().filter("after"::equals).count());
                        return seen;
                    }).get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertEquals(java.util.Arrays.asList("before", null, "before", 1000, 0L), seenInside);
            assertEquals("after", CompletableFuture.supplyAsync(() -> map.get("k998")).get(30, TimeUnit.SECONDS));
            assertNull(map.get("k1"));
            assertEquals(501, map.values().stream().filter("after"::equals).count());
        }
    }

    @Test
    void aChangeThatFailsMidwayIsRolledBackWholeEvenIfTheBodyCaughtTheFailure() {
        try (ChunkPool small = Ferrite.backend().createPool(PoolSpec.anonymous().chunkSize(64 << 10).capacity(4L << 20).build());
             FerriteSortedMap<String, byte[]> map = FerriteSortedMap.builder(Codec.utf8(), Codec.bytes())
                     .pool(small, "failing").create()) {
            map.put("kept", new byte[10]);
            Map<String, byte[]> before = new TreeMap<>(map);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> map.atomically(() -> {
                try {
                    for (int i = 0; ; i++) {
                        map.put("big" + i, new byte[100_000]); // until the pool runs out
                    }
                } catch (PoolExhaustedException full) {
                    IllegalStateException next = assertThrows(IllegalStateException.class, () -> map.put("more", new byte[1]));
                    assertSame(full, next.getCause());
                }
            }));
            assertTrue(e.getCause() instanceof PoolExhaustedException, e.toString());
            assertTrue(e.getMessage().contains("rolled back"), e.getMessage());
            assertEquals(before.keySet(), map.keySet());
            SortedMapModelTest.assertNoPageLost(map);
            map.put("after", new byte[1]); // the map takes changes again
            assertEquals(2, map.size());

            assertThrows(PoolExhaustedException.class, () -> map.atomically(() -> {
                for (int i = 0; ; i++) {
                    map.put("big" + i, new byte[100_000]);
                }
            }));
            assertEquals(2, map.size());
            SortedMapModelTest.assertNoPageLost(map);
        }
    }

    @Test
    void nestedChangesJoinAndChangesInsideFunctionsOrClosesAreRefused() {
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "nesting").create()) {
            assertThrows(Abort.class, () -> map.atomically(() -> {
                map.put("a", "1");
                map.atomically(() -> map.put("b", "2"));
                assertEquals(2, map.size());
                throw new Abort(); // the inner change goes with the outer one
            }));
            assertEquals(0, map.size());
            assertThrows(IllegalStateException.class, () -> map.compute("a", (k, v) -> map.atomically(() -> "x")));
            assertThrows(IllegalStateException.class, () -> map.atomically(() -> {
                map.compute("a", (k, v) -> map.put("b", "y"));
            }));
            assertThrows(IllegalStateException.class, () -> map.atomically(map::close));
            assertEquals(0, map.size());
            assertEquals("z", map.atomically(() -> map.merge("c", "z", String::concat)));
            assertEquals(Map.of("c", "z"), map);
        }
    }

    @Test
    void anExclusiveRunKeepsOtherWritersOutAndItsAtomicChangesAreEachTheirOwn() throws Exception {
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "exclusive").create()) {
            CompletableFuture<String> other = new CompletableFuture<>();
            String result = map.exclusively(() -> {
                map.put("a", "1");
                assertThrows(Abort.class, () -> map.atomically(() -> {
                    map.put("b", "2");
                    throw new Abort(); // undoes this change alone
                }));
                map.atomically(() -> map.put("c", "3"));
                assertEquals(Map.of("a", "1", "c", "3"), map);
                Thread writer = new Thread(() -> other.complete(map.put("a", "other")));
                writer.start();
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                assertTrue(!other.isDone(), "another thread's write waits for the exclusive run");
                assertEquals("1", map.get("a"));
                assertEquals("3", CompletableFuture.supplyAsync(() -> map.get("c")).join()); // readers do not wait
                return "done";
            });
            assertEquals("done", result);
            assertEquals("1", other.get(30, TimeUnit.SECONDS));
            assertEquals(Map.of("a", "other", "c", "3"), map);
            assertThrows(IllegalStateException.class, () -> map.exclusively(() -> map.exclusively(() -> "x")));
            assertThrows(IllegalStateException.class, () -> map.atomically(() -> map.exclusively(() -> "x")));
            assertThrows(IllegalStateException.class, () -> map.exclusively(() -> {
                map.close();
                return null;
            }));
            assertEquals("v", map.exclusively(() -> map.merge("d", "v", String::concat)));
            SortedMapModelTest.assertNoPageLost(map);
        }
    }
    @Test
    void theVersionMovesWithEveryChangePublishedAndOnlyThen() {
        try (FerriteSortedMap<String, String> map = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "versions").create();
             FerriteSortedMap<String, String> other = FerriteSortedMap.builder(Codec.utf8(), Codec.utf8())
                .pool(pool, "versions").open()) {
            assertEquals(0, map.version(), "an empty map");
            List<Long> seen = new ArrayList<>();
            seen.add(map.version());
            map.put("a", "1");
            map.put("b", "2");
            seen.add(map.version());
            map.get("a");
            map.subMap("a", "c").size();
            assertEquals(seen.get(1), map.version(), "reads change nothing");
            assertThrows(Abort.class, () -> map.atomically(() -> {
                map.put("c", "3");
                throw new Abort();
            }));
            assertEquals(seen.get(1), map.version(), "a change thrown out publishes nothing");
            map.atomically(() -> {
                map.put("c", "3");
                assertEquals(seen.get(1), other.version(), "an atomic change publishes when it ends");
                map.remove("a");
            });
            assertTrue(!seen.contains(map.version()), "a new version");
            seen.add(map.version());
            other.put("d", "4");
            assertTrue(!seen.contains(map.version()), "another handle's change is seen");
            assertEquals(other.version(), map.version());
        }
    }
}
