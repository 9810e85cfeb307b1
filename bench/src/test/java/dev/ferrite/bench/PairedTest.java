package dev.ferrite.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Paired runs: the pairing's arithmetic, benchmarks set up outside JMH, and a whole run with its fork. */
class PairedTest {

    /** Work the JIT cannot drop: a xorshift chain of a given length. */
    private static Paired.Side work(int steps, int operations) {
        return new Paired.Side() {
            private long x = 42;

            @Override
            public Object call() {
                long v = x;
                for (int i = 0; i < steps; i++) {
                    v ^= v << 13;
                    v ^= v >>> 7;
                    v ^= v << 17;
                }
                x = v;
                return v;
            }

            @Override
            public int operations() {
                return operations;
            }
        };
    }

    @Test
    void aContenderDoingThreeTimesTheWorkMeasuresAboutThreeTimesTheBaseline() throws Exception {
        double[] r = Paired.measure(work(20_000, 1), work(60_000, 1), 60, 1_000_000, 300_000_000);
        assertEquals(62, r.length);
        double[] ratios = Arrays.copyOfRange(r, 2, r.length);
        Arrays.sort(ratios);
        double median = ratios[ratios.length / 2];
        // both sides of a pair run within milliseconds of each other: a busy host moves both
        assertTrue(median > 1.8 && median < 5, "median ratio " + median);
        assertTrue(r[0] > 0 && r[1] > r[0], "baseline " + r[0] + " ns, contender " + r[1] + " ns per operation");
    }

    @Test
    void timesArePerOperationAsOperationsPerInvocationSays() throws Exception {
        // the same work per call, the contender declaring 4 operations a call: a quarter of the time each
        double[] r = Paired.measure(work(40_000, 1), work(40_000, 4), 60, 1_000_000, 300_000_000);
        double[] ratios = Arrays.copyOfRange(r, 2, r.length);
        Arrays.sort(ratios);
        double median = ratios[ratios.length / 2];
        assertTrue(median > 0.15 && median < 0.4, "median ratio " + median);
    }

    @Test
    void summaryTakesTheMedianOfEveryForksPairs() {
        Paired.Result r = Paired.summarize("A", "B", List.of(new double[] {1, 2, 3}, new double[] {4, 5, 6, 7}),
                new double[] {10, 30}, new double[] {20, 40});
        assertEquals(4, r.median());
        assertArrayEquals(new double[] {2, 6}, r.forkMedians()); // nearest rank: the upper of two middles
        assertEquals(1, r.p10());
        assertEquals(7, r.p90());
        assertEquals(30, r.baselineNanos());
        assertEquals(40, r.contenderNanos());
    }

    @Test
    void aSubjectIsTheBenchmarkSetUpAsJmhWould() throws Exception {
        try (PairedSubject s = PairedSubject.of("map.MapPeers.Chm.getHit:entries=1000")) {
            assertEquals(1, s.operations());
            Object v = s.call(); // a state argument (MapAccess) and a nested class, set up
            assertTrue(v instanceof byte[] && ((byte[]) v).length == 100, String.valueOf(v));
        }
        try (PairedSubject s = PairedSubject.of("MixPeers.doubleArray:size=4096")) {
            s.call(); // its setup takes BenchmarkParams: the String twin built its arrays
        }
        try (PairedSubject s = PairedSubject.of("map.MapBatch.getAll:entries=1000")) {
            assertEquals(16, s.operations()); // its @OperationsPerInvocation
            assertNotNull(s.call());
        }
    }

    @Test
    void badSpecsSayWhatIsWrong() {
        String noValue = assertThrows(IllegalArgumentException.class, () -> PairedSubject.of("Mix.perChunk")).getMessage();
        assertTrue(noValue.contains("parameter backend of Mix has the values [unsafe, bytebuffer, ffm, shm]")
                && noValue.contains("Mix.perChunk:backend=unsafe"), noValue);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PairedSubject.of("Mix.nothing:backend=unsafe"))
                .getMessage().contains("no @Benchmark method nothing in dev.ferrite.bench.Mix"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PairedSubject.of("Nope.run"))
                .getMessage().contains("no class Nope in dev.ferrite.bench."));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PairedSubject.of("Mix.perChunk:backend=unsafe,colour=red"))
                .getMessage().contains("has no parameter [colour]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PairedSubject.of("map.MapOps.getHit2Threads:backend=unsafe"))
                .getMessage().contains("runs 2 threads under JMH"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PairedSubject.of("Mix"))
                .getMessage().contains("names no method"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Paired.run(new String[] {"Mix.perChunk"}, System.out))
                .getMessage().contains("needs a baseline and at least one contender"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Paired.run(new String[] {"--pairs", "0"}, System.out))
                .getMessage().contains("--pairs needs a positive integer"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Paired.run(new String[] {"--fork", "1", "A.b", "C.d"},
                System.out)).getMessage().contains("unknown option --fork"));
    }

    @Test
    void benchmarksWhoseForksNeedOtherFlagsAreNotPaired() {
        assertEquals(List.of("-Dferrite.checks=false"), PairedSubject.forkFlags("MixUnchecked.perChunk"));
        assertEquals(List.of(), PairedSubject.forkFlags("Mix.perChunk:backend=unsafe"));
        String m = assertThrows(IllegalArgumentException.class, () -> Paired.run(new String[] {"--forks", "1",
                "Mix.perChunk:backend=unsafe", "MixUnchecked.perChunk:backend=unsafe"}, System.out)).getMessage();
        assertTrue(m.contains("must agree"), m);
    }

    @Test
    void aRunForksAJvmPerContenderAndPrintsEachRatio() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<Paired.Result> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = Paired.run(new String[] {"--forks", "1", "--pairs", "20", "--block-ms", "2", "--warmup-s", "1",
                "MixPeers.doubleArray:size=65536", "Mix.perChunk:backend=unsafe,size=65536"}, out);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(1, results.size(), text);
        Paired.Result r = results.get(0);
        assertEquals("Mix.perChunk:backend=unsafe,size=65536", r.contender());
        assertTrue(r.median() > 0 && r.p10() <= r.median() && r.median() <= r.p90(), r.toString());
        assertEquals(1, r.forkMedians().length);
        assertTrue(text.contains("Mix.perChunk:backend=unsafe,size=65536 / MixPeers.doubleArray:size=65536: "), text);
    }
}
