package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sorted map's readers, which take no lock, see every write another thread acknowledged at once,
 * by every kind of read (get, rank, entry by position, iteration), and never a value older than one
 * they saw before.
 */
class SortedMapReadersTest {

    private static final int KEYS = 3_000;

    private ChunkPool pool;

    @BeforeEach
    void pool() {
        pool = Ferrite.backend().createPool(PoolSpec.anonymous().chunkSize(64 << 10).capacity(1L << 30).build());
    }

    @AfterEach
    void close() {
        pool.close();
    }

    private static String key(int i) {
        return String.format("key-%05d", i);
    }

    @Test
    void readersSeeEveryAcknowledgedWriteOfAnotherThreadAtOnce() throws Exception {
        // 3,000 keys: a branch over some twenty-five leaves of 4 KiB
        try (FerriteSortedMap<String, Long> map = FerriteSortedMap.builder(Codec.utf8(), Codec.int64())
                .pool(pool, "readers").create()) {
            for (int i = 0; i < KEYS; i++) {
                map.put(key(i), 0L);
            }
            AtomicLongArray acked = new AtomicLongArray(KEYS);
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                Random r = new Random(7);
                for (long n = 1; n <= 40_000; n++) {
                    int i = r.nextInt(KEYS);
                    map.put(key(i), n);
                    acked.set(i, n); // after the put returned: every read from here on must see n or later
                }
            });
            Random r = new Random(11);
            long[] seen = new long[KEYS];
            long reads = 0;
            try {
                while (!writer.isDone() || reads < 10_000) {
                    int i = r.nextInt(KEYS);
                    long floor = acked.get(i);
                    long v = switch ((int) (reads % 4)) {
                        case 0 -> map.get(key(i));
                        case 1 -> map.entryAt(i).getValue(); // the keys never change: key i is at rank i
                        case 2 -> map.entryAt(key(0), i).getValue();
                        default -> {
                            assertEquals(i, map.countBelow(key(i)));
                            Iterator<Map.Entry<String, Long>> it = map.tailMap(key(i), true).entrySet().iterator();
                            Map.Entry<String, Long> e = it.next();
                            assertEquals(key(i), e.getKey());
                            yield e.getValue();
                        }
                    };
                    assertTrue(v >= floor, key(i) + " read " + v + " after write " + floor + " was acknowledged");
                    assertTrue(v >= seen[i], key(i) + " read " + v + " after " + seen[i] + " was read");
                    seen[i] = v;
                    reads++;
                }
            } finally {
                writer.get(60, TimeUnit.SECONDS); // its failure, if it failed
            }
            for (int i = 0; i < KEYS; i++) {
                assertEquals(acked.get(i), map.get(key(i)), key(i) + " after the writer ended");
            }
            assertEquals(KEYS, map.size());
        }
    }

    /**
     * Two ranks read by {@code countBelow(lo, hi)} come from one state: while another thread adds
     * and removes fifty keys below {@code lo}, the keys between the two bounds always count exactly
     * their fixed number.
     */
    @Test
    void twoRanksAreCountedInOneState() throws Exception {
        try (FerriteSortedMap<String, Long> map = FerriteSortedMap.builder(Codec.utf8(), Codec.int64())
                .pool(pool, "ranks").create()) {
            for (int i = 0; i < 300; i++) {
                map.put("b-" + key(i), 0L);
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong changes = new AtomicLong();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    changes.incrementAndGet();
                    map.atomically(() -> {
                        for (int i = 0; i < 50; i++) {
                            map.put("a-" + key(i), 0L);
                        }
                    });
                    map.atomically(() -> {
                        for (int i = 0; i < 50; i++) {
                            map.remove("a-" + key(i));
                        }
                    });
                }
            });
            try {
                // 20,000 reads and 2,000 rounds of the writer at least (30 s at most): a host too busy to run
                // both threads at once checks less, never wrongly.
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                for (long n = 0; (changes.get() < 2_000 || n < 20_000) && !writer.isDone() && System.nanoTime() < end; n++) {
                    long[] below = map.countBelow("b-", "c-");
                    assertEquals(300, below[1] - below[0], "keys between b- and c- at read " + n + ", " + below[0] + " below");
                }
            } finally {
                stop.set(true);
                writer.get(60, TimeUnit.SECONDS);
            }
        }
    }
}
