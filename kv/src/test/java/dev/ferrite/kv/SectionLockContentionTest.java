package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Threads of one map handle writing the same sections while the map grows and more threads than
 * cores compete, so a thread is often descheduled right after it took a lock: a live writer of
 * this process is never taken for a dead or damaged one (no repair), and every write lands.
 */
class SectionLockContentionTest {

    @Test
    void writersOfOneProcessNeverTakeEachOthersLockOver() throws Exception {
        int threads = 8;
        int keys = 6_000;
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> hogs = new ArrayList<>();
        for (int i = 0; i < 2; i++) { // busy cores: the writers are preempted at any instruction
            Thread hog = new Thread(() -> {
                long x = 0;
                while (!stop.get()) {
                    x += System.nanoTime();
                }
                if (x == 42) {
                    System.out.print("");
                }
            }, "ferrite-test-hog-" + i);
            hog.setDaemon(true);
            hog.start();
            hogs.add(hog);
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (ChunkPool memory = MapTargets.anonymousPool(Ferrite.backend().name());
             FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(memory, "m")
                     .expectedEntries(16).create()) { // small: the sections grow many times meanwhile
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < keys; i++) {
                        map.put("t" + id + "-" + i, "v" + i);
                        if (i % 7 == 0) {
                            map.remove("t" + id + "-" + (i / 2));
                            map.put("t" + id + "-" + (i / 2), "v" + (i / 2));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertEquals((long) threads * keys, map.longSize());
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < keys; i += 97) {
                    assertEquals("v" + i, map.get("t" + t + "-" + i));
                }
            }
            assertEquals(0, map.stats().repairs(), "sections taken over from a live writer of this process");
        } finally {
            stop.set(true);
            pool.shutdownNow();
            for (Thread hog : hogs) {
                hog.join(10_000);
            }
        }
    }
}
