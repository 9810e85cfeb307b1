package dev.ferrite.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * Turns JMH results into what a person looks at: a Markdown table and a self-contained HTML page
 * with an SVG bar chart per operation, every score shown as a ratio to its operation's baseline
 * ({@code double[]}, raw {@code Unsafe.copyMemory}, the stream), or to the fastest where there is
 * no baseline. Lower is faster throughout.
 */
public final class Report {

    private static final List<String> ORDER = List.of(Catalog.MIX, Catalog.RANDOM, Catalog.STORE, Catalog.IO,
            Catalog.CHURN, Catalog.QUEUE, Catalog.PING_PONG);
    private static final List<String> SIZE_PARAMS = List.of("size", "slots", "chars", "messageSize", "peer");
    /** Percentiles reported for sampled (latency) benchmarks, besides nothing else: a mean hides the tail. */
    private static final double[] PERCENTILES = {50, 99};
    /** Operations the summary leaves to the full table: variants of a row it shows, and the backends' own race. */
    static final Set<String> SUMMARY_LEAVES_OUT = Set.of("get, hit, 2 threads (per thread)", "get, miss",
            "free one, allocate 1-64 chunks");

    /**
     * One measured benchmark, placed in its group.
     *
     * @param entry   what it is
     * @param group   experiment, operation and sizes: rows compared with each other
     * @param backend the Ferrite backend, or "" for a peer
     * @param score   JMH score (the mean of the samples)
     * @param error   JMH error (99.9% half-width), NaN if a single sample
     * @param unit    JMH unit
     * @param perItem median sample per item, in the same time unit (a percentile for latency rows)
     * @param min     fastest sample per item
     * @param max     slowest sample per item
     * @param ratio   median per item divided by the group baseline's
     */
    public record Row(Entry entry, String group, String backend, double score, double error, String unit,
                      double perItem, double min, double max, double ratio) {

        Row withRatio(double newRatio) {
            return new Row(entry, group, backend, score, error, unit, perItem, min, max, newRatio);
        }
    }

    private final List<Row> rows;
    private final String environment;
    private final HostForks host;

    private Report(List<Row> rows, String environment, HostForks host) {
        this.rows = rows;
        this.environment = environment;
        this.host = host;
    }

    /**
     * @param results     JMH's results
     * @param environment machine, JDK, date and profile, one line
     * @return the report
     */
    public static Report of(Iterable<RunResult> results, String environment) {
        return of(results, List.of(), environment);
    }

    /**
     * @param results     JMH's results
     * @param footprints  bytes per entry of the map libraries, measured beside JMH (may be empty)
     * @param environment machine, JDK, date and profile, one line
     * @return the report, the footprints as one more operation of the map experiment
     */
    public static Report of(Iterable<RunResult> results, List<Footprint> footprints, String environment) {
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Footprint f : footprints) {
            Entry e = f.entry();
            String group = e.experiment() + " | " + e.operation();
            groups.computeIfAbsent(group, k -> new ArrayList<>()).add(new Row(e, group, f.backend(), f.bytesPerEntry(),
                    Double.NaN, "B/entry", f.bytesPerEntry(), Double.NaN, Double.NaN, Double.NaN));
        }
        for (RunResult r : results) {
            BenchmarkParams p = r.getParams();
            Entry e = Catalog.of(p.getBenchmark());
            Result<?> primary = r.getPrimaryResult();
            String backend = p.getParamsKeys().contains("backend") ? p.getParam("backend") : "";
            if (p.getMode() == Mode.SampleTime) {
                for (double percentile : PERCENTILES) {
                    Entry at = e.withOperation(e.operation() + String.format(Locale.ROOT, " p%.0f", percentile));
                    double score = primary.getStatistics().getPercentile(percentile);
                    groups.computeIfAbsent(groupOf(at, p), k -> new ArrayList<>()).add(new Row(at, groupOf(at, p),
                            backend, score, Double.NaN, primary.getScoreUnit(), score, Double.NaN, Double.NaN,
                            Double.NaN));
                }
                continue;
            }
            long items = items(e, p);
            var stats = primary.getStatistics();
            groups.computeIfAbsent(groupOf(e, p), k -> new ArrayList<>()).add(new Row(e, groupOf(e, p), backend,
                    primary.getScore(), primary.getScoreError(), primary.getScoreUnit(),
                    stats.getPercentile(50) / items, stats.getMin() / items, stats.getMax() / items, Double.NaN));
        }
        List<Row> all = new ArrayList<>();
        for (List<Row> g : groups.values()) {
            double base = g.stream().filter(row -> row.entry().baseline()).mapToDouble(Row::perItem).findFirst()
                    .orElse(g.stream().mapToDouble(Row::perItem).min().orElse(Double.NaN));
            for (Row row : g) {
                all.add(row.withRatio(row.perItem() / base));
            }
        }
        all.sort(Comparator.comparingInt((Row row) -> experimentRank(row.entry().experiment()))
                .thenComparing(Row::group).thenComparingDouble(Row::ratio));
        return new Report(all, environment, HostForks.of(results));
    }

    /** @return items one invocation of a benchmark handles: its items parameter, else the entry's fixed count */
    static long items(Entry e, BenchmarkParams p) {
        return e.itemsParam() != null && p.getParamsKeys().contains(e.itemsParam())
                ? Long.parseLong(p.getParam(e.itemsParam())) : e.itemsFixed();
    }

    /** @return a benchmark's group: experiment, operation and its size parameters, joined by " | " */
    static String groupOf(Entry e, BenchmarkParams p) {
        StringBuilder group = new StringBuilder(e.experiment()).append(" | ").append(e.operation());
        for (String key : SIZE_PARAMS) {
            if (p.getParamsKeys().contains(key)) {
                group.append(" | ").append(key).append('=').append(p.getParam(key));
            }
        }
        return group.toString();
    }

    private static int experimentRank(String experiment) {
        int i = ORDER.indexOf(experiment);
        return i < 0 ? ORDER.size() : i;
    }

    /** @return the rows, grouped and sorted */
    public List<Row> rows() {
        return rows;
    }

    private static String variant(Row row) {
        return variant(row.entry(), row.backend());
    }

    /** @return a benchmark's label, with its Ferrite backend in brackets ("" for a peer: none) */
    static String variant(Entry entry, String backend) {
        return backend.isEmpty() ? entry.label() : entry.label() + " [" + backend + "]";
    }

    /** @return {@link #variant(Entry, String)}, in bold and marked when the entry is its group's baseline */
    static String markedVariant(Entry entry, String backend) {
        String v = variant(entry, backend);
        return entry.baseline() ? "**" + v + "** (baseline)" : v;
    }

    // Ratios span 1/100,000 (mapped against stream read-modify-write) to 10: three significant digits.
    private static String ratio(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        return v >= 0.01 ? fmt(v) : String.format(Locale.ROOT, "%.3g", v);
    }

    /** @return a number with no decimals from 100 up, two from 1, three below 1; "–" for NaN */
    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String perItemUnit(Row row) {
        String unit = row.unit().substring(0, row.unit().indexOf('/'));
        return unit + "/" + row.entry().itemUnit();
    }

    /**
     * @return the report as a Markdown table under its environment line, followed by the queue
     *         forks and the host's readings around them ({@code HostForks}) when the run has any
     */
    public String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("Environment: ").append(environment).append("\n\n");
        md.append("Lower is faster. Time per item is the median of the measurement samples (all forks), the spread ")
                .append("their fastest and slowest; the mean ± JMH's 99.9% error is beside it. Ratio: median time per ")
                .append("item divided by the baseline's (`double[]`, raw `Unsafe.copyMemory`, the stream, or Agrona's ")
                .append("`OneToOneRingBuffer`), or by the fastest where there is no baseline. Latency rows (p50, p99) ")
                .append("are percentiles of all samples and have no spread. The map's bytes per entry are sizes (measured once ")
                .append("per library in its own JVM after loading the entries), not times: lower is smaller.\n\n");
        md.append("| experiment | operation | variant | median per item | spread | mean ± error | ratio |\n");
        md.append("|---|---|---|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            double itemsPer = row.score() / row.perItem();
            md.append("| ").append(row.entry().experiment()).append(" | ").append(operation(row)).append(" | ")
                    .append(markedVariant(row.entry(), row.backend())).append(" | ")
                    .append(fmt(row.perItem())).append(' ').append(perItemUnit(row)).append(" | ")
                    .append(Double.isNaN(row.min()) ? "–" : fmt(row.min()) + "–" + fmt(row.max())).append(" | ")
                    .append(Double.isNaN(row.min()) ? "–" : fmt(row.score() / itemsPer) + " ± "
                            + fmt(row.error() / itemsPer)).append(" | ")
                    .append(ratio(row.ratio())).append("x |\n");
        }
        md.append(host.markdown());
        return md.toString();
    }

    private static String operation(Row row) {
        return operation(row.group());
    }

    /** @return a group's operation, with its sizes in brackets */
    static String operation(String group) {
        String[] g = group.split(" \\| ", 3);
        return g.length > 2 ? g[1] + " (" + g[2].replace(" | ", ", ") + ")" : g[1];
    }

    /**
     * The few lines a reader sees first: one row per operation of each experiment at its first size
     * (the queue at 8 and 64 bytes, with its peer in another process where the run has that), each
     * Ferrite backend's ratio to the baseline (its plain checked call: no batch, no checks off) and
     * the best peer's. Left to the full table: an operation no backend has a plain row for (the
     * batched gets, measured on one backend), {@link #SUMMARY_LEAVES_OUT}, and a queue row whose
     * peer is a thread when the run has the same with a process.
     *
     * @return a small Markdown table under the environment line
     */
    public String summary() {
        Set<String> groups = rows.stream().map(Row::group).collect(Collectors.toSet());
        List<String> backends = rows.stream().map(Row::backend).filter(b -> !b.isEmpty()).distinct().sorted().toList();
        Map<String, List<Row>> byGroup = new LinkedHashMap<>();
        for (Row row : rows) {
            byGroup.computeIfAbsent(row.group(), k -> new ArrayList<>()).add(row);
        }
        Map<String, String> firstSize = new LinkedHashMap<>();
        StringBuilder md = new StringBuilder();
        md.append("Medians; ").append(environment).append(".\n\n| experiment | operation | baseline |");
        backends.forEach(b -> md.append(" Ferrite `").append(b).append("` |"));
        md.append(" best peer |\n|---|---|---|");
        backends.forEach(b -> md.append("---:|"));
        md.append("---|\n");
        for (Map.Entry<String, List<Row>> g : byGroup.entrySet()) {
            List<Row> group = g.getValue();
            Row any = group.get(0);
            String[] parts = g.getKey().split(" \\| ", 3);
            String sizes = parts.length > 2 ? parts[2] : "";
            String opKey = parts[0] + " | " + parts[1];
            boolean queue = any.entry().experiment().equals(Catalog.QUEUE) || any.entry().experiment().equals(Catalog.PING_PONG);
            if (queue ? sizes.contains("messageSize=") && !sizes.matches(".*messageSize=(8|64)\\b.*")
                    : !firstSize.computeIfAbsent(opKey, k -> sizes).equals(sizes)) {
                continue;
            }
            if (SUMMARY_LEAVES_OUT.contains(parts[1])
                    || sizes.contains("peer=thread") && groups.contains(g.getKey().replace("peer=thread", "peer=process"))) {
                continue;
            }
            if (group.stream().noneMatch(r -> !r.backend().isEmpty() && r.entry().representsBackend())) {
                continue; // no backend's cell to fill (the batched gets run on one backend): the full table has it
            }
            Row base = group.stream().filter(r -> r.entry().baseline()).findFirst().orElse(null);
            md.append("| ").append(any.entry().experiment()).append(" | ").append(operation(any)).append(" | ")
                    .append(base == null ? "fastest" : base.entry().label() + ", " + fmt(base.perItem()) + " "
                            + perItemUnit(base)).append(" |");
            for (String b : backends) {
                // The backend's plain, checked variant (its best, where a group has several).
                double best = group.stream().filter(r -> r.backend().equals(b) && r.entry().representsBackend())
                        .mapToDouble(Row::ratio).min().orElse(Double.NaN);
                md.append(' ').append(Double.isNaN(best) ? "–" : ratio(best) + "x").append(" |");
            }
            Row peer = group.stream().filter(r -> !r.entry().ferrite() && !r.entry().baseline())
                    .min(Comparator.comparingDouble(Row::ratio)).orElse(null);
            md.append(' ').append(peer == null ? "–" : peer.entry().label() + " " + ratio(peer.ratio()) + "x")
                    .append(" |\n");
        }
        return md.toString();
    }

    /** @return the report as one self-contained HTML page with an SVG bar chart per group */
    public String html() {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Ferrite benchmarks</title>\n")
                .append("<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}")
                .append("h2{font-size:1.1em;margin-top:2em}.env{color:#555}svg text{font-size:12px}")
                .append("table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;")
                .append("text-align:right}td:first-child,th:first-child{text-align:left}</style></head><body>\n")
                .append("<h1>Ferrite benchmarks</h1>\n<p class=\"env\">").append(escape(environment)).append("</p>\n")
                .append("<p>Bars show time per item as a ratio to the group's baseline (grey; the dashed line is 1.0). ")
                .append("Lower is faster. Ferrite's backends are blue, the peers orange.</p>\n");
        Map<String, List<Row>> byGroup = new LinkedHashMap<>();
        for (Row row : rows) {
            byGroup.computeIfAbsent(row.group(), k -> new ArrayList<>()).add(row);
        }
        for (Map.Entry<String, List<Row>> g : byGroup.entrySet()) {
            h.append("<h2>").append(escape(g.getKey())).append("</h2>\n").append(chart(g.getValue()));
        }
        h.append("<h2>All numbers</h2>\n<table><tr><th>variant</th><th>group</th><th>median per item</th>")
                .append("<th>spread</th><th>mean</th><th>±</th><th>unit</th><th>ratio</th></tr>\n");
        for (Row row : rows) {
            h.append("<tr><td>").append(escape(variant(row))).append("</td><td>").append(escape(row.group()))
                    .append("</td><td>").append(fmt(row.perItem())).append("</td><td>")
                    .append(Double.isNaN(row.min()) ? "–" : fmt(row.min()) + "–" + fmt(row.max()))
                    .append("</td><td>").append(fmt(row.score())).append("</td><td>").append(fmt(row.error()))
                    .append("</td><td>").append(escape(row.unit())).append("</td><td>").append(ratio(row.ratio()))
                    .append("x</td></tr>\n");
        }
        h.append("</table>\n</body></html>\n");
        return h.toString();
    }

    private static String chart(List<Row> group) {
        int labelWidth = 330;
        int barSpace = 520;
        int rowHeight = 22;
        double max = Math.max(1.0, group.stream().mapToDouble(Row::ratio).filter(d -> !Double.isNaN(d)).max().orElse(1));
        int height = group.size() * rowHeight + 10;
        StringBuilder s = new StringBuilder();
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(labelWidth + barSpace + 90)
                .append("\" height=\"").append(height).append("\" role=\"img\">\n");
        for (int i = 0; i < group.size(); i++) {
            Row row = group.get(i);
            int y = i * rowHeight + 4;
            double ratio = Double.isNaN(row.ratio()) ? 0 : row.ratio();
            int w = (int) Math.max(1, Math.round(barSpace * ratio / max));
            String color = row.entry().baseline() ? "#999" : row.entry().ferrite() ? "#2b6cb0" : "#dd6b20";
            s.append("<text x=\"").append(labelWidth - 6).append("\" y=\"").append(y + 14)
                    .append("\" text-anchor=\"end\">").append(escape(variant(row))).append("</text>")
                    .append("<rect x=\"").append(labelWidth).append("\" y=\"").append(y).append("\" width=\"").append(w)
                    .append("\" height=\"").append(rowHeight - 6).append("\" fill=\"").append(color).append("\"/>")
                    .append("<text x=\"").append(labelWidth + w + 4).append("\" y=\"").append(y + 14).append("\">")
                    .append(ratio(row.ratio())).append("x</text>\n");
        }
        int one = labelWidth + (int) Math.round(barSpace / max);
        s.append("<line x1=\"").append(one).append("\" x2=\"").append(one).append("\" y1=\"0\" y2=\"").append(height)
                .append("\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n</svg>\n");
        return s.toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /**
     * Writes {@code report.md} and {@code report.html} into a directory.
     *
     * @param dir the directory, created if missing
     * @return the two paths
     * @throws IOException if they cannot be written
     */
    public List<Path> write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path md = dir.resolve("report.md");
        Path html = dir.resolve("report.html");
        Files.writeString(md, markdown(), StandardCharsets.UTF_8);
        Files.writeString(html, html(), StandardCharsets.UTF_8);
        return List.of(md, html);
    }
}
