package dev.ferrite.bench.report;

import dev.ferrite.bench.HostProbeProfiler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * The queue throughput benchmarks fork by fork, each fork with the host's cache-line round trip
 * just before and after it ({@link HostProbeProfiler}), and their medians over the forks measured
 * while the host was quiet. Why: on a VM whose host moves the vCPUs apart for minutes, every
 * cross-core queue slows two- to fivefold with the round trip (measured on an AMD EPYC VM: 45-90 ns
 * quiet, 400-490 ns moved), Agrona's as much as Ferrite's, so a fork's time says as much about the
 * host as about the queue; the readings let a reader, and the ratios here, keep the two apart.
 * A fork is quiet when both its readings are under {@value #QUIET_FACTOR} times the run's fastest.
 * Immutable.
 */
final class HostForks {

    /** A reading more than this many times the run's fastest marks its fork as measured on a moved host. */
    static final double QUIET_FACTOR = 2.5;

    /**
     * One fork.
     *
     * @param samples its measurement samples, time per item, sorted
     * @param before  the probe just before it, ns per round trip (NaN if not measured)
     * @param after   the probe just after it
     */
    record Fork(double[] samples, double before, double after) {

        double median() {
            return HostForks.median(samples);
        }
    }

    /**
     * One benchmark with its forks.
     *
     * @param entry   what it is
     * @param group   its group in the report (experiment, operation, sizes)
     * @param backend the Ferrite backend, or ""
     * @param unit    time unit per item
     * @param forks   its forks in the order they ran
     */
    record Line(Entry entry, String group, String backend, String unit, List<Fork> forks) {
    }

    private final List<Line> lines;
    private final double fastestProbe;

    private HostForks(List<Line> lines, double fastestProbe) {
        this.lines = lines;
        this.fastestProbe = fastestProbe;
    }

    /**
     * @param results JMH's results (forks without probe readings are left out)
     * @return the queue throughput benchmarks' forks; empty if no fork has a probe reading
     */
    static HostForks of(Iterable<RunResult> results) {
        List<Line> lines = new ArrayList<>();
        double fastest = Double.POSITIVE_INFINITY; // no reading: no line, and no section
        for (RunResult r : results) {
            BenchmarkParams p = r.getParams();
            Entry e = Catalog.of(p.getBenchmark());
            if (!e.experiment().equals(Catalog.QUEUE) || p.getMode() != Mode.AverageTime) {
                continue;
            }
            long items = Report.items(e, p);
            List<Fork> forks = new ArrayList<>();
            for (BenchmarkResult fork : r.getBenchmarkResults()) {
                Map<String, Result> secondary = fork.getSecondaryResults();
                double before = score(secondary.get(HostProbeProfiler.BEFORE));
                double after = score(secondary.get(HostProbeProfiler.AFTER));
                if (Double.isNaN(before) || Double.isNaN(after)) {
                    continue;
                }
                fastest = Math.min(fastest, Math.min(before, after));
                double[] samples = fork.getIterationResults().stream().map(IterationResult::getPrimaryResult)
                        .mapToDouble(res -> res.getScore() / items).sorted().toArray();
                forks.add(new Fork(samples, before, after));
            }
            if (!forks.isEmpty()) {
                String unit = r.getPrimaryResult().getScoreUnit();
                lines.add(new Line(e, Report.groupOf(e, p), p.getParamsKeys().contains("backend") ? p.getParam("backend") : "",
                        unit.substring(0, unit.indexOf('/')), forks));
            }
        }
        lines.sort(Comparator.comparing(Line::group).thenComparing(l -> !l.entry().baseline())
                .thenComparing(l -> l.entry().label()).thenComparing(Line::backend));
        return new HostForks(List.copyOf(lines), fastest);
    }

    private static double score(Result result) {
        return result == null ? Double.NaN : result.getScore();
    }

    /** @return whether both of a fork's readings are under {@link #QUIET_FACTOR} times the run's fastest */
    boolean quiet(Fork fork) {
        return quiet(fork.before(), fork.after(), fastestProbe);
    }

    /**
     * @param before  a fork's reading before it, ns
     * @param after   its reading after it, ns
     * @param fastest the run's fastest reading, ns
     * @return whether both readings are under {@link #QUIET_FACTOR} times the fastest
     */
    static boolean quiet(double before, double after, double fastest) {
        double limit = QUIET_FACTOR * fastest;
        return before < limit && after < limit;
    }

    /** @return every sample of a line's quiet forks, sorted; empty if none was quiet */
    double[] quietSamples(Line line) {
        return line.forks().stream().filter(this::quiet).flatMapToDouble(f -> Arrays.stream(f.samples()))
                .sorted().toArray();
    }

    /**
     * @return the Markdown section, or "" when no fork has readings (a run on one CPU, or without
     *         the profiler)
     */
    String markdown() {
        if (lines.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("\n## The host during the queue benchmarks\n\n");
        md.append(String.format(Locale.ROOT, "Each fork's median time per message, with the cache-line round "
                + "trip between the two cores measured just before and after it in brackets (ns; `HostProbeProfiler`). "
                + "The run's fastest reading was %.0f ns; a fork with a reading over %.1f times that (%.0f ns) ran while "
                + "the host had moved the cores apart, which slows every cross-core queue alike, and is in italics. The "
                + "last three columns use the quiet forks only: the median of their samples, their slowest sample over "
                + "that median, and the median as a ratio to the baseline's, Agrona's `OneToOneRingBuffer` (lower is "
                + "faster).%n%n", fastestProbe, QUIET_FACTOR, QUIET_FACTOR * fastestProbe));
        md.append("| operation | variant | forks: median [probe before, after] | quiet forks | median, quiet | "
                + "slowest / median, quiet | ratio, quiet |\n|---|---|---|---:|---:|---:|---:|\n");
        for (Line line : lines) {
            double[] quiet = quietSamples(line);
            double median = median(quiet);
            double base = lines.stream().filter(l -> l.group().equals(line.group()) && l.entry().baseline())
                    .findFirst().map(l -> median(quietSamples(l))).orElse(Double.NaN);
            md.append("| ").append(Report.operation(line.group())).append(" | ").append(Report.markedVariant(line.entry(), line.backend())).append(" | ");
            List<String> cells = new ArrayList<>();
            for (Fork f : line.forks()) {
                String cell = String.format(Locale.ROOT, "%s [%.0f, %.0f]", Report.fmt(f.median()), f.before(),
                        f.after());
                cells.add(quiet(f) ? cell : "_" + cell + "_");
            }
            md.append(String.join(", ", cells)).append(" | ")
                    .append(line.forks().stream().filter(this::quiet).count()).append(" of ").append(line.forks().size())
                    .append(" | ").append(quiet.length == 0 ? "–" : Report.fmt(median) + " " + line.unit()).append(" | ")
                    .append(quiet.length == 0 ? "–" : Report.fmt(quiet[quiet.length - 1] / median)).append(" | ")
                    .append(Double.isNaN(median / base) ? "–" : Report.fmt(median / base) + "x").append(" |\n");
        }
        return md.toString();
    }

    /** @return the median of sorted values, NaN if there are none */
    static double median(double[] sorted) {
        int n = sorted.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
