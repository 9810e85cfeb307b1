package dev.ferrite.bench.server;

import dev.ferrite.bench.Publication;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The server bench's report, per persistence mode: a Markdown table and an HTML page with a bar
 * chart of each test's throughput on both servers (median of the rounds, with the range), their
 * ratio and latencies, and the memory for 1M keys; a CSV of every round; the README summary.
 * Stateless.
 */
final class ServerReport {

    /** The line before the README's server summary. */
    static final String BEGIN = "<!-- server-bench:begin (written by the bench's --redis --publish) -->";
    /** The line after it. */
    static final String END = "<!-- server-bench:end -->";

    private ServerReport() {
    }

    /** The median and range of one server's rounds of one test. */
    record Summary(double rps, double min, double max, double p50, double p99, double cpu) {
        static Summary of(List<BenchmarkRow> rows) {
            List<Double> rps = new ArrayList<>();
            List<Double> p50 = new ArrayList<>();
            List<Double> p99 = new ArrayList<>();
            List<Double> cpu = new ArrayList<>();
            for (BenchmarkRow r : rows) {
                rps.add(r.requestsPerSecond());
                p50.add(r.p50Millis());
                p99.add(r.p99Millis());
                if (!Double.isNaN(r.cpuSecondsPerMillion())) {
                    cpu.add(r.cpuSecondsPerMillion());
                }
            }
            return new Summary(median(rps), rps.stream().mapToDouble(d -> d).min().orElse(0),
                    rps.stream().mapToDouble(d -> d).max().orElse(0), median(p50), median(p99),
                    cpu.isEmpty() ? Double.NaN : median(cpu));
        }

        private static double median(List<Double> values) {
            List<Double> s = new ArrayList<>(values);
            s.sort(null);
            int n = s.size();
            return n == 0 ? 0 : n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
        }
    }

    /** The setup shared by the passes: when, where, the loads, the rounds, the flags both modes give Ferrite. */
    static String setup(List<ServerVsRedis.ServerResults> passes) {
        ServerVsRedis.ServerResults r = passes.get(0);
        StringBuilder modes = new StringBuilder();
        for (ServerVsRedis.ServerResults p : passes) {
            modes.append(modes.length() == 0 ? "" : " ").append(capitalized(p.persistence.label)).append(": ")
                    .append(p.persistence.description).append('.');
        }
        return String.format(Locale.ROOT, "Run %s on %s; %s; Redis %s. Both servers pinned to core 0 with `taskset`, "
                        + "`redis-benchmark` to core 1: `-t %s -n %,d -r %,d -d %d -c %d`, unpipelined and with `-P %d`, "
                        + "and `-t %s -n %,d` unpipelined from 1 and from 4 clients, and `-t %s -n %,d` unpipelined "
                        + "from %d clients (each test on one collection, as redis-benchmark names it); "
                        + "%d rounds alternating which server goes first, after %d unmeasured rounds on each as a warm-up; "
                        + "each pass starts once no AOF rewrite of Redis's is running. "
                        + "Each persistence mode is a pass of its own, with both servers started afresh. %s "
                        + "Ferrite in both: `--threads 1`, no busy polling (its default, as Redis), `-XX:+UseSerialGC -Xmx512m`"
                        + (r.busyPollMicros > 0 ? "; beside it, as a separate labelled variant, the same with `--busy-poll "
                        + r.busyPollMicros + "`" : "") + ". "
                        + "Throughput is the median of the rounds (range in brackets); p50/p99 are medians of the rounds' "
                        + "percentiles, in ms; CPU is the server process's user and system seconds per million requests "
                        + "of the test, median of the rounds.\n\n",
                ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm z")), r.cpu, r.java,
                r.redisVersion, ServerVsRedis.TESTS, r.requests, ServerVsRedis.KEY_RANGE, ServerVsRedis.VALUE_BYTES,
                ServerVsRedis.CLIENTS, ServerVsRedis.PIPELINE, ServerVsRedis.FEW_CLIENT_TESTS,
                Math.max(1, r.requests / 10), ServerVsRedis.COLLECTION_TESTS, Math.max(1, r.requests / 10),
                ServerVsRedis.CLIENTS, r.rounds, ServerVsRedis.WARM_UP_ROUNDS, modes);
    }

    private static String capitalized(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** @return the setup, then per pass its table of throughput and latency and its memory table */
    static String markdown(List<ServerVsRedis.ServerResults> passes) {
        StringBuilder b = new StringBuilder();
        b.append(setup(passes));
        for (ServerVsRedis.ServerResults r : passes) {
            b.append("## ").append(capitalized(r.persistence.label)).append("\n\n").append(r.persistence.description)
                    .append(".\n\n");
            table(r, b);
        }
        b.append("Ferrite's used_memory is what its maps have written (index and entries, in the memory-mapped "
                + "file) plus the JVM heap in use; Redis's is its allocator's count. The resident set is what the machine "
                + "gives each process: for Ferrite it also counts the JVM itself (code, metaspace, the committed heap) and "
                + "every page of the mapped files the benchmark rounds touched before the load.\n");
        return b.toString();
    }

    private static void table(ServerVsRedis.ServerResults r, StringBuilder b) {
        table(r, b, "Ferrite");
        if (r.busyPollMicros > 0) {
            String variant = ServerVsRedis.busyPollVariant(r.busyPollMicros);
            b.append("\n").append(variant).append(": a separate variant, Ferrite with `--busy-poll ")
                    .append(r.busyPollMicros).append("` (its event loop polls that long for the next request before it "
                    + "sleeps, keeping its core busy while requests follow each other), against the same Redis:\n\n");
            table(r, b, variant);
        }
        memory(r, b);
    }

    /** The rows of one Ferrite (the default, or a variant) against Redis: throughput, latency, CPU per million. */
    private static void table(ServerVsRedis.ServerResults r, StringBuilder b, String ferriteName) {
        b.append("| mode | test | Redis req/s | Ferrite req/s | Ferrite's time / Redis's | Redis p50 / p99 | Ferrite p50 / p99 "
                + "| Redis CPU s / 1M | Ferrite CPU s / 1M |\n");
        b.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Map<String, Map<String, List<BenchmarkRow>>>> m : r.rows.entrySet()) {
            for (Map.Entry<String, Map<String, List<BenchmarkRow>>> t : m.getValue().entrySet()) {
                Summary redis = Summary.of(t.getValue().getOrDefault("Redis", List.of()));
                Summary ferrite = Summary.of(t.getValue().getOrDefault(ferriteName, List.of()));
                b.append(String.format(Locale.ROOT, "| %s | %s | %,.0f (%,.0f–%,.0f) | %,.0f (%,.0f–%,.0f) | **%.2fx** | %.3f / %.3f | %.3f / %.3f | %s | %s |%n",
                        m.getKey(), t.getKey(), redis.rps(), redis.min(), redis.max(), ferrite.rps(), ferrite.min(),
                        ferrite.max(), redis.rps() / ferrite.rps(), redis.p50(), redis.p99(), ferrite.p50(), ferrite.p99(),
                        cpu(redis.cpu()), cpu(ferrite.cpu())));
            }
        }
    }

    private static String cpu(double secondsPerMillion) {
        return Double.isNaN(secondsPerMillion) ? "–" : String.format(Locale.ROOT, "%.2f", secondsPerMillion);
    }

    private static void memory(ServerVsRedis.ServerResults r, StringBuilder b) {
        b.append("\nMemory with exactly 1,000,000 keys of 100 bytes (`key:%012d`), after a full GC for Ferrite:\n\n");
        b.append("| server | keys | used_memory (INFO) | resident set (RSS) |\n|---|---:|---:|---:|\n");
        for (Map.Entry<String, long[]> e : r.memory.entrySet()) {
            long[] m = e.getValue();
            b.append(String.format(Locale.ROOT, "| %s | %,d | %,.1f MiB | %,.1f MiB |%n", e.getKey(), m[0], m[1] / 1048576.0,
                    m[2] / 1048576.0));
        }
        if (!r.elementMemory.isEmpty()) {
            b.append(String.format(Locale.ROOT, "%nMemory per element, %,d elements in one collection (used_memory's growth "
                    + "over the empty server, after a full GC for Ferrite; list elements and hash values of 100 bytes, set "
                    + "and sorted-set members and hash fields `member:%%012d`, `field:%%012d`):%n%n", ServerVsRedis.MEMORY_ELEMENTS));
            List<String> servers = new ArrayList<>(r.elementMemory.keySet());
            b.append("| type |");
            servers.forEach(server -> b.append(' ').append(server).append(" B / element |"));
            b.append("\n|---|").append("---:|".repeat(servers.size())).append('\n');
            for (String type : ServerVsRedis.ELEMENT_TYPES) {
                b.append("| ").append(type).append(" |");
                for (String server : servers) {
                    Double bytes = r.elementMemory.get(server).get(type);
                    b.append(bytes == null ? " – |" : String.format(Locale.ROOT, " %,.0f |", bytes));
                }
                b.append('\n');
            }
        }
        b.append('\n');
    }

    /**
     * The README's short form: per test a column for each pass and pipelining (Ferrite's time per
     * request over Redis's, the README's one ratio convention, and both p99s), and memory.
     */
    static String summary(List<ServerVsRedis.ServerResults> passes) {
        ServerVsRedis.ServerResults first = passes.get(0);
        StringBuilder b = new StringBuilder();
        b.append("Ferrite KV server against Redis ").append(first.redisVersion)
                .append(" on the same core (`java -jar bench/target/ferrite-bench.jar --redis`; Ferrite with its defaults, "
                        + "no busy polling; median of ").append(first.rounds)
                .append(" rounds; both p99s in ms, Ferrite's first; few-client rows and the tables in "
                        + "[docs/SERVER-BENCHMARKS.md](docs/SERVER-BENCHMARKS.md)):\n\n");
        StringBuilder heading = new StringBuilder("| test |");
        StringBuilder rule = new StringBuilder("|---|");
        for (ServerVsRedis.ServerResults r : passes) {
            for (String load : List.of(ServerVsRedis.UNPIPELINED, ServerVsRedis.PIPELINED)) {
                heading.append(' ').append(r.persistence.label).append(", ").append(load.startsWith("-") ? "`" + load + "`" : load)
                        .append(" |");
                rule.append("---:|");
            }
        }
        b.append(heading).append('\n').append(rule).append('\n');
        for (String test : first.rows.getOrDefault(ServerVsRedis.UNPIPELINED, Map.of()).keySet()) {
            b.append("| ").append(test).append(" |");
            for (ServerVsRedis.ServerResults r : passes) {
                for (String load : List.of(ServerVsRedis.UNPIPELINED, ServerVsRedis.PIPELINED)) {
                    b.append(' ').append(cell(r.rows.getOrDefault(load, Map.of()).get(test))).append(" |");
                }
            }
            b.append('\n');
        }
        List<String> memory = new ArrayList<>();
        for (ServerVsRedis.ServerResults r : passes) {
            long[] redis = r.memory.get("Redis");
            long[] ferrite = r.memory.get("Ferrite");
            if (redis != null && ferrite != null) {
                memory.add(String.format(Locale.ROOT, "%s, Redis used_memory %.0f MiB (RSS %.0f MiB), Ferrite %.0f MiB "
                                + "(RSS %.0f MiB)", r.persistence.label, redis[1] / 1048576.0, redis[2] / 1048576.0,
                        ferrite[1] / 1048576.0, ferrite[2] / 1048576.0));
            }
        }
        if (!memory.isEmpty()) {
            b.append("\nMemory for 1M keys of 100 B: ").append(String.join("; ", memory)).append(".\n");
        }
        return b.toString();
    }

    /** @return "0.82x (p99 0.399 / 4.287)": Ferrite's time per request over Redis's, then Ferrite's and Redis's p99 */
    private static String cell(Map<String, List<BenchmarkRow>> byServer) {
        if (byServer == null) {
            return "–";
        }
        Summary redis = Summary.of(byServer.getOrDefault("Redis", List.of()));
        Summary ferrite = Summary.of(byServer.getOrDefault("Ferrite", List.of()));
        return String.format(Locale.ROOT, "%.2fx (p99 %.3f / %.3f)", redis.rps() / ferrite.rps(), ferrite.p99(), redis.p99());
    }

    /** @return every round of every pass: persistence, load, test, server, round, req/s, p50, p99 */
    static String csv(List<ServerVsRedis.ServerResults> passes) {
        StringBuilder b = new StringBuilder("persistence,load,test,server,round,rps,p50_ms,p99_ms,cpu_s_per_million\n");
        for (ServerVsRedis.ServerResults r : passes) {
            r.rows.forEach((load, tests) -> tests.forEach((test, servers) -> servers.forEach((server, rows) -> {
                for (int i = 0; i < rows.size(); i++) {
                    BenchmarkRow row = rows.get(i);
                    b.append(quoted(r.persistence.label)).append(',').append(quoted(load)).append(',').append(quoted(test))
                            .append(',').append(quoted(server)).append(',').append(i + 1).append(',')
                            .append(row.requestsPerSecond()).append(',').append(row.p50Millis()).append(',')
                            .append(row.p99Millis()).append(',').append(row.cpuSecondsPerMillion()).append('\n');
                }
            })));
        }
        return b.toString();
    }

    /** @return a CSV field holding {@code text} as it is (RFC 4180: in quotes, a quote doubled) */
    private static String quoted(String text) {
        return '"' + text.replace("\"", "\"\"") + '"';
    }

    /** @return a page with a bar chart per pass and load (each server's median, the rounds' range) and the tables */
    static String html(List<ServerVsRedis.ServerResults> passes) {
        StringBuilder h = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>Ferrite KV server vs Redis</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
                + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}"
                + "svg text{font-size:12px}</style></head><body>\n<h1>Ferrite KV server vs Redis</h1>\n<p>")
                .append(escape(setup(passes))).append("</p>\n");
        for (ServerVsRedis.ServerResults r : passes) {
            for (Map.Entry<String, Map<String, Map<String, List<BenchmarkRow>>>> m : r.rows.entrySet()) {
                h.append("<h2>").append(escape(capitalized(r.persistence.label) + ", " + m.getKey())).append("</h2>\n");
                chart(m.getValue(), h);
            }
        }
        h.append("<pre>").append(escape(markdown(passes))).append("</pre>\n</body></html>\n");
        return h.toString();
    }

    private static void chart(Map<String, Map<String, List<BenchmarkRow>>> tests, StringBuilder h) {
        double top = 1;
        for (Map<String, List<BenchmarkRow>> byServer : tests.values()) {
            for (List<BenchmarkRow> rows : byServer.values()) {
                top = Math.max(top, Summary.of(rows).max());
            }
        }
        int rowHeight = 18;
        int width = 420;
        int label = 140;
        int height = tests.size() * (2 * rowHeight + 10) + 10;
        h.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(label + width + 140).append("\" height=\"")
                .append(height).append("\">\n");
        int y = 5;
        for (Map.Entry<String, Map<String, List<BenchmarkRow>>> t : tests.entrySet()) {
            for (String server : List.of("Redis", "Ferrite")) {
                Summary s = Summary.of(t.getValue().getOrDefault(server, List.of()));
                int w = (int) Math.round(width * s.rps() / top);
                h.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"%d\">%s %s</text>"
                                + "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
                                + "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                                + "<text x=\"%d\" y=\"%d\">%,.0f/s</text>%n",
                        y + 13, escape(t.getKey()), server, label, y, w, rowHeight - 3,
                        server.equals("Redis") ? "#999" : "#d9822b",
                        label + (int) Math.round(width * s.min() / top), label + (int) Math.round(width * s.max() / top),
                        y + rowHeight / 2, y + rowHeight / 2, label + w + 5, y + 13, s.rps()));
                y += rowHeight;
            }
            y += 10;
        }
        h.append("</svg>\n");
    }

    /**
     * Writes {@code server-vs-redis.md}, {@code .html} and {@code .csv} into a directory.
     *
     * @return the files written
     * @throws IOException if one cannot be written
     */
    static List<Path> write(Path dir, List<ServerVsRedis.ServerResults> passes) throws IOException {
        Path md = dir.resolve("server-vs-redis.md");
        Path html = dir.resolve("server-vs-redis.html");
        Path csv = dir.resolve("server-vs-redis.csv");
        Files.writeString(md, markdown(passes), StandardCharsets.UTF_8);
        Files.writeString(html, html(passes), StandardCharsets.UTF_8);
        Files.writeString(csv, csv(passes), StandardCharsets.UTF_8);
        return List.of(md, html, csv);
    }

    /**
     * Writes {@code docs/SERVER-BENCHMARKS.md} and the README's summary between its markers.
     *
     * @param root the repository's root
     * @param args the bench's arguments, quoted in the page
     * @return the files written
     * @throws IOException if the README lacks the markers or a file cannot be written
     */
    static List<Path> publish(Path root, String[] args, List<ServerVsRedis.ServerResults> passes) throws IOException {
        Path page = root.resolve("docs").resolve("SERVER-BENCHMARKS.md");
        Files.writeString(page, "# Ferrite KV server vs Redis\n\nWritten by `java -jar bench/target/ferrite-bench.jar --redis "
                + Publication.quoted(args) + "`: do not edit by hand.\n\n" + markdown(passes), StandardCharsets.UTF_8);
        Path readme = root.resolve("README.md");
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IOException("README.md must hold the lines " + BEGIN + " and " + END);
        }
        Files.writeString(readme, text.substring(0, begin + BEGIN.length()) + "\n" + summary(passes) + text.substring(end),
                StandardCharsets.UTF_8);
        return List.of(page, readme);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
