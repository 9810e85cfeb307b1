package dev.ferrite.bench;

import java.io.File;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.ExternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler that runs the {@link LineProbe} in the bench's own JVM just before each fork of a
 * queue benchmark (package {@code dev.ferrite.bench.queue}, where threads or processes share
 * memory across cores) starts and just after it ends, and attaches both readings to the fork's
 * results as {@value #BEFORE} and {@value #AFTER} (ns per cache-line round trip between two cores).
 * The report uses them to tell the forks measured while the host was quiet from those measured
 * while it had moved the vCPUs apart ({@code HostForks}). Adds no JVM options and nothing to the
 * measured fork: the probe (15-150 ms) runs while no fork does. Other benchmarks' forks are not
 * probed and get no readings. The bench adds it to every run. Called by JMH's runner thread only.
 */
public final class HostProbeProfiler implements ExternalProfiler {

    /** Secondary result: the probe just before the fork, ns per round trip (NaN on one CPU). */
    public static final String BEFORE = "host.lineRoundTrip.before";
    /** Secondary result: the probe just after the fork, ns per round trip (NaN on one CPU). */
    public static final String AFTER = "host.lineRoundTrip.after";

    private static final String PROBED_PACKAGE = "dev.ferrite.bench.queue.";

    private double before = Double.NaN;

    /** Made by JMH, by reflection. */
    public HostProbeProfiler() {
    }

    @Override
    public Collection<String> addJVMInvokeOptions(BenchmarkParams params) {
        return List.of();
    }

    @Override
    public Collection<String> addJVMOptions(BenchmarkParams params) {
        return List.of();
    }

    @Override
    public void beforeTrial(BenchmarkParams benchmarkParams) {
        before = probed(benchmarkParams) ? LineProbe.roundTripNanos() : Double.NaN;
    }

    @Override
    public Collection<? extends Result> afterTrial(BenchmarkResult br, long pid, File stdOut, File stdErr) {
        if (!probed(br.getParams())) {
            return List.of();
        }
        double after = LineProbe.roundTripNanos();
        return List.of(new ScalarResult(BEFORE, before, "ns", AggregationPolicy.MAX),
                new ScalarResult(AFTER, after, "ns", AggregationPolicy.MAX));
    }

    private static boolean probed(BenchmarkParams params) {
        return params.getBenchmark().startsWith(PROBED_PACKAGE);
    }

    @Override
    public boolean allowPrintOut() {
        return true;
    }

    @Override
    public boolean allowPrintErr() {
        return true;
    }

    @Override
    public String getDescription() {
        return "cache-line round trip between two cores before and after each fork (is the host quiet?)";
    }
}
