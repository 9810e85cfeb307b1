package dev.ferrite.bench.server;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server bench's parsing of redis-benchmark's CSV and its report, without running servers. */
class ServerReportTest {

    private static final String CSV = String.join("\n",
            "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"",
            "\"SET\",\"133511.34\",\"0.234\",\"0.064\",\"0.207\",\"0.391\",\"0.567\",\"2.399\"",
            "\"MSET (10 keys)\",\"30670.14\",\"1.544\",\"0.184\",\"1.063\",\"5.383\",\"7.007\",\"28.799\"");

    @Test
    void redisBenchmarkCsvIsParsed() {
        List<BenchmarkRow> rows = BenchmarkRow.parseCsv("some progress line\r" + CSV + "\n");
        assertEquals(List.of(new BenchmarkRow("SET", 133511.34, 0.207, 0.567),
                new BenchmarkRow("MSET (10 keys)", 30670.14, 1.063, 7.007)), rows);
        assertThrows(IllegalArgumentException.class, () -> BenchmarkRow.parseCsv("SET: 1000 requests per second"));
    }

    @Test
    void theReportGivesMediansRangesRatiosAndMemoryPerPersistenceMode(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        ServerVsRedis.ServerResults durable = results(Persistence.DURABLE, new double[] {100_000, 120_000, 110_000},
                new double[] {90_000, 150_000, 132_000});
        ServerVsRedis.ServerResults none = results(Persistence.NONE, new double[] {200_000, 200_000, 200_000},
                new double[] {100_000, 100_000, 100_000});
        List<ServerVsRedis.ServerResults> passes = List.of(durable, none);
        String md = ServerReport.markdown(passes);
        // medians 110,000 and 132,000: ratio 1.20; range is min–max of the rounds
        assertTrue(md.contains("| unpipelined | GET | 110,000 (100,000–120,000) | 132,000 (90,000–150,000) | **0.83x** | 0.200 / 1.500 | 0.300 / 0.900 |"), md);
        assertTrue(md.contains("| -P 16 | GET | 500,000 (500,000–500,000) | 400,000 (400,000–400,000) | **1.25x** |"), md);
        assertTrue(md.contains("| 1 client | GET | 16,000 (16,000–16,000) | 30,001 (30,000–30,002) | **0.53x** |"), md);
        assertTrue(md.contains("| unpipelined | GET | 200,000 (200,000–200,000) | 100,000 (100,000–100,000) | **2.00x** |"), md);
        assertTrue(md.contains("| Ferrite | 1,000,000 | 180.0 MiB | 270.0 MiB |"), md);
        assertTrue(md.contains("| Ferrite | 1,000,000 | 90.0 MiB | 135.0 MiB |"), md);
        assertTrue(md.contains("| type | Redis B / element | Ferrite B / element |\n|---|---:|---:|\n| list | 110 | 140 |\n"
                + "| set | – | – |\n| hash | – | – |\n| zset | 98 | 1,235 |\n"), md);
        int durableAt = md.indexOf("## Durable\n");
        int noneAt = md.indexOf("## No persistence\n");
        assertTrue(durableAt > 0 && noneAt > durableAt, md);
        assertTrue(md.indexOf("**0.83x**") > durableAt && md.indexOf("**0.83x**") < noneAt, md);
        assertTrue(md.indexOf("**2.00x**") > noneAt, md);
        assertTrue(md.contains("`--fsync everysec`") && md.contains("`appendonly no`") && md.contains("`/dev/shm`"), md);
        assertTrue(ServerReport.setup(passes).contains("`--threads 1`, no busy polling")
                && ServerReport.setup(passes).contains("the same with `--busy-poll 25`"), ServerReport.setup(passes));
        // The variant's own table, and CPU seconds per million requests beside throughput and p99.
        assertTrue(md.contains("Ferrite, busy-poll 25 µs: a separate variant"), md);
        assertTrue(md.contains("| unpipelined | GET | 110,000 (100,000–120,000) | 150,000 (140,000–160,000) | **0.73x** |"), md);
        assertTrue(md.contains("| 0.300 / 0.900 | 2.50 | 3.10 |"), md);
        assertTrue(md.contains("| -P 16 | GET | 500,000 (500,000–500,000) | 400,000 (400,000–400,000) | **1.25x** | 1.200 / 3.000 | 1.500 / 4.000 | – | – |"), md);

        String summary = ServerReport.summary(passes);
        assertTrue(summary.contains("| test | durable, unpipelined | durable, `-P 16` | no persistence, unpipelined "
                + "| no persistence, `-P 16` |"), summary);
        assertTrue(summary.contains("| GET | 0.83x (p99 0.900 / 1.500) | 1.25x (p99 4.000 / 3.000) "
                + "| 2.00x (p99 0.900 / 1.500) | 1.25x (p99 4.000 / 3.000) |"), summary);
        assertTrue(summary.contains("Ferrite with its defaults, no busy polling"), summary);
        assertFalse(summary.contains("few clients:"), "the few-client rows are on the page, not in the README\n" + summary);
        assertTrue(summary.contains("Memory for 1M keys of 100 B: durable, Redis used_memory 200 MiB (RSS 210 MiB), "
                + "Ferrite 180 MiB (RSS 270 MiB); no persistence, Redis used_memory 100 MiB"), summary);

        List<Path> files = ServerReport.write(dir, passes);
        assertEquals(3, files.size());
        String html = Files.readString(dir.resolve("server-vs-redis.html"));
        assertTrue(html.contains("<svg") && html.contains("132,000/s") && html.contains("No persistence, unpipelined"), html);
        List<String> csv = Files.readAllLines(dir.resolve("server-vs-redis.csv"));
        assertEquals(43, csv.size()); // header + 2 passes x (18 rounds + 3 of the variant)
        assertTrue(csv.contains("\"durable\",\"1 client\",\"GET\",\"Ferrite\",3,30002.0,0.03,0.05,NaN"), csv.toString());
        assertTrue(csv.contains("\"no persistence\",\"unpipelined\",\"GET\",\"Redis\",1,200000.0,0.2,0.5,2.5"),
                csv.toString());
        for (String line : csv) { // the variant's name holds a comma: every text field is quoted
            assertEquals(9, line.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)").length, line);
        }
    }

    @Test
    void persistenceModesAreParsed() {
        assertEquals(List.of(Persistence.DURABLE, Persistence.NONE), Persistence.parse("both"));
        assertEquals(List.of(Persistence.NONE), Persistence.parse("none"));
        assertThrows(IllegalArgumentException.class, () -> Persistence.parse("aof"));
        assertEquals(List.of("--save", "", "--appendonly", "no"), Persistence.NONE.redisArguments());
        assertEquals("everysec", Persistence.DURABLE.ferriteFsync());
        assertEquals(Path.of("/dev/shm/tag"), Persistence.NONE.ferriteData(Path.of("/tmp/w"), "tag"));
        assertEquals(Path.of("/tmp/w/ferrite"), Persistence.DURABLE.ferriteData(Path.of("/tmp/w"), "tag"));
    }

    private static ServerVsRedis.ServerResults results(Persistence mode, double[] redis, double[] ferrite) {
        ServerVsRedis.ServerResults r = new ServerVsRedis.ServerResults(mode, 3, 1000, 25, "7.0.15", "test CPU");
        for (int i = 0; i < 3; i++) {
            r.add("unpipelined", "GET", "Redis", new BenchmarkRow("GET", redis[i], 0.2, 0.5 + i, 2.5));
            r.add("unpipelined", "GET", "Ferrite", new BenchmarkRow("GET", ferrite[i], 0.3, 0.9, 3.0 + 0.1 * i));
            r.add("unpipelined", "GET", ServerVsRedis.busyPollVariant(25),
                    new BenchmarkRow("GET", 140_000 + 10_000 * i, 0.2, 0.6, 4.0));
            r.add("-P 16", "GET", "Redis", new BenchmarkRow("GET", 500_000, 1.2, 3.0));
            r.add("-P 16", "GET", "Ferrite", new BenchmarkRow("GET", 400_000, 1.5, 4.0));
            r.add("1 client", "GET", "Redis", new BenchmarkRow("GET", 16_000, 0.06, 0.1));
            r.add("1 client", "GET", "Ferrite", new BenchmarkRow("GET", 30_000 + i, 0.03, 0.05));
        }
        long scale = mode == Persistence.DURABLE ? 2 : 1;
        r.memory("Redis", 1_000_000, 100L * scale << 20, 105L * scale << 20);
        r.memory("Ferrite", 1_000_000, 90L * scale << 20, 135L * scale << 20);
        r.elementMemory("Redis", "list", 110.4);
        r.elementMemory("Redis", "zset", 98);
        r.elementMemory("Ferrite", "list", 140);
        r.elementMemory("Ferrite", "zset", 1234.5);
        return r;
    }
}
