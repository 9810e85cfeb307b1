package dev.ferrite.bench.server;

import java.util.ArrayList;
import java.util.List;

/**
 * One line of {@code redis-benchmark --csv}: a test's throughput and latencies.
 *
 * @param test        the test's name as redis-benchmark prints it ("SET", "MSET (10 keys)")
 * @param requestsPerSecond requests per second
 * @param p50Millis   median latency, ms
 * @param p99Millis   99th percentile latency, ms
 * @param cpuSecondsPerMillion the server's CPU time (user and system, all its threads) per million
 *                    requests of the test, in seconds; NaN where it was not measured
 */
record BenchmarkRow(String test, double requestsPerSecond, double p50Millis, double p99Millis,
                    double cpuSecondsPerMillion) {

    /** A row without the server's CPU time. */
    BenchmarkRow(String test, double requestsPerSecond, double p50Millis, double p99Millis) {
        this(test, requestsPerSecond, p50Millis, p99Millis, Double.NaN);
    }

    /** @return this row with the server's CPU seconds per million requests */
    BenchmarkRow withCpu(double secondsPerMillion) {
        return new BenchmarkRow(test, requestsPerSecond, p50Millis, p99Millis, secondsPerMillion);
    }

    /**
     * Parses redis-benchmark's CSV ({@code "test","rps","avg_latency_ms","min_latency_ms",
     * "p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"}).
     *
     * @throws IllegalArgumentException if the header is not that one
     */
    static List<BenchmarkRow> parseCsv(String csv) {
        List<BenchmarkRow> rows = new ArrayList<>();
        String[] lines = csv.strip().split("\\R");
        int header = -1;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("\"test\",\"rps\"")) {
                header = i;
            }
        }
        if (header < 0 || !lines[header].contains("\"p50_latency_ms\"") || !lines[header].contains("\"p99_latency_ms\"")) {
            throw new IllegalArgumentException("not redis-benchmark 7 CSV output: " + csv);
        }
        List<String> names = fields(lines[header]);
        int rps = names.indexOf("rps");
        int p50 = names.indexOf("p50_latency_ms");
        int p99 = names.indexOf("p99_latency_ms");
        for (int i = header + 1; i < lines.length; i++) {
            List<String> f = fields(lines[i]);
            if (f.size() == names.size()) {
                rows.add(new BenchmarkRow(f.get(0), Double.parseDouble(f.get(rps)), Double.parseDouble(f.get(p50)),
                        Double.parseDouble(f.get(p99))));
            }
        }
        return rows;
    }

    private static List<String> fields(String line) {
        List<String> out = new ArrayList<>();
        for (String f : line.split(",(?=\")")) {
            out.add(f.replace("\"", ""));
        }
        return out;
    }
}
