package dev.ferrite.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.RecoveryReport;
import dev.ferrite.Segment;
import dev.ferrite.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process in another PID namespace (a container sharing a volume or {@code /dev/shm}) holds
 * chunks, a named segment and a queue's producer place while this process opens the pool, runs
 * recovery and takes every free chunk: nothing of the other process's is taken, and its queue
 * place is still held. The pid it wrote means nothing here (in its namespace it is pid 1 or 2),
 * so only its liveness record tells. Needs {@code unshare --pid --fork --mount-proc} (root):
 * skipped with the reason where that is not permitted.
 */
class ForeignPidNamespaceTest {

    private static final long CHUNK = 4096;
    private static final byte MARK = 0x5A;

    @Test
    void nothingOfALiveProcessInAnotherPidNamespaceIsTaken(@TempDir Path dir) throws Exception {
        Process probe = new ProcessBuilder("unshare", "--pid", "--fork", "--mount-proc", "true")
                .redirectErrorStream(true).start();
        String why = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assumeTrue(probe.waitFor() == 0, "unshare --pid --fork --mount-proc is not permitted here: " + why);

        Path poolFile = dir.resolve("shared.pool");
        Path queueFile = dir.resolve("shared.queue");
        List<String> cmd = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc",
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(ChildJvm.ferriteFlags());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Holder.class.getName(), poolFile.toString(),
                queueFile.toString()));
        Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
             PrintStream out = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String ready = in.readLine();
            assertTrue(ready != null && ready.startsWith("ready pid "), "child said: " + ready);
            assertTrue(Long.parseLong(ready.substring(10).trim()) <= 2, "the child runs as pid 1 or 2 of its namespace");

            try (ChunkPool pool = Ferrite.backend().openPool(PoolSpec.file(poolFile).build())) {
                assertDiedNoted(pool.openReport(), false);
                RecoveryReport report = pool.recover();
                assertDiedNoted(report, false);
                assertEquals(8, pool.usedChunks(), "the child's 4 unnamed and 4 named chunks stay its own");
                // Everything that is free goes to this process and is overwritten.
                try (Segment rest = pool.allocate(pool.freeChunks() * CHUNK)) {
                    rest.fill(0, rest.size(), (byte) 0);
                }
                assertTrue(pool.segmentNames().contains("held"));
            }
            try (IpcQueue queue = IpcQueue.open(QueueSpec.file(queueFile).build()); Consumer consumer = queue.consumer()) {
                assertTrue(consumer.isPeerAlive(), "the producer in the other namespace is alive");
                FerriteException e = assertThrows(FerriteException.class, queue::producer);
                assertTrue(e.getMessage().contains("live producer"), e.getMessage());
                assertEquals(1, consumer.poll((s, off, len, type) -> { }, 10));
            }
            out.println("check");
            assertEquals("intact", in.readLine(), "the child's memory after this process recovered and allocated");
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue());
        } finally {
            child.destroyForcibly();
        }
    }

    private static void assertDiedNoted(RecoveryReport report, boolean expected) {
        boolean noted = report.notes().stream().anyMatch(n -> n.contains("died"));
        assertEquals(expected, noted, report.notes().toString());
        assertFalse(report.notes().stream().anyMatch(n -> n.contains("taken over")), report.notes().toString());
    }

    /** The child: holds chunks, a named segment and a producer place, then checks its memory. */
    public static final class Holder {
        private Holder() {
        }

        /**
         * @param args pool file, queue file
         * @throws Exception if anything fails
         */
        public static void main(String[] args) throws Exception {
            try (ChunkPool pool = Ferrite.backend().createPool(PoolSpec.file(Path.of(args[0])).chunkSize(CHUNK)
                    .capacity(64 * CHUNK).build());
                 Segment unnamed = pool.allocate(4 * CHUNK);
                 Segment named = pool.allocate("held", 4 * CHUNK);
                 IpcQueue queue = IpcQueue.create(QueueSpec.file(Path.of(args[1])).capacity(1 << 16).build());
                 Producer producer = queue.producer()) {
                unnamed.fill(0, unnamed.size(), MARK);
                named.fill(0, named.size(), MARK);
                producer.offer(new byte[] {1, 2, 3}, 0, 3, 1);
                System.out.println("ready pid " + ProcessHandle.current().pid());
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                if (!"check".equals(in.readLine())) {
                    System.exit(3);
                }
                System.out.println(intact(unnamed) && intact(named) ? "intact" : "damaged");
                System.out.flush();
            }
        }

        private static boolean intact(Segment s) {
            for (long off = 0; off < s.size(); off++) {
                if (s.getByte(off) != MARK) {
                    return false;
                }
            }
            return true;
        }
    }
}
