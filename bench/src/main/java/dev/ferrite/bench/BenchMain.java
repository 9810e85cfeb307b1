package dev.ferrite.bench;

import dev.ferrite.Ferrite;
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
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the cross-backend benchmarks and writes the report.
 *
 * <pre>
 * java -jar bench/target/ferrite-bench.jar [--full] [--out DIR] [JMH options...]
 * </pre>
 *
 * <p>The quick profile (default) runs every benchmark in one fork with short iterations: about
 * six minutes on 2 cores. {@code --full} runs longer, in two forks, and adds a mix of signals larger
 * than 2^31 bytes. Other arguments go to JMH (e.g. {@code -p backend=ffm}, a benchmark regex,
 * {@code -prof gc}). Writes {@code results.json} (JMH JSON), {@code report.md} and
 * {@code report.html} to {@code DIR} (default {@code bench-results}) and prints their paths.
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
        System.exit(run(args, System.out).isEmpty() ? 1 : 0);
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
        List<String> jmhArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--full":
                    profile = Profile.FULL;
                    break;
                case "--smoke":
                    profile = Profile.SMOKE;
                    break;
                case "--out":
                    dir = Path.of(args[++i]);
                    break;
                default:
                    jmhArgs.add(args[i]);
            }
        }
        CommandLineOptions user = new CommandLineOptions(jmhArgs.toArray(new String[0]));
        ChainedOptionsBuilder b = new OptionsBuilder().parent(user);
        if (user.getIncludes().isEmpty()) {
            b.include("dev\\.ferrite\\.bench\\..*");
        }
        applyProfile(profile, user, b);
        if (!user.getParameter("backend").hasValue()) {
            b.param("backend", availableBackends());
        }
        // Appended: a benchmark's own @Fork(jvmArgsPrepend) (Agrona's and Ferrite's checks off) still applies.
        if (!user.getJvmArgsAppend().hasValue()) {
            b.jvmArgsAppend(JvmFlags.forks().toArray(new String[0]));
        }
        Files.createDirectories(dir);
        Path json = dir.resolve("results.json");
        b.result(json.toString()).resultFormat(ResultFormatType.JSON).shouldFailOnError(false);

        String environment = environment(profile);
        out.println("Ferrite bench, " + profile.name().toLowerCase(Locale.ROOT) + " profile: " + environment);
        Collection<RunResult> results = new Runner(b.build(), new ProgressOutput(out)).run();
        Report report = Report.of(results, environment);
        List<Path> written = report.write(dir);
        out.println();
        out.println(results.size() + " benchmarks measured.");
        out.println("JMH results: " + json.toAbsolutePath());
        out.println("Report:      " + written.get(0).toAbsolutePath());
        out.println("Charts:      " + written.get(1).toAbsolutePath());
        return results;
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
                b.param("size", "65536").param("slots", "4096").param("chars", "100000").param("messageSize", "8");
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
