package dev.ferrite.kv;

import dev.ferrite.PoolSpec;
import dev.ferrite.testkit.ChildJvm;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sorted map written by child JVMs: killed with SIGKILL at random instants while this JVM reads,
 * it loses no acknowledged write, readers never see a torn value or a key out of order, and after
 * the next opener takes the dead writer's lock over no page is lost; merges from three processes
 * at once count exactly.
 */
class SortedMapProcessTest {

    private static final int KEYS = 400;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void writersKilledAtRandomInstantsLoseNoAcknowledgedWrite(String backend) throws Exception {
        String where = where(backend, "sorted-killed");
        FerriteSortedMapBuilder<String, byte[]> b = SortedPeer.builder(Codec.bytes(), backend, where);
        b.create().close();
        Map<String, Long> acked = new ConcurrentHashMap<>();
        Random random = new Random(Long.getLong("ferrite.test.killSeed", 11));
        long repairs = 0;
        try {
            int rounds = Integer.getInteger("ferrite.test.killRounds", 5);
            for (int round = 0; round < rounds; round++) {
                List<List<String>> writers = KillRound.writers(backend, where, KEYS, round * 1_000_000_000L);
                KillRound.run(SortedPeer.class, writers, 200, 1200, random, acked,
                        (stop, reads) -> readWhileTheyWrite(b, stop, reads));
                try (FerriteSortedMap<String, byte[]> map = b.open()) {
                    for (Map.Entry<String, Long> e : acked.entrySet()) {
                        byte[] v = map.get(e.getKey());
                        assertTrue(v != null, "acknowledged key " + e.getKey() + " is missing after round " + round);
                        long stored = SortedPeer.sequence(v);
                        int index = Integer.parseInt(e.getKey().substring(e.getKey().indexOf('-') + 1));
                        assertTrue(stored >= e.getValue() && stored % KEYS == index && stored < (round + 1) * 1_000_000_000L,
                                e.getKey() + " holds " + stored + ", last acknowledged " + e.getValue() + " (round " + round + ")");
                    }
                    long n = 0;
                    String previous = null;
                    for (Map.Entry<String, byte[]> e : map.entrySet()) {
                        SortedPeer.sequence(e.getValue());
                        assertTrue(previous == null || previous.compareTo(e.getKey()) < 0, previous + " before " + e.getKey());
                        previous = e.getKey();
                        n++;
                    }
                    assertEquals(map.size(), n, "size() counts what iteration finds");
                    SortedMapModelTest.assertNoPageLost(map);
                    repairs = map.repairs();
                }
            }
            System.out.println("kill -9 rounds of a sorted map on " + backend + ": " + acked.size()
                    + " keys acknowledged, " + repairs + " lock takeovers");
        } finally {
            delete(backend, where);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void mergeCountsExactlyFromThreeProcessesAtOnce(String backend) throws Exception {
        String where = where(backend, "sorted-merge");
        FerriteSortedMapBuilder<String, Long> b = SortedPeer.builder(Codec.int64(), backend, where);
        b.create().close();
        try {
            List<Process> mergers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                mergers.add(ChildJvm.start(ChildJvm.ferriteFlags(), SortedPeer.class, "merger", backend, where, "2000"));
            }
            for (Process p : mergers) {
                assertTrue(p.waitFor(300, TimeUnit.SECONDS), "a merger did not finish in 300 s");
                assertEquals(0, p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            }
            try (FerriteSortedMap<String, Long> map = b.open()) {
                assertEquals(6000L, map.get("count"));
                SortedMapModelTest.assertNoPageLost(map);
            }
        } finally {
            delete(backend, where);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void anAtomicChangeKilledMidwayLeavesNoneOfItsChanges(String backend) throws Exception {
        String where = where(backend, "sorted-atomic");
        FerriteSortedMapBuilder<String, byte[]> b = SortedPeer.builder(Codec.bytes(), backend, where);
        b.create().close();
        Map<String, Long> acked = new ConcurrentHashMap<>();
        Random random = new Random(Long.getLong("ferrite.test.killSeed", 12));
        try {
            for (int round = 0; round < 3; round++) {
                List<List<String>> batcher = List.of(List.of("batcher", backend, where, String.valueOf(round * 1_000_000L + 1)));
                KillRound.run(SortedPeer.class, batcher, 100, 900, random, acked, (stop, reads) -> {
                    try (FerriteSortedMap<String, byte[]> map = b.open()) {
                        while (!stop.get()) {
                            // size() reads one published tree (an iteration reads a leaf at a time):
                            // each change keeps it at 2 x BATCH, though keys come and go inside it
                            long size = map.size();
                            assertTrue(size == 0 || size == 2 * SortedPeer.BATCH, "a reader found " + size + " entries");
                            byte[] v = map.get(SortedPeer.batchKey(reads.intValue() % SortedPeer.BATCH));
                            if (v != null) {
                                SortedPeer.sequence(v);
                            }
                            reads.incrementAndGet();
                        }
                    }
                });
                try (FerriteSortedMap<String, byte[]> map = b.open()) {
                    long seq = assertOneBatch(map.subMap("batch-", "batch-~"), "after round " + round);
                    assertTrue(seq >= acked.get("batch"), "batch " + seq + " is older than the last acknowledged, "
                            + acked.get("batch"));
                    java.util.SortedMap<String, byte[]> old = map.subMap("old-", "old-~");
                    assertEquals(SortedPeer.BATCH, old.size(), "the earlier batch's keys are all gone, this one's all there");
                    for (byte[] v : old.values()) {
                        assertEquals(seq, SortedPeer.sequence(v));
                    }
                    SortedMapModelTest.assertNoPageLost(map);
                }
            }
        } finally {
            delete(backend, where);
        }
    }

    /** @return the sequence number every batch key holds: the keys of one batch, all of them or none */
    private static long assertOneBatch(java.util.SortedMap<String, byte[]> batch, String who) {
        if (batch.isEmpty()) {
            return 0;
        }
        assertEquals(SortedPeer.BATCH, batch.size(), who + " found part of a batch");
        long seq = -1;
        for (byte[] v : batch.values()) {
            long s = SortedPeer.sequence(v);
            assertTrue(seq == -1 || seq == s, who + " found batches " + seq + " and " + s + " mixed");
            seq = s;
        }
        return seq;
    }

    private static void readWhileTheyWrite(FerriteSortedMapBuilder<String, byte[]> b, AtomicBoolean stop, AtomicLong reads) {
        try (FerriteSortedMap<String, byte[]> map = b.open()) {
            Random r = new Random();
            while (!stop.get()) {
                int writer = r.nextInt(2);
                String key = SortedPeer.key(writer, r.nextInt(KEYS));
                if (r.nextInt(8) == 0) {
                    String previous = null; // a range, in order, each value whole
                    for (Map.Entry<String, byte[]> e : map.tailMap(key).headMap(SortedPeer.key(writer, KEYS)).entrySet()) {
                        SortedPeer.sequence(e.getValue());
                        if (previous != null && previous.compareTo(e.getKey()) >= 0) {
                            throw new AssertionError(previous + " before " + e.getKey());
                        }
                        previous = e.getKey();
                    }
                } else {
                    byte[] v = map.get(key);
                    if (v != null) {
                        SortedPeer.sequence(v); // throws on a torn value
                    }
                }
                reads.incrementAndGet();
            }
        }
    }

    private String where(String backend, String what) {
        return backend.equals("shm") ? "shm:" + MapTargets.shmName(what.hashCode() & 0xFFFF)
                : "file:" + dir.resolve(what + ".map");
    }

    private static void delete(String backend, String where) {
        if (where.startsWith("shm:")) {
            dev.ferrite.Ferrite.backend(backend).deletePool(PoolSpec.shm(where.substring(4)).build());
        }
    }
}
