package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link FerriteMap#prefetch}: a hint that changes nothing, on every backend. */
class MapPrefetchTest {

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void prefetchChangesNothingAndSkipsAbsentAndNullKeys(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m")
                     .expectedEntries(100).create()) {
            for (int i = 0; i < 3000; i++) {
                map.put(key(i), ("value-" + i).getBytes(StandardCharsets.UTF_8));
            }
            long written = map.stats().writtenBytes();
            byte[][] keys = new byte[100][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = i % 10 == 0 ? null : key(i * 61); // present up to 3000, absent above, some null
            }
            map.prefetch(keys, 0, keys.length);
            map.prefetch(keys, 40, 0);
            map.prefetch(keys, 99, 1);
            assertEquals(written, map.stats().writtenBytes(), "bytes written by a prefetch");
            assertEquals(3000, map.size());
            for (int i = 0; i < 3000; i++) {
                assertArrayEquals(("value-" + i).getBytes(StandardCharsets.UTF_8), map.get(key(i)));
            }
            assertNull(map.get(key(5000)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void badRangesAndAClosedMapAreRefused(String backend) {
        byte[][] keys = {key(1), key(2)};
        try (ChunkPool pool = MapTargets.anonymousPool(backend)) {
            FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m").create();
            assertThrows(IndexOutOfBoundsException.class, () -> map.prefetch(keys, -1, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> map.prefetch(keys, 1, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> map.prefetch(keys, 0, -1));
            assertThrows(NullPointerException.class, () -> map.prefetch(null, 0, 0));
            map.close();
            FerriteException e = assertThrows(FerriteException.class, () -> map.prefetch(keys, 0, 2));
            assertEquals(true, e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void prefetchesDuringRebuildsOfTheirSectionsNeitherFailNorDisturb(String backend) throws Exception {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m")
                     .expectedEntries(16).create()) {
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread warmer = new Thread(() -> {
                Random r = new Random(7);
                byte[][] keys = new byte[40][];
                try {
                    while (!done.get()) {
                        for (int i = 0; i < keys.length; i++) {
                            keys[i] = key(r.nextInt(20_000));
                        }
                        map.prefetch(keys, 0, keys.length);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            warmer.start();
            Map<String, String> model = new HashMap<>();
            Random r = new Random(11);
            try {
                for (int i = 0; i < 60_000; i++) { // grows from 16 entries: every section rebuilds many times
                    int k = r.nextInt(20_000);
                    if (r.nextInt(4) == 0) {
                        map.remove(key(k));
                        model.remove("key-" + k);
                    } else {
                        map.put(key(k), ("v" + i).getBytes(StandardCharsets.UTF_8));
                        model.put("key-" + k, "v" + i);
                    }
                }
            } finally {
                done.set(true);
                warmer.join();
            }
            assertNull(failure.get(), () -> "prefetch failed: " + failure.get());
            Map<String, String> stored = new ConcurrentHashMap<>();
            map.forEach((k, v) -> stored.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)));
            assertEquals(model, stored);
        }
    }
}
