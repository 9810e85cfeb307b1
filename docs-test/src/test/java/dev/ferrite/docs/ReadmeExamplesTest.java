package dev.ferrite.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every Java block of README.md and of the pages in {@code docs/}, as written there: compiled
 * (for Java 17) against this module's class path, which holds exactly the dependencies of the
 * README's {@code pom.xml} ({@link #theReadmePomIsThisModulesDependencies}), then run in the page's
 * order, each in a JVM of its own started with no flags (as a user starts it), all in one working
 * directory. A {@code text} block right after a Java block, or its {@code // prints:} comments, are
 * what that program must print. The
 * programs must print no JVM or SLF4J warning and must leave nothing behind: no file in the working
 * directory, nothing of theirs in {@code /dev/shm}.
 */
class ReadmeExamplesTest {

    private static final Pattern CLASS = Pattern.compile("public class (\\w+)");
    /** An example that needs JVM flags says so in a comment; the test runs it with exactly those. */
    private static final Pattern FLAGS = Pattern.compile("// JVM flags: (.*)");
    private static final String NEWER_JDKS = ", on JDK 24+ ";
    /** What an example prints may also be written in it, a line of output per comment. */
    private static final Pattern PRINTS = Pattern.compile("(?m)// prints: (.*)$");
    private static final Pattern SHM_NAME = Pattern.compile("\\.shm\\(\"([^\"]+)\"\\)");
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>\\s*<groupId>[^<]+</groupId>\\s*<artifactId>([^<]+)</artifactId>");

    /** One Java block and what it must print, or null if the README does not say. */
    record Example(String className, String source, String expectedOutput) {
    }

    /** @return README.md and every page of docs/ that holds a Java block */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("..", "README.md")));
        try (Stream<Path> docs = Files.list(Path.of("..", "docs"))) {
            for (Path page : docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                if (Files.readString(page, StandardCharsets.UTF_8).contains("```java")) {
                    pages.add(page);
                }
            }
        }
        return pages;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pages")
    void everyJavaBlockCompilesAndRunsAsWritten(Path page, @TempDir Path build, @TempDir Path work) throws Exception {
        List<Example> examples = examples(Files.readString(page, StandardCharsets.UTF_8));
        assertFalse(examples.isEmpty(), page + " holds no Java block");
        compile(examples, build);
        for (Example example : examples) {
            run(example, build, work);
        }
        try (Stream<Path> left = Files.list(work)) {
            assertEquals(List.of(), left.toList(), "the examples delete what they create");
        }
        assertEquals(List.of(), shmFilesOf(examples), "the examples delete their shm pools and queues");
    }

    /**
     * The storage, queue and map examples of the README, with Ferrite and SLF4J on the module path
     * (the examples themselves in the unnamed module): the module descriptors export what the
     * examples use, and the backends are found as services.
     */
    @Test
    void theReadmeExamplesRunWithFerriteOnTheModulePath(@TempDir Path build, @TempDir Path work) throws Exception {
        List<Example> examples = examples(Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8)).stream()
                .filter(e -> List.of("Storage", "Orders", "UserStore").contains(e.className())).toList();
        assertEquals(3, examples.size(), "the storage, queue and map examples are in the README");
        List<String> entries = modulePath();
        assertTrue(entries.size() >= 6, "api, two backends, queue, kv and SLF4J on the module path: " + entries);
        String modulePath = String.join(File.pathSeparator, entries);
        compile(examples, build, List.of("--module-path", modulePath, "--add-modules", "ALL-MODULE-PATH"));
        for (Example example : examples) {
            run(example, build, work, List.of("--module-path", modulePath, "--add-modules", "ALL-MODULE-PATH",
                    "-cp", build.toString()));
        }
        try (Stream<Path> left = Files.list(work)) {
            assertEquals(List.of(), left.toList(), "the examples delete what they create");
        }
    }

    /** @return the class path entries of Ferrite's modules and SLF4J's: what a modular user puts on the module path */
    private static List<String> modulePath() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = entry.replace('\\', '/');
            boolean ferrite = name.matches(".*/ferrite-(api|backend-[a-z]+|queue|kv)-\\d[^/]*\\.jar")
                    || name.matches(".*/(api|backend-[a-z]+|queue|kv)/target/classes/?");
            if (ferrite || name.contains("/slf4j-api-") || name.contains("/slf4j-simple-")) {
                entries.add(entry);
            }
        }
        return entries;
    }

    /** The README is a door, not a manual: at most 250 lines; the performance page at most 200. */
    @Test
    void theReadmeAndThePerformancePageStayShort() throws IOException {
        long readme = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8).size();
        assertTrue(readme <= 250, "README.md has " + readme + " lines; at most 250");
        long performance = Files.readAllLines(Path.of("..", "docs", "PERFORMANCE.md"), StandardCharsets.UTF_8).size();
        assertTrue(performance <= 200, "docs/PERFORMANCE.md has " + performance + " lines; at most 200");
    }

    @Test
    void theReadmeShowsAnExampleOfEachModuleAUserProgramsAgainst() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        List<String> sources = examples(readme).stream().map(Example::source).toList();
        for (String pkg : List.of("dev.ferrite.*", "dev.ferrite.queue.", "dev.ferrite.kv.*", "dev.ferrite.kv.chronicle.",
                "dev.ferrite.kv.server.")) {
            assertTrue(sources.stream().anyMatch(src -> src.contains("import " + pkg)), "no README example imports " + pkg);
        }
    }

    /**
     * The README's {@code pom.xml} names exactly the dependencies this module compiles and runs
     * the examples with (JUnit aside), so an example that needs another module fails here.
     */
    @Test
    void theReadmePomIsThisModulesDependencies() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("```xml");
        assertTrue(start >= 0, "the README shows a pom.xml");
        String pom = readme.substring(start, readme.indexOf("```", start + 6));
        String ours = Files.readString(Path.of("pom.xml"), StandardCharsets.UTF_8);
        Set<String> mine = artifacts(ours);
        mine.remove("junit-jupiter");
        Set<String> theirs = artifacts(pom);
        theirs.remove("ferrite-bom"); // imported for the versions: no classes
        assertEquals(theirs, mine, "the README's pom.xml and docs-test/pom.xml name the same artifacts");
    }

    /** @return the artifactIds of a pom's dependencies (the project's own and its parent's left out) */
    private static Set<String> artifacts(String pom) {
        Set<String> found = new TreeSet<>();
        Matcher m = DEPENDENCY.matcher(pom);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /**
     * Splits a Markdown text into its {@code java} blocks, each with what it must print: the
     * {@code text} block right after it, else its {@code // prints: LINE} comments, else nothing.
     */
    static List<Example> examples(String markdown) {
        List<String> lines = markdown.lines().toList();
        List<Example> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java")) {
                continue;
            }
            StringBuilder source = new StringBuilder();
            int j = i + 1;
            for (; !lines.get(j).strip().equals("```"); j++) {
                source.append(lines.get(j)).append('\n');
            }
            int k = j + 1;
            while (k < lines.size() && lines.get(k).isBlank()) {
                k++;
            }
            String output = null;
            if (k < lines.size() && lines.get(k).strip().equals("```text")) {
                StringBuilder out = new StringBuilder();
                for (k++; !lines.get(k).strip().equals("```"); k++) {
                    out.append(lines.get(k)).append('\n');
                }
                output = out.toString();
            } else {
                Matcher prints = PRINTS.matcher(source);
                StringBuilder out = new StringBuilder();
                while (prints.find()) {
                    out.append(prints.group(1)).append('\n');
                }
                output = out.length() == 0 ? null : out.toString();
            }
            Matcher m = CLASS.matcher(source);
            assertTrue(m.find(), "a Java block must be a whole program with a public class:\n" + source);
            found.add(new Example(m.group(1), source.toString(), output));
            i = j;
        }
        return found;
    }

    private static void compile(List<Example> examples, Path build) throws IOException {
        compile(examples, build, List.of("-classpath", System.getProperty("java.class.path")));
    }

    /** Compiles the examples into {@code build}, finding Ferrite as {@code libraries} say (class or module path). */
    private static void compile(List<Example> examples, Path build, List<String> libraries) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<File> files = new ArrayList<>();
        for (Example e : examples) {
            Path file = build.resolve(e.className() + ".java");
            Files.writeString(file, e.source(), StandardCharsets.UTF_8);
            files.add(file.toFile());
        }
        StringWriter diagnostics = new StringWriter();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            Iterable<? extends JavaFileObject> units = fm.getJavaFileObjectsFromFiles(files);
            List<String> options = new ArrayList<>(List.of("--release", "17", "-Xlint:all", "-Werror", "-d", build.toString()));
            options.addAll(libraries);
            boolean ok = javac.getTask(diagnostics, fm, null, options, null, units).call();
            assertTrue(ok, "the examples compile:\n" + diagnostics);
        }
    }

    private static void run(Example example, Path build, Path work) throws Exception {
        run(example, build, work, List.of("-cp", build + File.pathSeparator + System.getProperty("java.class.path")));
    }

    /** Runs an example compiled into {@code build}, Ferrite found as {@code libraries} say (with {@code build} on them). */
    private static void run(Example example, Path build, Path work, List<String> libraries) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(flags(example.source()));
        command.addAll(libraries);
        command.add(example.className());
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        // Output goes next to the working directory, not into it: the examples must leave it empty.
        Path outFile = work.resolveSibling(work.getFileName() + "-" + example.className() + ".out");
        Path errFile = work.resolveSibling(work.getFileName() + "-" + example.className() + ".err");
        pb.redirectOutput(outFile.toFile()).redirectError(errFile.toFile());
        Process p = pb.start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = Files.readString(outFile, StandardCharsets.UTF_8);
        String err = Files.readString(errFile, StandardCharsets.UTF_8);
        Files.delete(outFile);
        Files.delete(errFile);
        assertTrue(done, example.className() + " finishes within 120 s");
        assertEquals(0, p.exitValue(), example.className() + " exits normally; stderr:\n" + err);
        assertFalse(err.contains("WARNING"), example.className() + " makes the JVM print no warning:\n" + err);
        assertFalse(err.contains("SLF4J"), example.className() + " has a logging provider:\n" + err);
        if (example.expectedOutput() != null) {
            assertEquals(example.expectedOutput(), out, example.className() + " prints what its page says");
        }
    }

    /**
     * The flags an example's {@code // JVM flags: A B, on JDK 24+ C} comment names for this JDK
     * ({@code A B} may be empty).
     */
    static List<String> flags(String source) {
        Matcher m = FLAGS.matcher(source);
        if (!m.find()) {
            return List.of();
        }
        String line = m.group(1).strip();
        int newer = line.indexOf(NEWER_JDKS);
        List<String> flags = new ArrayList<>(List.of((newer < 0 ? line : line.substring(0, newer)).split(" ")));
        if (newer >= 0 && Runtime.version().feature() >= 24) {
            flags.addAll(List.of(line.substring(newer + NEWER_JDKS.length()).split(" ")));
        }
        flags.removeIf(String::isBlank); // "// JVM flags: , on JDK 24+ X" names none before 24
        return flags;
    }

    /**
     * @return the files in {@code /dev/shm} of the shm pools and queues the examples name
     *         ({@code .shm("NAME")}), which they must have deleted; other processes' files are not
     *         looked at
     */
    private static List<String> shmFilesOf(List<Example> examples) {
        List<String> left = new ArrayList<>();
        for (Example e : examples) {
            Matcher m = SHM_NAME.matcher(e.source());
            while (m.find()) {
                if (Files.exists(Path.of("/dev/shm", m.group(1)))) {
                    left.add(m.group(1));
                }
            }
        }
        return left;
    }
}
