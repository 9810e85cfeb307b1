package dev.ferrite.bench;

import dev.ferrite.Ferrite;
import dev.ferrite.bench.map.MapFootprints;
import dev.ferrite.bench.report.Footprint;
import dev.ferrite.bench.report.Report;
import dev.ferrite.spi.MemoryBackend;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the cross-backend benchmarks and writes the report.
 *
 * <pre>
 * java -jar bench/target/ferrite-bench.jar [--full | --smoke] [--interleave N] [--out DIR] [--publish] [JMH options...]
 * </pre>
 *
 * <p>The quick profile (default) runs every benchmark in one fork with short iterations: about
 * an hour on 2 cores (two for two interleaved forks, measured). {@code --full} runs longer, in two forks, and adds a mix of signals larger
 * than 2^31 bytes (over 2 hours: 2 × 16 s per benchmark). {@code --smoke} runs one 100 ms
 * iteration of each (a check that nothing rots, not a measurement). {@code --interleave N} runs
 * N passes of one fork per benchmark and merges them, N forks each: the forks of the benchmarks
 * compared alternate, so a machine that slows down for minutes slows each of them for a fork,
 * not one of them for all of its forks. Other arguments go to JMH (e.g. {@code -p backend=ffm}, a
 * benchmark regex, {@code -f 3}, {@code -prof gc}; {@code -jvmArgsAppend} adds to the forks' flags,
 * a flag given there winning over the bench's); JMH's {@code -l}, {@code -lp}, {@code -lprof} and
 * {@code -lrf} list and exit. {@code --help} prints this and JMH's options. Writes
 * {@code results.json} (JMH JSON), {@code report.md} and {@code report.html} to {@code DIR} (default
 * {@code bench-results}) and prints their paths; {@code --publish} also writes the full tables to
 * {@code docs/BENCHMARKS.md} and the summary into {@code README.md} between its
 * {@code <!-- bench-summary -->} markers (run it from the repository's root). {@code --redis} as the
 * first argument runs the KV server against Redis instead ({@link dev.ferrite.bench.server.ServerVsRedis}), and
 * {@code --paired} times benchmarks against a baseline in alternating blocks ({@link Paired}).
 */
public final class BenchMain {

    /** The profiles. */
    enum Profile {
        /** One fork, 2 × 0.5 s warm-up, 5 × 0.5 s measurement. */
        QUICK,
        /** Two forks, 3 × 2 s warm-up, 5 × 2 s measurement, and the large mix. */
        FULL,
        /** For CI: one fork, one 100 ms iteration, small sizes. Checks that nothing rots. */
        SMOKE
    }

    private BenchMain() {
    }

    /**
     * @param args see the class description
     * @throws Exception if the run cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--redis")) {
            dev.ferrite.bench.server.ServerVsRedis.run(java.util.Arrays.copyOfRange(args, 1, args.length), System.out);
            return;
        }
        if (args.length > 0 && args[0].equals("--paired")) {
            Paired.run(java.util.Arrays.copyOfRange(args, 1, args.length), System.out);
            return;
        }
        boolean ran = !run(args, System.out).isEmpty();
        System.exit(ran || onlyInforms(args) ? 0 : 1);
    }

    /**
     * Runs the benchmarks and writes the report.
     *
     * @param args see the class description
     * @param out  where progress and paths go
     * @return the results, empty if none ran
     * @throws RunnerException           if JMH fails
     * @throws IOException               if the report cannot be written
     * @throws CommandLineOptionException if a JMH option is wrong
     */
    public static Collection<RunResult> run(String[] args, PrintStream out)
            throws RunnerException, IOException, CommandLineOptionException {
        Profile profile = Profile.QUICK;
        Path dir = Path.of("bench-results");
        boolean publish = false;
        int passes = 1;
        List<String> jmhArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--help":
                    out.println(USAGE);
                    new CommandLineOptions().showHelp();
                    return List.of();
                case "--publish":
                    publish = true;
                    break;
                case "--full":
                    profile = Profile.FULL;
                    break;
                case "--smoke":
                    profile = Profile.SMOKE;
                    break;
                case "--out":
                    if (i + 1 == args.length) {
                        throw new CommandLineOptionException("--out needs a directory");
                    }
                    dir = Path.of(args[++i]);
                    break;
                case "--interleave":
                    passes = passes(args, ++i);
                    break;
                default:
                    jmhArgs.add(args[i]);
            }
        }
        CommandLineOptions user = new CommandLineOptions(jmhArgs.toArray(new String[0]));
        if (publish && !user.getParameter("backend").hasValue()) {
            String missing = Publication.missingBackends(foundBackends());
            if (!missing.isEmpty()) {
                throw new CommandLineOptionException("--publish writes a page of every backend: " + missing);
            }
        }
        ChainedOptionsBuilder b = new OptionsBuilder().parent(user);
        if (user.getIncludes().isEmpty()) {
            b.include("dev\\.ferrite\\.bench\\..*");
        }
        if (listed(user, b, out)) {
            return List.of();
        }
        applyProfile(profile, user, b);
        // The host's cache-line round trip before and after each fork: the report tells the forks a
        // moved host slowed from the others (a VM's host can slow every cross-core queue fivefold).
        b.addProfiler(HostProbeProfiler.class);
        if (passes > 1) {
            if (user.getForkCount().hasValue()) {
                throw new CommandLineOptionException("--interleave " + passes
                        + " runs one fork per benchmark in each pass: leave out -f");
            }
            b.forks(1);
        }
        if (!user.getParameter("backend").hasValue()) {
            b.param("backend", availableBackends());
        }
        // Appended: a benchmark's own @Fork(jvmArgsPrepend) (Agrona's and Ferrite's checks off) still applies.
        b.jvmArgsAppend(forkFlags(profile, user).toArray(new String[0]));
        Files.createDirectories(dir);
        Path json = dir.resolve("results.json");
        b.result(json.toString()).resultFormat(ResultFormatType.JSON).shouldFailOnError(false);

        Options options = b.build();
        // How many samples each median rests on belongs with the numbers.
        String environment = environment(profile) + String.format(Locale.ROOT, ", %d %sfork(s) x %d x %s",
                passes > 1 ? passes : options.getForkCount().orElse(1), passes > 1 ? "interleaved " : "",
                options.getMeasurementIterations().orElse(1), options.getMeasurementTime().orElse(TimeValue.NONE));
        out.println("Ferrite bench, " + profile.name().toLowerCase(Locale.ROOT) + " profile: " + environment);
        Collection<RunResult> results = passes == 1 ? new Runner(options, new ProgressOutput(out)).run()
                : interleaved(options, passes, json, out);
        List<Footprint> footprints;
        try {
            footprints = MapFootprints.measure(results, out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while measuring the maps' footprints", e);
        }
        Report report = Report.of(results, footprints, environment);
        List<Path> written = report.write(dir);
        out.println();
        out.println(results.size() + " benchmarks measured.");
        out.println("JMH results: " + json.toAbsolutePath());
        out.println("Report:      " + written.get(0).toAbsolutePath());
        out.println("Charts:      " + written.get(1).toAbsolutePath());
        if (publish && !results.isEmpty()) {
            for (Path p : Publication.write(report, profile.name().toLowerCase(Locale.ROOT), args, Path.of("."))) {
                out.println("Published:   " + p.toAbsolutePath());
            }
        }
        return results;
    }

    /** @return the pass count after {@code --interleave} at {@code args[i]}, from 1 to 100 */
    private static int passes(String[] args, int i) throws CommandLineOptionException {
        String value = i < args.length ? args[i] : "";
        try {
            int n = Integer.parseInt(value);
            if (n >= 1 && n <= 100) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new CommandLineOptionException("--interleave needs a pass count from 1 to 100, not \"" + value + "\"");
    }

    /**
     * Runs every selected benchmark in one fork per pass, {@code passes} times, and merges each
     * benchmark's forks into one result (JMH's JSON then lists each fork's samples; its
     * {@code forks} field says 1, the fork count of a pass). Rewrites {@code json} with the merge.
     */
    private static Collection<RunResult> interleaved(Options options, int passes, Path json, PrintStream out)
            throws RunnerException {
        Map<String, List<RunResult>> byBenchmark = new LinkedHashMap<>();
        for (int pass = 1; pass <= passes; pass++) {
            out.println("Pass " + pass + " of " + passes + ":");
            for (RunResult r : new Runner(options, new ProgressOutput(out)).run()) {
                byBenchmark.computeIfAbsent(r.getParams().id(), k -> new ArrayList<>()).add(r);
            }
        }
        List<RunResult> merged = new ArrayList<>();
        for (List<RunResult> runs : byBenchmark.values()) {
            List<BenchmarkResult> forks = new ArrayList<>();
            runs.forEach(r -> forks.addAll(r.getBenchmarkResults()));
            merged.add(new RunResult(runs.get(0).getParams(), forks));
        }
        ResultFormatFactory.getInstance(ResultFormatType.JSON, json.toString()).writeOut(merged);
        return merged;
    }

    /** @return whether the arguments ask for help or a list, which runs nothing and is no failure */
    static boolean onlyInforms(String[] args) {
        return List.of(args).stream().anyMatch(a -> List.of("--help", "-h", "-l", "-lp", "-lprof", "-lrf").contains(a));
    }

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar bench/target/ferrite-bench.jar [--full | --smoke] [--interleave N] [--out DIR] [--publish] [JMH options]",
            "",
            "Runs Ferrite's benchmarks on every available backend beside the libraries people use instead,",
            "and writes DIR/results.json (JMH JSON), DIR/report.md and DIR/report.html (DIR: bench-results).",
            "",
            "  (default)   quick profile: 1 fork, 2 x 0.5 s warm-up, 5 x 0.5 s measurement; about an hour on 2 cores",
            "  --full      2 forks, 3 x 2 s warm-up, 5 x 2 s measurement, plus 2.25 GiB signals; over 2 hours",
            "  --smoke     1 fork, one 100 ms iteration, small sizes: checks that everything runs, measures nothing",
            "  --interleave N  N passes of one fork per benchmark, merged as N forks each: the forks of the",
            "              benchmarks compared alternate, so minutes of a slow machine fall on all of them",
            "  --out DIR   where the results go",
            "  --publish   also write docs/BENCHMARKS.md and the summary in README.md (run from the repository root;",
            "              every backend must be available: a jar built and run with a JDK 22 or later)",
            "  --help      this, then JMH's options",
            "",
            "Each fork runs with the bench's JVM flags (a fixed 4 GiB heap touched at start, the",
            "--add-opens Chronicle Map needs, ...); JMH's -jvmArgsAppend \"...\" adds to them, a flag given",
            "there winning over the bench's, as -jvmArgsAppend \"-Xmx14g -Djava.io.tmpdir=/dev/shm\" for the",
            "map at 10M entries (an -Xmx without -Xms sets both).",
            "",
            "java -jar bench/target/ferrite-bench.jar --redis [--rounds 4] [--requests 1000000] [--busy-poll 50]",
            "        [--persistence durable|none|both] [--out DIR] [--publish]",
            "  runs the KV server (its defaults, no busy polling) and a labelled variant with --busy-poll",
            "  MICROS (50; 0 for none) against a real redis-server with redis-benchmark, each server's CPU",
            "  seconds per million requests beside throughput and p99 (no JMH; about 35 minutes a persistence",
            "  mode with the default 4 rounds, both modes by default; the rounds must be even, as the servers",
            "  take turns going first): DIR/server-vs-redis.{md,html,csv}; --publish writes",
            "  docs/SERVER-BENCHMARKS.md and the README summary.",
            "",
            "java -jar bench/target/ferrite-bench.jar --paired [--forks 2] [--pairs 400] [--block-ms 5] [--warmup-s 10]",
            "        BASELINE CONTENDER...",
            "  times each contender against the baseline in alternating blocks of a few ms in one JVM per fork",
            "  (no JMH) and prints the median ratio of the pairs' times per operation with its 10th-90th",
            "  percentiles; a benchmark is Class.method[:param=value,...] below dev.ferrite.bench, as",
            "  Mix.perElement:backend=unsafe or map.MapPeers.Chm.getHit.",
            "",
            "Every other argument goes to JMH: a benchmark regex (e.g. 'Mix' or 'QueueThroughput'), -p backend=ffm,",
            "-f 3 -i 5 -r 1s, -prof gc; -l lists the benchmarks, -lp with their parameters, -lprof the profilers.",
            "",
            "JMH's options:");

    /**
     * The flags appended to each fork's command line: the bench's own ({@link JvmFlags#forks()}),
     * then the user's {@code -jvmArgsAppend}, so that a user's flag overrides the bench's of the
     * same name (the JVM takes the last {@code -Xmx} or {@code -D} it is given) and the others stay.
     * A user's {@code -Xmx} without {@code -Xms} brings an equal {@code -Xms}: the heap keeps one size
     * (see {@link JvmFlags}).
     *
     * @return a new list
     */
    static List<String> forkFlags(Profile profile, CommandLineOptions user) {
        List<String> flags = JvmFlags.forks();
        if (profile == Profile.SMOKE) {
            // Measures nothing: no second per fork touching the heap, and C1 alone (a fork spends
            // its 100 ms and its setup compiling; without C2 the whole run takes about a sixth less).
            flags.remove(JvmFlags.PRE_TOUCH);
            flags.add("-XX:TieredStopAtLevel=1");
        }
        if (user.getJvmArgsAppend().hasValue()) {
            Collection<String> own = user.getJvmArgsAppend().get();
            flags.addAll(own);
            String max = own.stream().filter(f -> f.startsWith("-Xmx")).reduce((a, b) -> b).orElse(null);
            if (max != null && own.stream().noneMatch(f -> f.startsWith("-Xms"))) {
                flags.add("-Xms" + max.substring("-Xmx".length())); // the heap stays fixed, as the bench's own
            }
        }
        return flags;
    }

    /** Handles JMH's help and list options the way JMH's own launcher does; true if one was given. */
    private static boolean listed(CommandLineOptions user, ChainedOptionsBuilder b, PrintStream out)
            throws CommandLineOptionException, IOException {
        if (user.shouldHelp()) {
            out.println(USAGE);
            user.showHelp();
            return true;
        }
        if (user.shouldListProfilers()) {
            user.listProfilers();
            return true;
        }
        if (user.shouldListResultFormats()) {
            user.listResultFormats();
            return true;
        }
        if (user.shouldList() || user.shouldListWithParams()) {
            Runner runner = new Runner(b.build());
            if (user.shouldListWithParams()) {
                runner.listWithParams(user);
            } else {
                runner.list();
            }
            return true;
        }
        return false;
    }

    private static void applyProfile(Profile profile, CommandLineOptions user, ChainedOptionsBuilder b) {
        int forks;
        int warmups;
        TimeValue warmupTime;
        int iterations;
        TimeValue time;
        switch (profile) {
            case FULL:
                forks = 2;
                warmups = 3;
                warmupTime = TimeValue.seconds(2);
                iterations = 5;
                time = TimeValue.seconds(2);
                if (!user.getParameter("size").hasValue()) {
                    // 2^28 + 2^25 doubles: 2.25 GiB per signal, past what a Java array or an int index holds.
                    b.param("size", "16777216", "301989888");
                }
                break;
            case SMOKE:
                forks = 1;
                warmups = 0;
                warmupTime = TimeValue.milliseconds(100);
                iterations = 1;
                time = TimeValue.milliseconds(100);
                b.param("size", "65536").param("slots", "4096").param("chars", "100000").param("messageSize", "8")
                        .param("entries", "10000");
                break;
            default:
                // Five samples, not three: with three, JMH's 99.9% error (Student's t, 2 degrees of
                // freedom) is wider than most differences worth seeing.
                forks = 1;
                warmups = 2;
                warmupTime = TimeValue.milliseconds(500);
                iterations = 5;
                time = TimeValue.milliseconds(500);
        }
        if (!user.getForkCount().hasValue()) {
            b.forks(forks);
        }
        if (!user.getWarmupIterations().hasValue()) {
            b.warmupIterations(warmups);
        }
        if (!user.getWarmupTime().hasValue()) {
            b.warmupTime(warmupTime);
        }
        if (!user.getMeasurementIterations().hasValue()) {
            b.measurementIterations(iterations);
        }
        if (!user.getMeasurementTime().hasValue()) {
            b.measurementTime(time);
        }
    }

    /** @return every Ferrite backend this JVM found, by name, to why it is unavailable ("" if it is) */
    static Map<String, String> foundBackends() {
        Map<String, String> found = new LinkedHashMap<>();
        for (MemoryBackend backend : Ferrite.backends()) {
            String reason = backend.unavailableReason();
            found.put(backend.name(), backend.isAvailable() ? "" : reason == null || reason.isEmpty() ? "unavailable" : reason);
        }
        return found;
    }

    /** @return the names of the Ferrite backends available on this JVM */
    static String[] availableBackends() {
        return Ferrite.backends().stream().filter(MemoryBackend::isAvailable).map(MemoryBackend::name)
                .toArray(String[]::new);
    }

    static String environment(Profile profile) {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        String cpu = cpuModel();
        return String.format(Locale.ROOT, "%d cores%s, %.0f GiB RAM, %s %s; JDK %s (%s); %s; %s profile",
                Runtime.getRuntime().availableProcessors(), cpu.isEmpty() ? "" : " (" + cpu + ")",
                os.getTotalMemorySize() / (double) (1L << 30), System.getProperty("os.name"),
                System.getProperty("os.arch"), Runtime.version(), System.getProperty("java.vm.name"),
                ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z")),
                profile.name().toLowerCase(Locale.ROOT));
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("");
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
