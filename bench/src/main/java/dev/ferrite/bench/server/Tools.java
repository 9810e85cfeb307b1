package dev.ferrite.bench.server;

import dev.ferrite.bench.ChildProcesses;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The external programs the server bench runs: apt-get, redis-benchmark, taskset, jcmd. Stateless. */
final class Tools {

    private Tools() {
    }

    /** Installs redis-server and redis-tools with apt-get if they are missing (as root), else explains. */
    static void ensure(PrintStream out) throws IOException, InterruptedException {
        List<String> missing = new ArrayList<>();
        if (!onPath("redis-server")) {
            missing.add("redis-server");
        }
        if (!onPath("redis-benchmark")) {
            missing.add("redis-tools");
        }
        if (!onPath("taskset")) {
            missing.add("util-linux");
        }
        if (missing.isEmpty()) {
            return;
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("the server bench needs " + missing + ": install them (sudo apt-get install -y "
                    + String.join(" ", missing) + ") or run it as root, which installs them");
        }
        out.println("installing " + missing + " with apt-get");
        run(List.of("apt-get", "update", "-qq"), null);
        List<String> cmd = new ArrayList<>(List.of("apt-get", "install", "-y", "-qq"));
        cmd.addAll(missing);
        run(cmd, null);
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    /** @return {@code redis-server --version}'s version, e.g. "7.0.15" */
    static String redisVersion() throws IOException, InterruptedException {
        String v = run(List.of("redis-server", "--version"), null);
        int at = v.indexOf("v=");
        return at < 0 ? v.strip() : v.substring(at + 2).split("\\s")[0];
    }

    /** @return the CPU model from /proc/cpuinfo and the core count */
    static String cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            String model = lines.filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("unknown CPU");
            return model + ", " + Runtime.getRuntime().availableProcessors() + " cores";
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    /** Runs redis-benchmark pinned to core 1 against a port and returns its rows. */
    static List<BenchmarkRow> redisBenchmark(int port, ServerVsRedis.Load load, PrintStream out)
            throws IOException, InterruptedException {
        List<String> cmd = List.of("taskset", "-c", "1", "redis-benchmark", "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-t", load.tests(), "-n", Integer.toString(load.requests()), "-r", Integer.toString(ServerVsRedis.KEY_RANGE),
                "-d", Integer.toString(ServerVsRedis.VALUE_BYTES), "-c", Integer.toString(load.clients()),
                "-P", Integer.toString(load.pipeline()), "--csv");
        List<BenchmarkRow> rows = BenchmarkRow.parseCsv(run(cmd, null)).stream()
                .filter(row -> !row.test().contains("needed to benchmark")).toList(); // LRANGE's own filling LPUSH
        for (BenchmarkRow r : rows) {
            out.printf("  %-16s %12.0f req/s  p50 %.3f ms  p99 %.3f ms%n", r.test(), r.requestsPerSecond(), r.p50Millis(),
                    r.p99Millis());
        }
        int tests = load.tests().split(",").length;
        if (rows.size() != tests) {
            throw new IOException("redis-benchmark gave " + rows.size() + " rows, not " + tests + ": " + rows);
        }
        return rows;
    }

    /** Lets a server reach its resting memory: a full GC for the JVM server (jcmd), then a second's pause. */
    /**
     * @return the server's {@code used_memory} once it stops changing (at most 30 s): Ferrite
     *         frees a flushed collection's elements in the background, after FLUSHALL answered
     */
    static long settledMemory(ServerProcess server) throws IOException, InterruptedException {
        long previous = -1;
        for (int i = 0; i < 30; i++) {
            settle(server);
            long now = infoField(server.call("INFO", "memory"), "used_memory");
            if (now == previous) {
                return now;
            }
            previous = now;
        }
        return previous;
    }

    static void settle(ServerProcess server) throws IOException, InterruptedException {
        if (server.name.equals("Ferrite")) {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            if (Files.isExecutable(jcmd)) {
                run(List.of(jcmd.toString(), Long.toString(server.pid()), "GC.run"), null);
            }
        }
        Thread.sleep(1000);
    }

    /**
     * Waits until Redis has no background rewrite or save running, at most 60 s; returns at once
     * for Ferrite. An append-only Redis rewrites its file in a forked child each time the file
     * doubles (every 3-17 s under this load, up to 3 s each), and a child still running on the
     * shared core when Ferrite's round began slowed that round's first test, SET: its p99 was
     * 0.56-2.3 ms in four runs, 0.37-0.41 ms with Ferrite alone on the core, and 0.391 ms in the
     * first run that waited.
     */
    static void awaitQuiet(ServerProcess server) throws IOException, InterruptedException {
        if (!server.name.equals("Redis")) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String info = server.call("INFO", "persistence");
            if (infoField(info, "aof_rewrite_in_progress") == 0 && infoField(info, "rdb_bgsave_in_progress") == 0) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IOException("Redis still rewrites its append-only file after 60 s");
    }

    /** @return a numeric field of an INFO reply */
    static long infoField(String info, String field) throws IOException {
        for (String line : info.split("\\R")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).strip());
            }
        }
        throw new IOException("INFO has no " + field + ": " + info);
    }

    /** Runs a command, returns its output; fails with the output if it exits non-zero. */
    static String run(List<String> cmd, Path dir) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        Process p = ChildProcesses.start(pb);
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed with exit code " + p.exitValue() + ": " + output);
        }
        return output;
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
