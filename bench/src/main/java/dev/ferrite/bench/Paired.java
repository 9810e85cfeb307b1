package dev.ferrite.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Times a contender against a baseline in alternating blocks of a few milliseconds, in one JVM per
 * fork: a side-by-side ratio that a host slowing down for seconds or minutes moves far less than it
 * moves two JMH runs' times, because both sides of each pair ran within milliseconds of each other.
 *
 * <pre>
 * java -jar bench/target/ferrite-bench.jar --paired [--forks N] [--pairs N] [--block-ms M] [--warmup-s S] BASELINE CONTENDER...
 * </pre>
 *
 * <p>Each argument names a benchmark method of this module as {@link PairedSubject} reads it
 * ({@code MixPeers.doubleArray}, {@code Mix.perElement:backend=unsafe}). For each contender and
 * fork a JVM is started with the flags of the bench's JMH forks, the flags this JVM was given and
 * the benchmarks' own {@code @Fork} flags (which must agree); it sets both up, runs them in turn
 * for the warm-up, sizing each side's block to about {@code M} ms (at least one call), then runs
 * the pairs, baseline first in even pairs and contender first in odd ones. Each pair gives the
 * ratio of the contender's time per operation to the baseline's; printed are the median of all
 * forks' pairs, their 10th and 90th percentiles, each fork's median with its two sides' median
 * times per operation (forks often differ more than pairs do: where a fork's memory lands), and
 * each side's median time per operation over the forks. Defaults: 2 forks, 400 pairs, 5 ms
 * blocks, 10 s of warm-up.
 *
 * <p>A call goes through reflection (a few nanoseconds), so operations of a microsecond or less
 * carry that cost on both sides; and the two sides share one JVM's heap, JIT and caches. This is a
 * way to compare on a busy machine; the published figures remain JMH's.
 */
public final class Paired {

    /** What a fork prints before its numbers. */
    static final String RESULT = "paired-result";

    /** One side of a pair: an operation and how many operations one call performs. */
    interface Side {
        /**
         * Performs {@link #operations()} operations.
         *
         * @return a value to keep alive
         * @throws Exception what the operation throws
         */
        Object call() throws Exception;

        /** @return operations one call performs, at least 1 */
        int operations();
    }

    /**
     * One contender's ratios against the baseline, over every fork.
     *
     * @param baseline       the baseline's spec
     * @param contender      the contender's spec
     * @param median         the median of all pairs' ratios (contender's time per operation / baseline's)
     * @param p10            their 10th percentile
     * @param p90            their 90th percentile
     * @param forkMedians    each fork's median ratio
     * @param baselineNanos  the baseline's median time per operation (the median over forks), ns
     * @param contenderNanos the contender's, likewise
     */
    public record Result(String baseline, String contender, double median, double p10, double p90, double[] forkMedians,
                         double baselineNanos, double contenderNanos) {
    }

    private Paired() {
    }

    /**
     * Runs the pairs and prints the table.
     *
     * @param args see the class description
     * @param out  where the table goes
     * @return one result per contender
     * @throws IllegalArgumentException if the arguments are wrong
     * @throws IOException              if a fork cannot start or fails (its output is in the message)
     * @throws InterruptedException     if interrupted while a fork runs
     */
    public static List<Result> run(String[] args, PrintStream out) throws IOException, InterruptedException {
        int forks = 2;
        int pairs = 400;
        int blockMs = 5;
        int warmupS = 10;
        List<String> specs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--forks": forks = positive(args, ++i); break;
                case "--pairs": pairs = positive(args, ++i); break;
                case "--block-ms": blockMs = positive(args, ++i); break;
                case "--warmup-s": warmupS = positive(args, ++i); break;
                default:
                    if (args[i].startsWith("--")) {
                        throw new IllegalArgumentException("unknown option " + args[i]
                                + " (--paired takes --forks, --pairs, --block-ms and --warmup-s)");
                    }
                    specs.add(args[i]);
            }
        }
        if (specs.size() < 2) {
            throw new IllegalArgumentException("--paired needs a baseline and at least one contender, as "
                    + "--paired MixPeers.doubleArray Mix.perChunk:backend=unsafe");
        }
        String baseline = specs.get(0);
        List<Result> results = new ArrayList<>();
        out.printf(Locale.ROOT, "Paired: %d fork(s) x %d pairs of %d ms blocks after %d s of warm-up; ratio = contender's time"
                + " per operation / baseline's, median [10th-90th percentile] of all pairs%n", forks, pairs, blockMs, warmupS);
        for (String contender : specs.subList(1, specs.size())) {
            List<double[]> ratios = new ArrayList<>();
            double[] a = new double[forks];
            double[] b = new double[forks];
            for (int f = 0; f < forks; f++) {
                double[] r = fork(baseline, contender, pairs, blockMs, warmupS);
                a[f] = r[0];
                b[f] = r[1];
                ratios.add(Arrays.copyOfRange(r, 2, r.length));
            }
            Result res = summarize(baseline, contender, ratios, a, b);
            results.add(res);
            out.printf(Locale.ROOT, "  %s / %s: %.3f [%.3f-%.3f], forks %s; %s vs %s per operation%n", contender, baseline,
                    res.median(), res.p10(), res.p90(), forkList(res.forkMedians(), b, a), time(res.contenderNanos()),
                    time(res.baselineNanos()));
        }
        return results;
    }

    /** @return the result of a contender's forks: their pairs' ratios and each fork's two median times */
    static Result summarize(String baseline, String contender, List<double[]> forkRatios, double[] baselineNanos,
                            double[] contenderNanos) {
        double[] forkMedians = new double[forkRatios.size()];
        List<Double> all = new ArrayList<>();
        for (int f = 0; f < forkRatios.size(); f++) {
            double[] r = forkRatios.get(f).clone();
            Arrays.sort(r);
            forkMedians[f] = percentile(r, 0.5);
            for (double x : r) {
                all.add(x);
            }
        }
        double[] sorted = all.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new Result(baseline, contender, percentile(sorted, 0.5), percentile(sorted, 0.1), percentile(sorted, 0.9),
                forkMedians, median(baselineNanos), median(contenderNanos));
    }

    /** Starts one fork and reads its numbers: baseline ns/op, contender ns/op, then each pair's ratio. */
    private static double[] fork(String baseline, String contender, int pairs, int blockMs, int warmupS)
            throws IOException, InterruptedException {
        List<String> cmd = JvmFlags.forkCommand();
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        List<String> own = PairedSubject.forkFlags(baseline);
        if (!own.equals(PairedSubject.forkFlags(contender))) {
            throw new IllegalArgumentException(baseline + " asks its forks for " + own + " and " + contender + " for "
                    + PairedSubject.forkFlags(contender) + ": a pair shares one JVM, so they must agree");
        }
        cmd.addAll(own);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Paired.class.getName(), baseline, contender,
                Integer.toString(pairs), Integer.toString(blockMs), Integer.toString(warmupS)));
        Process p = ChildProcesses.start(new ProcessBuilder(cmd).redirectErrorStream(true));
        StringBuilder log = new StringBuilder();
        double[] result = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(RESULT + " ")) {
                    result = Arrays.stream(line.substring(RESULT.length() + 1).trim().split(" "))
                            .mapToDouble(Double::parseDouble).toArray();
                } else {
                    log.append(line).append('\n');
                }
            }
        }
        if (!p.waitFor(1, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException("the fork of " + contender + " against " + baseline + " did not end:\n" + log);
        }
        if (p.exitValue() != 0 || result == null) {
            throw new IOException("the fork of " + contender + " against " + baseline + " failed (exit "
                    + p.exitValue() + "):\n" + log);
        }
        return result;
    }

    /**
     * A fork: sets up both benchmarks, warms them up, runs the pairs and prints {@link #RESULT}
     * followed by the baseline's and the contender's median ns per operation and each pair's ratio.
     *
     * @param args baseline, contender, pairs, block milliseconds, warm-up seconds
     * @throws Exception what a benchmark throws
     */
    public static void main(String[] args) throws Exception {
        try (PairedSubject a = PairedSubject.of(args[0]); PairedSubject b = PairedSubject.of(args[1])) {
            double[] r = measure(a, b, Integer.parseInt(args[2]), TimeUnit.MILLISECONDS.toNanos(Integer.parseInt(args[3])),
                    TimeUnit.SECONDS.toNanos(Integer.parseInt(args[4])));
            StringBuilder line = new StringBuilder(RESULT);
            for (double x : r) {
                line.append(' ').append(String.format(Locale.ROOT, "%.5g", x));
            }
            System.out.println(line);
        }
    }

    /** Keeps what the benchmarks return alive, as JMH's blackhole does. */
    static volatile Object sink;

    /**
     * Warms up and runs the pairs in this JVM.
     *
     * @return baseline's and contender's median ns per operation, then each pair's ratio
     */
    static double[] measure(Side a, Side b, int pairs, long blockNanos, long warmupNanos) throws Exception {
        long[] calls = {1, 1};
        Side[] sides = {a, b};
        long warmEnd = System.nanoTime() + warmupNanos;
        do {
            for (int s = 0; s < 2; s++) {
                long t = block(sides[s], calls[s]);
                // toward blockNanos, at most tenfold a step so that one slow block does not make a huge one
                calls[s] = Math.max(1, Math.min(10 * calls[s], Math.round((double) calls[s] * blockNanos / Math.max(1, t))));
            }
        } while (System.nanoTime() < warmEnd);
        double[] ta = new double[pairs];
        double[] tb = new double[pairs];
        double[] out = new double[2 + pairs];
        for (int p = 0; p < pairs; p++) {
            boolean baselineFirst = (p & 1) == 0;
            long first = block(baselineFirst ? a : b, calls[baselineFirst ? 0 : 1]);
            long second = block(baselineFirst ? b : a, calls[baselineFirst ? 1 : 0]);
            ta[p] = (double) (baselineFirst ? first : second) / (calls[0] * a.operations());
            tb[p] = (double) (baselineFirst ? second : first) / (calls[1] * b.operations());
            out[2 + p] = tb[p] / ta[p];
        }
        out[0] = median(ta);
        out[1] = median(tb);
        return out;
    }

    /** @return nanoseconds {@code calls} calls of a subject took */
    private static long block(Side s, long calls) throws Exception {
        long t0 = System.nanoTime();
        for (long i = 0; i < calls; i++) {
            sink = s.call();
        }
        return System.nanoTime() - t0;
    }

    private static double median(double[] x) {
        double[] s = x.clone();
        Arrays.sort(s);
        return percentile(s, 0.5);
    }

    /** @return the value at a fraction of a sorted array (nearest rank) */
    private static double percentile(double[] sorted, double q) {
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    }

    /** @return each fork's median ratio and, in brackets, its contender's and baseline's median times */
    private static String forkList(double[] m, double[] contenderNanos, double[] baselineNanos) {
        StringBuilder s = new StringBuilder();
        for (int f = 0; f < m.length; f++) {
            s.append(f == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.3f", m[f]))
                    .append(" (").append(time(contenderNanos[f])).append(" vs ").append(time(baselineNanos[f])).append(')');
        }
        return s.toString();
    }

    private static String time(double nanos) {
        return nanos >= 1e6 ? String.format(Locale.ROOT, "%.2f ms", nanos / 1e6) : String.format(Locale.ROOT, "%.0f ns", nanos);
    }

    private static int positive(String[] args, int i) {
        try {
            int v = Integer.parseInt(args[i]);
            if (v > 0) {
                return v;
            }
        } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException(args[i - 1] + " needs a positive integer");
    }
}
