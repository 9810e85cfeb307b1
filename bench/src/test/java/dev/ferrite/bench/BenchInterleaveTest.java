package dev.ferrite.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;

/**
 * {@code --interleave N}: N passes of one fork per benchmark, the forks of the benchmarks
 * alternating, merged into one result per benchmark with N forks, in the JSON as well; each fork
 * carries the host probe's readings ({@link HostProbeProfiler}), which the report lists beside it.
 */
class BenchInterleaveTest {

    /** A fork's cell in the report's host section: its median and the probe before and after it. */
    private static final Pattern FORK_CELL = Pattern.compile("[\\d.]+ \\[\\d+, \\d+\\]");

    @Test
    void passesAlternateAndMergeIntoOneResultPerBenchmark(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Collection<RunResult> results;
        try (PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8)) {
            results = BenchMain.run(new String[] {"--smoke", "--interleave", "2", "--out", dir.toString(),
                "QueueThroughput(Peers)?\\.(offer|agronaOneToOne)$", "-p", "backend=unsafe", "-p", "peer=thread"}, out);
        }
        String progress = log.toString(StandardCharsets.UTF_8);
        assertEquals(2, results.size(), progress);
        // forks with both host readings: the probe says NaN when it found no two free cores (a busy host)
        int linesWithReadings = 0;
        for (RunResult r : results) {
            assertEquals(2, r.getBenchmarkResults().size(), r.getParams().getBenchmark() + ": a fork from each pass");
            int forksWithReadings = 0;
            for (BenchmarkResult fork : r.getBenchmarkResults()) {
                boolean both = true;
                for (String probe : List.of(HostProbeProfiler.BEFORE, HostProbeProfiler.AFTER)) {
                    double ns = fork.getSecondaryResults().get(probe).getScore();
                    assertTrue(Double.isNaN(ns) || ns > 5 && ns < 100_000, probe + " = " + ns);
                    both &= !Double.isNaN(ns);
                }
                forksWithReadings += both ? 1 : 0;
            }
            linesWithReadings += forksWithReadings > 0 ? 1 : 0;
        }
        // Pass 1 runs both benchmarks before pass 2 runs either.
        List<String> order = progress.lines().filter(l -> l.startsWith("Pass ") || l.contains("] queue."))
                .map(l -> l.startsWith("Pass ") ? l : l.contains("agrona") ? "agrona" : "ferrite").toList();
        assertEquals(List.of("Pass 1 of 2:", "ferrite", "agrona", "Pass 2 of 2:", "ferrite", "agrona"),
                order.stream().map(s -> s.replaceAll("Pass (\\d) of 2:.*", "Pass $1 of 2:")).toList(), progress);
        assertTrue(progress.contains("2 interleaved fork(s)"), progress);
        String json = Files.readString(dir.resolve("results.json"));
        int offer = json.indexOf("QueueThroughput.offer");
        assertTrue(offer >= 0, json);
        assertEquals(2, forksInRawData(json, json.indexOf("\"rawData\"", offer)), "two forks' samples in the JSON:\n" + json);
        // The report lists the forks with readings of each benchmark, and the quiet forks' medians.
        String report = Files.readString(dir.resolve("report.md"));
        int host = report.indexOf("## The host during the queue benchmarks");
        assertEquals(linesWithReadings > 0, host >= 0, report);
        if (host >= 0) {
            List<String> lines = report.substring(host).lines().filter(l -> l.startsWith("| ") && FORK_CELL.matcher(l).find()).toList();
            assertEquals(linesWithReadings, lines.size(), report);
        }
    }

    /** @return how many arrays the {@code rawData} array starting after {@code from} holds (one per fork) */
    private static int forksInRawData(String json, int from) {
        int depth = 0;
        int arrays = 0;
        for (int i = json.indexOf('[', from); i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '[') {
                depth++;
                if (depth == 2) {
                    arrays++;
                }
            } else if (c == ']' && --depth == 0) {
                return arrays;
            }
        }
        throw new AssertionError("unterminated rawData");
    }
}
