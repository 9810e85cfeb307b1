package dev.ferrite.bench;

import dev.ferrite.bench.report.Report;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes a run's report where a reader of the repository finds it: the full tables as
 * {@code docs/BENCHMARKS.md} and the summary into {@code README.md} between the lines
 * {@value #BEGIN} and {@value #END}. Both come from the same {@link Report}, so the README's
 * numbers and the full tables cannot disagree.
 */
public final class Publication {

    /** The line before the README's summary. */
    static final String BEGIN = "<!-- bench-summary:begin (written by the bench's --publish) -->";
    /** The line after the README's summary. */
    static final String END = "<!-- bench-summary:end -->";

    /** The backends a published page shows: every one the project builds. */
    static final List<String> BACKENDS = List.of("unsafe", "bytebuffer", "ffm", "shm");

    private Publication() {
    }

    /**
     * @param found every backend this JVM found, by name, to why it is unavailable ("" if it is)
     * @return why a run on this JVM cannot publish a page of every backend, or "" if it can: a
     *         backend missing from the jar (the {@code ffm} module is built only by a JDK 22 or
     *         later) or unavailable here
     */
    static String missingBackends(Map<String, String> found) {
        StringBuilder why = new StringBuilder();
        for (String name : BACKENDS) {
            String reason = found.get(name);
            if (reason == null) {
                why.append(why.length() == 0 ? "" : "; ").append("backend '").append(name)
                        .append("' is not in the jar").append(name.equals("ffm") ? " (build the jar with a JDK 22 or later)" : "");
            } else if (!reason.isEmpty()) {
                why.append(why.length() == 0 ? "" : "; ").append("backend '").append(name).append("' is unavailable: ")
                        .append(reason);
            }
        }
        return why.toString();
    }

    /**
     * @param report  the run's report
     * @param profile the profile it ran with
     * @param args    the bench's command line, quoted in the page
     * @param root    the repository root (holds {@code README.md} and {@code docs/})
     * @return the files written
     * @throws IOException if a file cannot be read or written, or the README lacks the markers
     */
    static List<Path> write(Report report, String profile, String[] args, Path root) throws IOException {
        Path readme = root.resolve("README.md");
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        String updated = withSummary(text, report.summary());
        Path page = root.resolve("docs").resolve("BENCHMARKS.md");
        Files.createDirectories(page.getParent());
        Files.writeString(page, page(report, profile, args), StandardCharsets.UTF_8);
        Files.writeString(readme, updated, StandardCharsets.UTF_8);
        return List.of(page, readme);
    }

    /**
     * @return {@code readme} with the text between the markers replaced by {@code summary}
     * @throws IOException if the markers are missing or out of order
     */
    static String withSummary(String readme, String summary) throws IOException {
        int begin = readme.indexOf(BEGIN);
        int end = readme.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IOException("README.md must hold the lines " + BEGIN + " and, after it, " + END
                    + " around the benchmark summary");
        }
        return readme.substring(0, begin + BEGIN.length()) + "\n" + summary + readme.substring(end);
    }

    /**
     * @param args a bench command line
     * @return it as a page quotes it: without {@code --out DIR}, which names a folder of the
     *         machine that ran it
     */
    public static String quoted(String[] args) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--out")) {
                i++;
                continue;
            }
            b.append(b.length() == 0 ? "" : " ").append(args[i]);
        }
        return b.toString();
    }

    static String page(Report report, String profile, String[] args) {
        return "# Ferrite benchmarks\n\n"
                + "Written by the bench (`java -jar bench/target/ferrite-bench.jar " + quoted(args)
                + "`, " + profile + " profile): do not edit by hand; run the bench with `--publish` again. "
                + "Every group compares Ferrite's backends with the libraries people use instead on one of the seed "
                + "experiments; `bench-results/report.html` of the same run draws each group as a bar chart. The KV "
                + "server against Redis has its own page, [SERVER-BENCHMARKS.md](SERVER-BENCHMARKS.md) (`--redis`).\n\n"
                + report.markdown();
    }
}
