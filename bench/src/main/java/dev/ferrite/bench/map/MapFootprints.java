package dev.ferrite.bench.map;

import dev.ferrite.bench.ChildProcesses;
import dev.ferrite.bench.JvmFlags;
import dev.ferrite.bench.report.Footprint;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.RunResult;

/**
 * After a run that measured the map, measures each library's bytes per entry at the run's number
 * of entries, each in a fresh JVM with the benchmarks' flags ({@link MapFootprint}).
 */
public final class MapFootprints {

    private static final List<String> PEERS = List.of("chm", "chronicle", "ohc", "lmdb");
    /** The load factor of the one more Ferrite row (on {@code unsafe} if the run measured it): the densest a map allows. */
    private static final String DENSE_LOAD = "0.9";

    private MapFootprints() {
    }

    /**
     * @param results the run's results
     * @param out     where progress goes
     * @return one footprint per Ferrite backend the run measured the map on, one of a map built with
     *         {@code loadFactor(0.9)} on one of them ({@code unsafe} if it is one), and one per peer;
     *         empty if the run did not measure the map
     * @throws IOException if a measuring JVM fails
     */
    public static List<Footprint> measure(Collection<RunResult> results, PrintStream out)
            throws IOException, InterruptedException {
        TreeSet<String> backends = new TreeSet<>();
        long entries = -1;
        for (RunResult r : results) {
            var p = r.getParams();
            if (!p.getBenchmark().startsWith(MapFootprint.class.getPackageName() + ".")
                    || !p.getParamsKeys().contains("entries")) {
                continue;
            }
            entries = Math.max(entries, Long.parseLong(p.getParam("entries")));
            if (p.getParamsKeys().contains("backend")) {
                backends.add(p.getParam("backend"));
            }
        }
        List<Footprint> footprints = new ArrayList<>();
        if (entries < 0) {
            return footprints;
        }
        out.println("Bytes per entry of each map at " + entries + " entries:");
        for (String backend : backends) {
            footprints.add(new Footprint("ferrite", backend, entries, run("ferrite-" + backend, entries, out)));
        }
        if (!backends.isEmpty()) {
            String backend = backends.contains("unsafe") ? "unsafe" : backends.first();
            footprints.add(new Footprint(Footprint.LOAD_PREFIX + DENSE_LOAD, backend, entries,
                    run("ferrite-" + backend, entries, out, DENSE_LOAD)));
        }
        for (String peer : PEERS) {
            footprints.add(new Footprint(peer, "", entries, run(peer, entries, out)));
        }
        return footprints;
    }

    private static double run(String library, long entries, PrintStream out, String... more)
            throws IOException, InterruptedException {
        List<String> cmd = JvmFlags.forkCommand();
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), MapFootprint.class.getName(), library,
                Long.toString(entries)));
        cmd.addAll(List.of(more));
        Process p = ChildProcesses.start(new ProcessBuilder(cmd).redirectErrorStream(true));
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("measuring " + library + " failed:\n" + output);
        }
        String[] lines = output.strip().split("\n");
        double bytes = Double.parseDouble(lines[lines.length - 1].strip());
        out.println("  " + library + (more.length > 0 ? " " + String.join(" ", more) : "") + ": " + bytes + " B/entry");
        return bytes;
    }
}
