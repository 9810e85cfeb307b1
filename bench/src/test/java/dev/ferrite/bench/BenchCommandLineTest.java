package dev.ferrite.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/** The runner's own options and JMH's help and list options: they answer and run nothing. */
class BenchCommandLineTest {

    private static String run(Path dir, String... args) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream previous = System.out;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            System.setOut(out); // JMH prints its help and lists to System.out
            String[] all = new String[args.length + 2];
            System.arraycopy(args, 0, all, 0, args.length);
            all[args.length] = "--out";
            all[args.length + 1] = dir.toString();
            assertTrue(BenchMain.run(all, out).isEmpty(), "nothing ran");
        } finally {
            System.setOut(previous);
        }
        assertTrue(!dir.resolve("results.json").toFile().exists(), "no results written");
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpPrintsTheRunnersOptionsThenJmhs(@TempDir Path dir) throws Exception {
        for (String help : new String[] {"--help", "-h"}) {
            String text = run(dir, help);
            assertTrue(text.startsWith("Usage: java -jar bench/target/ferrite-bench.jar"), text);
            assertTrue(text.contains("--publish") && text.contains("--smoke") && text.contains("about an hour")
                    && text.contains("--paired"), text);
            assertTrue(text.contains("-wi <int>"), "JMH's own options follow:\n" + text);
        }
    }

    @Test
    void listOptionsListAndRunNothing(@TempDir Path dir) throws Exception {
        String list = run(dir, "-l");
        assertTrue(list.contains("dev.ferrite.bench.queue.QueueThroughput.offer"), list);
        assertTrue(list.contains("dev.ferrite.bench.Mix.perChunk"), list);
        String withParams = run(dir, "-lp", "Mix\\.perChunk");
        assertTrue(withParams.contains("param \"size\""), withParams);
        assertTrue(run(dir, "-lprof").contains("gc"));
    }

    @Test
    void aMissingOutDirectoryIsAClearError() {
        Exception e = assertThrows(Exception.class, () -> BenchMain.run(new String[] {"--out"}, System.out));
        assertTrue(e.getMessage().contains("--out needs a directory"), e.getMessage());
    }

    @Test
    void aBadInterleaveCountOrAForkCountBesideItIsAClearError(@TempDir Path dir) {
        for (String[] args : new String[][] {{"--interleave"}, {"--interleave", "0"}, {"--interleave", "two"},
            {"--interleave", "101"}}) {
            Exception e = assertThrows(Exception.class,
                    () -> BenchMain.run(new String[] {args[0], args.length > 1 ? args[1] : "--out", dir.toString()},
                            System.out));
            assertTrue(e.getMessage().contains("--interleave needs a pass count from 1 to 100"), e.getMessage());
        }
        Exception e = assertThrows(Exception.class, () -> BenchMain.run(
                new String[] {"--interleave", "2", "-f", "3", "--out", dir.toString(), "Mix"}, System.out));
        assertTrue(e.getMessage().contains("leave out -f"), e.getMessage());
        assertTrue(!dir.resolve("results.json").toFile().exists(), "nothing ran");
    }

    @Test
    void jvmArgsAppendAddsToTheForksFlagsAndWinsOverThem() throws Exception {
        List<String> plain = BenchMain.forkFlags(BenchMain.Profile.QUICK, new CommandLineOptions());
        assertEquals(JvmFlags.forks(), plain);
        List<String> flags = BenchMain.forkFlags(BenchMain.Profile.QUICK,
                new CommandLineOptions("-jvmArgsAppend", "-Xmx14g -Djava.io.tmpdir=/dev/shm"));
        assertEquals(plain, flags.subList(0, plain.size()), "the bench's own flags stay, first");
        assertEquals(List.of("-Xmx14g", "-Djava.io.tmpdir=/dev/shm", "-Xms14g"), flags.subList(plain.size(), flags.size()),
                "the user's come last, so the JVM takes their -Xmx, and the heap's least size follows it");
        assertTrue(plain.contains("-Xms4g") && plain.contains("-Xmx4g") && plain.contains(JvmFlags.PRE_TOUCH), plain.toString());
        List<String> smoke = BenchMain.forkFlags(BenchMain.Profile.SMOKE,
                new CommandLineOptions("-jvmArgsAppend", "-Xmx2g"));
        assertTrue(!smoke.contains(JvmFlags.PRE_TOUCH) && smoke.contains("-XX:TieredStopAtLevel=1"), smoke.toString());
        assertEquals(List.of("-Xmx2g", "-Xms2g"), smoke.subList(smoke.size() - 2, smoke.size()));
        List<String> both = BenchMain.forkFlags(BenchMain.Profile.QUICK,
                new CommandLineOptions("-jvmArgsAppend", "-Xms2g -Xmx6g"));
        assertEquals(List.of("-Xms2g", "-Xmx6g"), both.subList(plain.size(), both.size()), "a user's own -Xms stays theirs");
    }

    @Test
    void theReadmeSummaryIsReplacedBetweenItsMarkersOnly() throws IOException {
        String readme = "intro\n" + Publication.BEGIN + "\nold table\n" + Publication.END + "\nrest\n";
        assertEquals("intro\n" + Publication.BEGIN + "\nnew\n" + Publication.END + "\nrest\n",
                Publication.withSummary(readme, "new\n"));
        assertThrows(IOException.class, () -> Publication.withSummary("no markers", "new\n"));
    }

    @Test
    void aPageIsPublishedOnlyWithEveryBackend(@TempDir Path dir) throws Exception {
        Map<String, String> all = new LinkedHashMap<>();
        for (String name : Publication.BACKENDS) {
            all.put(name, "");
        }
        assertEquals("", Publication.missingBackends(all));
        Map<String, String> jdk17 = new LinkedHashMap<>(all);
        jdk17.remove("ffm");
        jdk17.put("shm", "no /dev/shm");
        assertEquals("backend 'ffm' is not in the jar (build the jar with a JDK 22 or later); backend 'shm' is"
                + " unavailable: no /dev/shm", Publication.missingBackends(jdk17));
        // On this JVM: refused before anything runs when a backend is missing (the JDK 17 build).
        Map<String, String> here = BenchMain.foundBackends();
        if (!Publication.missingBackends(here).isEmpty()) {
            CommandLineOptionException e = assertThrows(CommandLineOptionException.class,
                    () -> BenchMain.run(new String[] {"--publish", "--out", dir.toString()}, System.out));
            assertTrue(e.getMessage().startsWith("--publish writes a page of every backend: backend '"), e.getMessage());
            assertTrue(!dir.resolve("results.json").toFile().exists(), "nothing ran");
        }
    }
}
