package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.PoolSpec;
import dev.ferrite.RecoveryReport;
import dev.ferrite.Segment;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * File and shm pools shared by real processes (child JVMs): a named segment made in one is opened
 * in another while both run; several processes churn allocations at once and no chunk is ever
 * handed to two owners; processes killed with {@code kill -9} in the middle of churn leave a pool
 * that recovers, while this process keeps it open throughout.
 */
public interface MultiProcessContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 4096;

    private String location(PoolSpec spec) {
        return spec.kind() == PoolSpec.Kind.FILE ? spec.path().toString() : spec.shmName();
    }

    private String kindArg(PoolSpec spec) {
        return spec.kind() == PoolSpec.Kind.FILE ? "file" : "shm";
    }

    private List<String> childFlags() {
        List<String> flags = new ArrayList<>(ChildJvm.ferriteFlags());
        flags.add("-Xmx256m");
        return flags;
    }

    /** A named segment made here is read and written by a child process while this one runs. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void namedSegmentsAreSharedWithAnotherProcess(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(256 * CHUNK).extentSize(16 * CHUNK).build();
        try (TestPool tp = pool(spec); Segment mine = tp.pool().allocate("request", 5 * CHUNK)) {
            for (long off = 0; off < mine.size(); off += 8) {
                mine.putLong(off, off * 3);
            }
            ChildJvm.Result r = ChildJvm.run(childFlags(), Map.of(), SharedSegmentPeer.class, backend().name(),
                    kindArg(spec), location(spec));
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            assertTrue(r.stdout().contains("checked 2560 longs"), r.stdout());
            assertEquals(-42, mine.getLong(8), "the child's write is visible here");
            try (Segment reply = tp.pool().open("reply").orElseThrow()) {
                assertEquals(CHUNK * 2, reply.size());
                assertEquals(0xC0FFEEL, reply.getLong(CHUNK));
            }
            RecoveryReport report = tp.pool().recover();
            assertTrue(report.wasClean(), report.toString());
            assertEquals(7, tp.pool().usedChunks(), "the child's unnamed segments went back when it closed the pool");
        }
    }

    /** Three processes churn at once; stamps never clash, and the accounts add up afterwards. */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void concurrentChurnNeverHandsAChunkToTwoOwners(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(512 * CHUNK).extentSize(32 * CHUNK)
                .maxNamedSegments(4096).build();
        try (TestPool tp = pool(spec)) {
            List<Process> children = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(childFlags(), PoolChurn.class, backend().name(), kindArg(spec),
                        location(spec), "20000", Long.toString(i)));
            }
            for (Process p : children) {
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "churn did not finish");
                assertEquals(0, p.exitValue(), out);
                assertTrue(out.contains("ok 20000"), out);
            }
            RecoveryReport report = tp.pool().recover();
            assertTrue(report.wasClean(), report.toString());
            assertNamedAccountsAddUp(tp.pool());
        }
    }

    /**
     * Processes open and close one pool again and again while another allocates, frees and
     * recovers: no process ever takes over the meta lock or an owner slot from a live one (a
     * newcomer in a slot just given back must not find the lock naming it), and the chunk accounts
     * are exact afterwards. {@code -Dferrite.test.opens} sets the opens per process (default 5,000;
     * the acceptance run used 50,000 in each of two processes).
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void openCloseStormNeverTakesOverFromTheLiving(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(256 * CHUNK).extentSize(32 * CHUNK).build();
        int opens = Integer.getInteger("ferrite.test.opens", 5_000);
        try (TestPool tp = pool(spec)) {
            List<Process> children = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                children.add(ChildJvm.start(childFlags(), PoolOpenStorm.class, backend().name(), kindArg(spec),
                        location(spec), "open", Integer.toString(opens), Long.toString(i)));
            }
            children.add(ChildJvm.start(childFlags(), PoolOpenStorm.class, backend().name(), kindArg(spec),
                    location(spec), "recover", Integer.toString(opens), "7"));
            Random rnd = new Random(3);
            List<Segment> held = new ArrayList<>();
            while (children.stream().anyMatch(Process::isAlive)) {
                if (held.size() < 6 && rnd.nextBoolean()) {
                    held.add(tp.pool().allocate((1 + rnd.nextInt(3)) * CHUNK));
                } else if (!held.isEmpty()) {
                    held.remove(rnd.nextInt(held.size())).close();
                }
            }
            for (Process p : children) {
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(300, TimeUnit.SECONDS), "storm did not finish");
                assertEquals(0, p.exitValue(), out);
                assertTrue(out.contains("ok " + opens), out);
            }
            long mine = held.stream().mapToLong(s -> s.size() / CHUNK).sum();
            assertEquals(mine, tp.pool().usedChunks(), "only this process's chunks are in use");
            RecoveryReport report = tp.pool().recover();
            assertTrue(report.wasClean(), report.toString());
            held.forEach(Segment::close);
            assertEquals(0, tp.pool().usedChunks());
        }
    }

    /**
     * A child killed with {@code kill -9} at a random point of its churn, again and again: after
     * each, recovery (while this process keeps the pool open) gives back exactly what the dead
     * process held, and the pool stays sound and fully allocatable.
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void killedProcessesLeaveARecoverablePool(PoolSpec.Kind kind, @TempDir Path dir) throws Exception {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(512 * CHUNK).extentSize(32 * CHUNK)
                .maxNamedSegments(4096).build();
        Random rnd = new Random();
        try (TestPool tp = pool(spec); Segment mine = tp.pool().allocate("survivor", 3 * CHUNK)) {
            mine.putLong(0, 4242);
            int recovered = 0;
            int rounds = Integer.getInteger("ferrite.test.killRounds", 12);
            for (int round = 0; round < rounds; round++) {
                Process child = ChildJvm.start(childFlags(), PoolChurn.class, backend().name(), kindArg(spec),
                        location(spec), "-1", Long.toString(round));
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                        StandardCharsets.UTF_8));
                assertEquals("started", out.readLine(), "round " + round);
                Thread.sleep(10 + rnd.nextInt(150));
                child.destroyForcibly();
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                RecoveryReport report = tp.pool().recover();
                if (!report.wasClean()) {
                    recovered++;
                }
                RecoveryReport again = tp.pool().recover();
                assertTrue(again.wasClean(), "round " + round + ": a second recovery found more: " + again);
                assertNamedAccountsAddUp(tp.pool());
                assertEquals(4242, mine.getLong(0));
            }
            assertTrue(recovered > 0, "no kill left anything to recover");
            // Every chunk the accounts call free can really be allocated.
            long free = tp.pool().freeChunks();
            try (Segment rest = tp.pool().allocate(free * CHUNK)) {
                rest.fill(0, rest.size(), (byte) 1);
                assertEquals(0, tp.pool().freeChunks());
            }
            assertEquals(4242, mine.getLong(0));
        }
    }

    /**
     * Checks that the chunks in use are exactly those of this process's open segments plus the
     * named segments left by others.
     *
     * @param pool the pool, with no unnamed segment open in any other process
     */
    private static void assertNamedAccountsAddUp(ChunkPool pool) {
        long named = 0;
        for (String name : pool.segmentNames()) {
            try (Segment s = pool.open(name).orElseThrow()) {
                named += (s.size() + CHUNK - 1) / CHUNK;
            }
        }
        assertEquals(named, pool.usedChunks(), "used chunks are exactly the named segments' chunks");
        assertFalse(pool.freeChunks() < 0);
    }
}
