package dev.ferrite.kv;

import dev.ferrite.PoolSpec;
import dev.ferrite.testkit.ChildJvm;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
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

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real child JVMs on one map: writers killed with {@code kill -9} at random instants over many
 * rounds (puts, removes and in-place updates) while this process reads without checksums, each
 * round followed by a check that every acknowledged key holds its last acknowledged value (or a
 * later one), that nothing read was torn and that the next open scrubbed the map; and
 * {@code merge} as a counter from three processes at once, exact at the end.
 */
class MapProcessTest {

    private static final int KEYS = 500;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void writersKilledAtRandomInstantsLoseNoAcknowledgedWrite(String backend) throws Exception {
        String where = where(backend, "killed");
        FerriteMapBuilder<String, byte[]> b = builder(backend, where);
        b.expectedEntries(100).create().close(); // small, so the writers' rebuilds get killed too
        Map<String, Long> acked = new ConcurrentHashMap<>();
        Random random = new Random(Long.getLong("ferrite.test.killSeed", 7));
        long repairsSeen = 0;
        try {
            int rounds = Integer.getInteger("ferrite.test.killRounds", 6);
            for (int round = 0; round < rounds; round++) {
                List<List<String>> writers = KillRound.writers(backend, where, KEYS, round * 1_000_000_000L);
                KillRound.run(MapPeer.class, writers, 200, 1200, random, acked,
                        (stop, reads) -> readWhileTheyWrite(b, stop, reads));
                try (FerriteMap<String, byte[]> map = b.open()) {
                    assertTrue(map.stats().verifiedAtOpen(), "the writers died with the map open: the open checked it");
                    assertEquals(0, map.verify(), "kill -9 damages no entry");
                    for (Map.Entry<String, Long> e : acked.entrySet()) {
                        byte[] v = map.get(e.getKey());
                        assertTrue(v != null, "acknowledged key " + e.getKey() + " is missing after round " + round);
                        long stored = MapPeer.sequence(v);
                        if (e.getKey().startsWith("n")) { // a writer's counter, updated in place
                            assertTrue(stored >= e.getValue() && stored < (round + 1) * 1_000_000_000L,
                                    e.getKey() + " holds " + stored + ", last acknowledged " + e.getValue());
                            continue;
                        }
                        // The last acknowledged put or a later one of the same key (acknowledgements
                        // still in the writer's buffer when it died never reached this process).
                        int keyIndex = Integer.parseInt(e.getKey().substring(e.getKey().indexOf('-') + 1));
                        assertTrue(stored >= e.getValue() && stored % KEYS == keyIndex
                                        && stored < (round + 1) * 1_000_000_000L,
                                e.getKey() + " holds " + stored + ", last acknowledged " + e.getValue() + " (round " + round + ")");
                    }
                    long n = 0;
                    for (Map.Entry<String, byte[]> e : map.entrySet()) {
                        MapPeer.sequence(e.getValue());
                        n++;
                    }
                    assertEquals(map.size(), n, "size() counts what iteration finds");
                    repairsSeen = map.stats().repairs();
                }
            }
            System.out.println("kill -9 rounds on " + backend + ": " + acked.size() + " keys acknowledged, "
                    + repairsSeen + " section takeovers and repairs");
        } finally {
            delete(backend, where);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void mergeCountsExactlyFromThreeProcessesAtOnce(String backend) throws Exception {
        String where = where(backend, "merge");
        FerriteMapBuilder<String, byte[]> b = builder(backend, where);
        int perProcess = 3000;
        try (FerriteMap<String, byte[]> map = b.create()) {
            assertNull(map.get("counter"));
            List<Process> mergers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                mergers.add(ChildJvm.start(ChildJvm.ferriteFlags(), MapPeer.class, "merger", backend, where,
                        String.valueOf(perProcess)));
            }
            for (int i = 0; i < perProcess; i++) {
                map.merge("counter", MapPeer.value(1), (a, c) -> MapPeer.value(MapPeer.sequence(a) + MapPeer.sequence(c)));
            }
            for (Process p : mergers) {
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, p.exitValue(), out);
                assertTrue(out.contains("done"), out);
            }
            assertEquals(3L * perProcess, MapPeer.sequence(map.get("counter")));
        } finally {
            delete(backend, where);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void aWriterKilledInsideAnInPlaceUpdateLeavesTheOldValue(String backend) throws Exception {
        String where = where(backend, "stuck");
        FerriteMapBuilder<String, byte[]> b = builder(backend, where);
        try (FerriteMap<String, byte[]> map = b.create()) {
            map.put("stuck", MapPeer.value(41));
            Process p = ChildJvm.start(ChildJvm.ferriteFlags(), MapPeer.class, "stuck", backend, where);
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                assertEquals("open", in.readLine());
                assertEquals("torn", in.readLine(), "the child is inside the update, its value half overwritten");
                // The writer holds the lock and is still alive: readers get the value it had.
                assertEquals(41, MapPeer.sequence(map.get("stuck")));
                assertEquals(41, MapPeer.sequence(map.entrySet().iterator().next().getValue()));
                try (FerriteMap<String, byte[]> reader = b.readOnly().open()) {
                    assertEquals(41, MapPeer.sequence(reader.get("stuck")));
                }
            } finally {
                p.destroyForcibly(); // SIGKILL inside the updater
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            }
            assertEquals(41, MapPeer.sequence(map.get("stuck")), "dead writer: still the old value, no writer needed");
            long repairs = map.stats().repairs();
            map.put("stuck-too", MapPeer.value(1)); // a write: some section's lock, maybe the dead one's
            map.merge("stuck", MapPeer.value(1), (a, c) -> MapPeer.value(MapPeer.sequence(a) + MapPeer.sequence(c)));
            assertEquals(repairs + 1, map.stats().repairs(), "the dead writer's section was taken over once");
            assertEquals(42, MapPeer.sequence(map.get("stuck")), "the old value was put back, then counted on");
            assertEquals(2, map.size());
        } finally {
            delete(backend, where);
        }
    }

    @org.junit.jupiter.api.Test
    void theTakeOverWarningNamesTheDeadWriterNotTheProcessThatTookItsSlot() throws Exception {
        String where = where("unsafe", "slot");
        FerriteMapBuilder<String, byte[]> b = builder("unsafe", where);
        Logger log = (Logger) LoggerFactory.getLogger("dev.ferrite.kv"); // the map logs from its parts
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        log.addAppender(appender);
        try (FerriteMap<String, byte[]> map = b.create()) {
            map.put("stuck", MapPeer.value(41));
            Process p = ChildJvm.start(ChildJvm.ferriteFlags(), MapPeer.class, "stuck", "unsafe", where);
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                assertEquals("open", in.readLine());
                assertEquals("torn", in.readLine());
            } finally {
                p.destroyForcibly();
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            }
            try (FerriteMap<String, byte[]> second = b.open()) { // takes the dead child's client slot
                second.merge("stuck", MapPeer.value(1), (a, c) -> MapPeer.value(MapPeer.sequence(a) + MapPeer.sequence(c)));
                assertEquals(42, MapPeer.sequence(second.get("stuck")));
            }
            List<String> warnings = new ArrayList<>();
            synchronized (appender) {
                appender.list.forEach(e -> warnings.add(e.getFormattedMessage()));
            }
            String takeOver = warnings.stream().filter(w -> w.contains("died holding the lock")).findFirst()
                    .orElseThrow(() -> new AssertionError("no take-over warning in " + warnings));
            assertFalse(takeOver.contains("pid " + ProcessHandle.current().pid() + ")"), takeOver);
            assertTrue(takeOver.contains("pid " + p.pid() + ")") || takeOver.contains("pid unknown"), takeOver);
        } finally {
            log.detachAppender(appender);
        }
    }

    private static void readWhileTheyWrite(FerriteMapBuilder<String, byte[]> b, AtomicBoolean stop, AtomicLong reads) {
        try (FerriteMap<String, byte[]> map = b.open()) {
            Random r = new Random();
            while (!stop.get()) {
                // A key put again and again, or a writer's counter changed in place: neither is ever torn.
                int writer = r.nextInt(2);
                byte[] v = map.get(r.nextInt(4) == 0 ? "n" + writer : "w" + writer + "-" + r.nextInt(KEYS));
                if (v != null) {
                    MapPeer.sequence(v); // throws on a torn value
                }
                reads.incrementAndGet();
            }
        }
    }

    private String where(String backend, String what) {
        return backend.equals("shm") ? "shm:" + MapTargets.shmName(what.hashCode() & 0xFFFF)
                : "file:" + dir.resolve(what + ".map");
    }

    /**
     * A builder for the map at {@code where}. The peers' 120-byte values are kept in their buckets
     * (192 bytes) in maps of the {@code unsafe} and {@code shm} backends, and outside them (in the
     * heap, 128-byte buckets) in the others: the kill rounds cover both kinds of entry.
     */
    private static FerriteMapBuilder<String, byte[]> builder(String backend, String where) {
        FerriteMapBuilder<String, byte[]> b = FerriteMap.builder(Codec.utf8(), Codec.bytes()).backend(backend).capacity(4L << 30)
                .averageValueSize(backend.equals("unsafe") || backend.equals("shm") ? MapPeer.VALUE_BYTES : 64);
        return where.startsWith("file:") ? b.file(Path.of(where.substring(5))) : b.shm(where.substring(4));
    }

    private static void delete(String backend, String where) {
        if (where.startsWith("shm:")) {
            dev.ferrite.Ferrite.backend(backend).deletePool(PoolSpec.shm(where.substring(4)).build());
        }
    }
}
