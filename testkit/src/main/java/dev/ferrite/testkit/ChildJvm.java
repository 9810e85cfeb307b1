package dev.ferrite.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts a second JVM of the running JDK with this JVM's class path: for tests of what a user's
 * fresh process sees (configuration, JVM warnings, other processes sharing memory).
 */
public final class ChildJvm {

    /**
     * What a child JVM did.
     *
     * @param exitCode its exit code
     * @param stdout   its standard output
     * @param stderr   its standard error
     */
    public record Result(int exitCode, String stdout, String stderr) {
    }

    private ChildJvm() {
    }

    /**
     * @return the JVM flags Ferrite's backends need on the running JDK: on JDK 24+ the one that
     *         lets {@code sun.misc.Unsafe} run without a warning; none before
     */
    public static List<String> ferriteFlags() {
        return Runtime.version().feature() >= 24 ? List.of("--sun-misc-unsafe-memory-access=allow") : List.of();
    }

    /**
     * Starts a main class and returns at once, its output unread.
     *
     * @param jvmArgs   JVM options
     * @param mainClass the class to run
     * @param args      its arguments
     * @return the running process; standard error goes to this JVM's
     * @throws IOException if it cannot start
     */
    public static Process start(List<String> jvmArgs, Class<?> mainClass, String... args) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command(jvmArgs, mainClass, args));
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }

    private static List<String> command(List<String> jvmArgs, Class<?> mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Runs a main class to completion as {@link #run} does, with {@link #ferriteFlags()}, writing a
     * crash report (an {@code hs_err} file), if it crashes, in {@code dir} instead of the working
     * directory: for tests whose failure is the child JVM's crash.
     *
     * @param dir       where a crash report goes
     * @param mainClass the class to run
     * @param args      its arguments
     * @return what it printed and its exit code (134 after a crash)
     * @throws IOException          if it cannot start
     * @throws InterruptedException if interrupted while waiting
     */
    public static Result runCrashReportingTo(Path dir, Class<?> mainClass, String... args)
            throws IOException, InterruptedException {
        List<String> flags = new ArrayList<>(ferriteFlags());
        flags.add("-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"));
        return run(flags, Map.of(), mainClass, args);
    }

    /**
     * Runs a main class to completion, at most 60 seconds.
     *
     * @param jvmArgs   JVM options, e.g. {@code -Dferrite.backend=unsafe}; none are added
     * @param env       extra environment variables
     * @param mainClass the class to run
     * @param args      its arguments
     * @return what it printed and its exit code
     * @throws IOException          if it cannot start
     * @throws InterruptedException if interrupted while waiting
     */
    public static Result run(List<String> jvmArgs, Map<String, String> env, Class<?> mainClass, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = command(jvmArgs, mainClass, args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("FERRITE_BACKEND");
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        byte[][] out = new byte[2][];
        Thread errReader = new Thread(() -> {
            try {
                out[1] = p.getErrorStream().readAllBytes();
            } catch (IOException e) {
                out[1] = e.toString().getBytes(StandardCharsets.UTF_8);
            }
        });
        errReader.start();
        out[0] = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("child JVM did not finish in 60 s: " + cmd);
        }
        errReader.join();
        return new Result(p.exitValue(), new String(out[0], StandardCharsets.UTF_8),
                new String(out[1], StandardCharsets.UTF_8));
    }
}
