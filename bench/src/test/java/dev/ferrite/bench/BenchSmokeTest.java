package dev.ferrite.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.bench.report.Report;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;

/**
 * Runs every benchmark for one short iteration in a forked JVM, as the real runner does, so that
 * none of them rots: each must produce a result, and the report must show each experiment.
 * Measures nothing.
 */
class BenchSmokeTest {

    @Test
    void everyBenchmarkRunsAndTheReportShowsThem(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Collection<RunResult> results;
        try (PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8)) {
            results = BenchMain.run(new String[] {"--smoke", "--out", dir.toString()}, out);
        }
        String progress = log.toString(StandardCharsets.UTF_8);
        int backends = BenchMain.availableBackends().length;
        // Mix 2 + RandomRead 1 + ChunkStore 2 + StreamVsMapped 3 + PoolChurn 1 per backend, the unchecked
        // unsafe mix 2, and 26 peers (the mix's 6 first);
        // queue (8-byte messages only): offer and offerBatch x 2 peers + many-producer + ping-pong x 2 peers
        // per backend, and 10 peers (Agrona x 2 x 2, Agrona many-to-one, JCTools x 2, ping-pong 3);
        // map: 9 operations and the reopen per backend, the batched gets 3 (unsafe only), and 24 peers (5 operations
        // each of ConcurrentHashMap, Chronicle Map, OHC, LMDB; the update of ConcurrentHashMap and Chronicle Map;
        // Chronicle Map's reopen; the key's fetch alone); sorted maps: 3 operations x 3 peers; the server
        // database's two doors: 4 calls each.
        int expected = 9 * backends + 2 + 6 + 5 + 12 + 3 + 7 * backends + 10 + 10 * backends + 3 + 24 + 9 + 8;
        // Each latency result is reported as two rows, p50 and p99.
        int sampled = 2 * backends + 3;
        Set<String> ran = results.stream().map(r -> r.getParams().getBenchmark() + r.getParams().getParam("backend"))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(expected, results.size(), "every benchmark ran: " + ran + "\n" + progress);
        assertTrue(progress.contains("[1] "), progress);
        assertTrue(Files.size(dir.resolve("results.json")) > 0);
        String md = Files.readString(dir.resolve("report.md"));
        String html = Files.readString(dir.resolve("report.html"));
        for (String experiment : new String[] {"Mix (seed 000)", "Random reads", "1 KiB chunk store",
            "Mapped vs stream", "Pool churn", "Queue throughput", "Queue ping-pong latency", "Off-heap map", "Sorted map",
            "KV server database, in-process"}) {
            assertTrue(md.contains(experiment), experiment + " in\n" + md);
            assertTrue(html.contains(experiment), experiment);
        }
        assertTrue(md.contains("**double[]** (baseline)") && md.contains("1.00x"), md);
        assertTrue(html.contains("<svg") && html.contains("</html>"), "self-contained page with charts");
        assertTrue(md.contains("**Agrona OneToOneRingBuffer.write** (baseline)"), md);
        assertTrue(md.contains("round trip p99"), md);
        assertTrue(md.contains("**ConcurrentHashMap (heap)** (baseline)") && md.contains("Chronicle Map (file)"), md);
        // Bytes per entry, measured in a JVM per library: a row per backend, one at loadFactor(0.9), one per peer,
        // Chronicle Map the baseline.
        long footprintRows = md.lines().filter(l -> l.contains("| bytes per entry |")).count();
        assertEquals(backends + 5, footprintRows, md);
        assertTrue(md.contains("| FerriteMap, loadFactor(0.9) [unsafe] | "), md);
        assertTrue(md.contains("**Chronicle Map (file, sized exactly)** (baseline) | ") && md.contains(" B/entry |"), md);
        Report report = Report.of(results, "test");
        assertEquals(expected + sampled, report.rows().size());
        String summary = report.summary();
        for (String experiment : new String[] {"Mix (seed 000)", "1 KiB chunk store", "Queue throughput"}) {
            assertTrue(summary.contains(experiment), experiment + " in the summary\n" + summary);
        }
        assertTrue(summary.contains("Agrona OneToOneRingBuffer.write, "), "the queue's baseline\n" + summary);
        assertFalse(summary.contains("batches of 16"), "a row with no backend's cell stays in the full table\n" + summary);
        assertTrue(md.contains("batches of 16"), md);
        assertTrue(md.contains("median per item") && md.contains("spread"), md);

        // --publish writes the page and the README's summary from this one report.
        Path root = dir.resolve("repo");
        Files.createDirectories(root);
        Files.writeString(root.resolve("README.md"), "# x\n" + Publication.BEGIN + "\n" + Publication.END + "\n");
        Publication.write(report, "smoke", new String[] {"--smoke"}, root);
        assertTrue(Files.readString(root.resolve("README.md")).contains(summary));
        assertTrue(Files.readString(root.resolve("docs/BENCHMARKS.md")).contains(report.markdown()));
    }
}
