package dev.ferrite.bench;

import java.io.PrintStream;
import java.util.Collection;
import java.util.Locale;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.format.OutputFormat;

/**
 * JMH's output boiled down to one line as each benchmark starts and one as it ends, so a user
 * sees the run is alive without pages of iteration detail. Errors of a benchmark still show.
 */
final class ProgressOutput implements OutputFormat {

    private final PrintStream out;
    private int started;

    ProgressOutput(PrintStream out) {
        this.out = out;
    }

    static String describe(BenchmarkParams params) {
        String name = params.getBenchmark().substring("dev.ferrite.bench.".length());
        StringBuilder sb = new StringBuilder(name);
        for (String key : params.getParamsKeys()) {
            sb.append(' ').append(key).append('=').append(params.getParam(key));
        }
        return sb.toString();
    }

    @Override
    public void startBenchmark(BenchmarkParams params) {
        started++;
        out.printf("[%d] %s ...%n", started, describe(params));
        out.flush();
    }

    @Override
    public void endBenchmark(BenchmarkResult result) {
        if (result == null) {
            return;
        }
        Result<?> r = result.getPrimaryResult();
        out.printf(Locale.ROOT, "    %.3f ± %.3f %s%n", r.getScore(), r.getScoreError(), r.getScoreUnit());
        out.flush();
    }

    @Override
    public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {
    }

    @Override
    public void iterationResult(BenchmarkParams benchParams, IterationParams params, int iteration,
                                IterationResult data) {
    }

    @Override
    public void startRun() {
    }

    @Override
    public void endRun(Collection<RunResult> result) {
    }

    @Override
    public void print(String s) {
    }

    @Override
    public void println(String s) {
        if (s.contains("Exception") || s.contains("Error") || s.startsWith("<failure>")) {
            out.println("    " + s);
        }
    }

    @Override
    public void flush() {
        out.flush();
    }

    @Override
    public void close() {
        out.flush();
    }

    @Override
    public void verbosePrintln(String s) {
    }

    @Override
    public void write(int b) {
    }

    @Override
    public void write(byte[] b) {
    }
}
