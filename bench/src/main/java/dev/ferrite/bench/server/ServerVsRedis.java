package dev.ferrite.bench.server;

import dev.ferrite.bench.JvmFlags;
import dev.ferrite.kv.server.KvServerBuilder;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The KV server against a real Redis on this machine:
 *
 * <pre>
 * java -jar bench/target/ferrite-bench.jar --redis [--rounds 4] [--requests 1000000] [--busy-poll 50]
 *     [--persistence durable|none|both] [--out DIR] [--publish]
 * </pre>
 *
 * <p>One pass per persistence mode ({@link Persistence}; both by default): durable (Redis with an
 * append-only file, {@code appendfsync everysec}; Ferrite {@code --fsync everysec}, its data on
 * disk), then without persistence (Redis with neither snapshots nor append-only file; Ferrite
 * {@code --fsync no} with its data in {@code /dev/shm}). Each pass starts {@code redis-server}
 * (installed with apt-get if missing and running as root) and {@code ferrite-kv-server} (one
 * event-loop thread, its defaults: no busy polling; {@code -XX:+UseSerialGC -Xmx512m}) afresh, and a
 * labelled variant of Ferrite with {@code --busy-poll 50} ({@code --busy-poll MICROS} sets the
 * window, 0 runs no variant), each pinned with {@code taskset} to core 0 and on a
 * free loopback port; runs {@code redis-benchmark} pinned to core 1 with {@code -t
 * set,get,incr,mset -n N -r 1000000 -d 100 -c 50}, unpipelined and with {@code -P 16}, and {@code
 * -t get,incr -n N/10} from 1 and from 4 unpipelined clients (where a server's wake-ups decide),
 * and {@code -t lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange_100 -n N/10} unpipelined
 * from 50 clients (each test on one collection, as redis-benchmark names it),
 * one test per run with each server's CPU seconds per million requests read from {@code /proc},
 * after {@value #WARM_UP_ROUNDS} unmeasured rounds on each server (the warm-up, at least
 * {@value #WARM_UP_REQUESTS} requests per test), for an even number of rounds (4 unless
 * {@code --rounds} says otherwise), odd rounds in the servers' order and even ones in reverse;
 * then loads exactly 1,000,000 keys of 100 bytes into Redis and Ferrite and reads their memory
 * ({@code INFO memory}'s {@code used_memory} and the process's resident set), and
 * 1,000,000 elements into one list, set, hash and sorted set each ({@code used_memory}'s growth per
 * element). Writes
 * {@code server-vs-redis.md}, {@code .html} and {@code .csv} into DIR (default {@code
 * bench-results}); {@code --publish} also writes {@code docs/SERVER-BENCHMARKS.md} and the summary
 * into {@code README.md} between its server-bench markers. Needs 2 cores or more, {@code taskset}
 * and {@code redis-benchmark}.
 */
public final class ServerVsRedis {

    /** The tests redis-benchmark runs, in order. */
    static final String TESTS = "set,get,incr,mset";
    static final int KEY_RANGE = 1_000_000;
    static final int VALUE_BYTES = 100;
    static final int CLIENTS = 50;
    static final int PIPELINE = 16;
    static final int MEMORY_KEYS = 1_000_000;
    /** The tests of the few-client loads. */
    static final String FEW_CLIENT_TESTS = "get,incr";
    /** The label of the unpipelined load from {@link #CLIENTS} clients. */
    static final String UNPIPELINED = "unpipelined";
    /** The label of the pipelined load. */
    static final String PIPELINED = "-P " + PIPELINE;
    /**
     * The fewest requests per test of the warm-up: 10,000 LPOPs left the collection commands'
     * code half compiled (LPOP at 1.5x Redis's time in the measured rounds; at parity after
     * 100,000 on the same host).
     */
    static final int WARM_UP_REQUESTS = 100_000;
    /**
     * Unmeasured rounds of every load on each server before the measured ones: after one, the JIT
     * compiler threads (on the server's core, as the server is pinned) still recompiled code the
     * other tests share, and Ferrite's p99 in the next round was 2.7-5 ms for LPUSH, LPOP and
     * ZADD; after two, 0.37-0.65 ms, as Redis's.
     */
    static final int WARM_UP_ROUNDS = 2;
    /** The collection tests redis-benchmark runs (each on one collection, as redis-benchmark names them). */
    static final String COLLECTION_TESTS = "lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange_100";
    /** The label of the collection load: unpipelined, from {@link #CLIENTS} clients. */
    static final String COLLECTIONS = "collections";
    /** Elements loaded into one collection of each type for the memory per element. */
    static final int MEMORY_ELEMENTS = 1_000_000;
    /** The collection types of the memory per element, as {@link ServerProcess#loadElements} takes them. */
    static final List<String> ELEMENT_TYPES = List.of("list", "set", "hash", "zset");

    /**
     * One way of loading a server: a row group of the report.
     *
     * @param label    the report's name for it
     * @param clients  redis-benchmark's {@code -c}
     * @param pipeline redis-benchmark's {@code -P}
     * @param requests redis-benchmark's {@code -n}, per test
     * @param tests    redis-benchmark's {@code -t}
     */
    record Load(String label, int clients, int pipeline, int requests, String tests) {

        /** @return this load for one of its tests */
        Load only(String test) {
            return new Load(label, clients, pipeline, requests, test);
        }

        /** @return this load with at least {@link #WARM_UP_REQUESTS} requests per test, for the warm-up */
        Load warmUp() {
            return new Load(label, clients, pipeline, Math.max(requests, WARM_UP_REQUESTS), tests);
        }

        /** @return the loads of a run with {@code requests} per test of the main loads */
        static List<Load> all(int requests) {
            int few = Math.max(1, requests / 10);
            return List.of(new Load(UNPIPELINED, CLIENTS, 1, requests, TESTS),
                    new Load(PIPELINED, CLIENTS, PIPELINE, requests, TESTS),
                    new Load("1 client", 1, 1, few, FEW_CLIENT_TESTS),
                    new Load("4 clients", 4, 1, few, FEW_CLIENT_TESTS),
                    new Load(COLLECTIONS, CLIENTS, 1, few, COLLECTION_TESTS));
        }
    }

    /**
     * The busy-poll window of the labelled variant {@link #busyPollVariant} runs beside Ferrite with
     * its defaults (no polling, as Redis), unless the bench's {@code --busy-poll} says otherwise (0: no variant).
     */
    static final int DEFAULT_BUSY_POLL_MICROS = KvServerBuilder.SUGGESTED_BUSY_POLL_MICROS;

    /** @return the report's name of Ferrite run with a busy-poll window of {@code micros} */
    static String busyPollVariant(int micros) {
        return "Ferrite, busy-poll " + micros + " µs";
    }

    private ServerVsRedis() {
    }

    /**
     * @param args see the class description
     * @param out  progress
     * @throws Exception if a tool is missing, a server does not start or a run fails
     */
    public static void run(String[] args, PrintStream out) throws Exception {
        int rounds = 4;
        int requests = 1_000_000;
        Path dir = Path.of("bench-results");
        boolean publish = false;
        int busyPoll = DEFAULT_BUSY_POLL_MICROS;
        List<Persistence> modes = Persistence.parse("both");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--busy-poll" -> busyPoll = Integer.parseInt(args[++i]);
                case "--persistence" -> modes = Persistence.parse(args[++i]);
                case "--out" -> dir = Path.of(args[++i]);
                case "--publish" -> publish = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (--redis takes --rounds N, --requests N, --busy-poll MICROS, --persistence durable|none|both,"
                        + " --out DIR, --publish)");
            }
        }
        checkRounds(rounds);
        if (Runtime.getRuntime().availableProcessors() < 2) {
            throw new IllegalStateException("the server bench pins the servers and redis-benchmark to different cores: "
                    + "it needs 2 cores, this machine has " + Runtime.getRuntime().availableProcessors());
        }
        Tools.ensure(out);
        Files.createDirectories(dir);
        List<ServerResults> all = new ArrayList<>();
        for (Persistence mode : modes) {
            ServerResults results = new ServerResults(mode, rounds, requests, busyPoll, Tools.redisVersion(),
                    Tools.cpuModel());
            runPass(results, out);
            all.add(results);
        }
        List<Path> written = ServerReport.write(dir, all);
        written.forEach(p -> out.println("wrote " + p));
        if (publish) {
            for (Path p : ServerReport.publish(Path.of("."), args, all)) {
                out.println("published " + p);
            }
        }
        out.print(ServerReport.markdown(all));
    }

    /**
     * The servers take turns going first in a round, and in the rows where they are close the one
     * that went first was the faster in 5 rounds of 5 (unpipelined {@code INCR}, in two runs; see
     * docs/PERFORMANCE.md, KV server): an odd number of rounds would give one server the first turn
     * once more than the other.
     *
     * @throws IllegalArgumentException unless {@code rounds} is even and at least 2
     */
    static void checkRounds(int rounds) {
        if (rounds < 2 || rounds % 2 != 0) {
            throw new IllegalArgumentException("--rounds " + rounds + " must be even and at least 2, so that each "
                    + "server goes first in as many rounds as the other");
        }
    }

    /** Both servers, started fresh in the results' persistence mode: warm-up, rounds, then memory. */
    private static void runPass(ServerResults results, PrintStream out) throws Exception {
        Persistence mode = results.persistence;
        Path work = Files.createTempDirectory("ferrite-vs-redis");
        Path ferriteData = mode.ferriteData(work, "ferrite-vs-redis-" + ProcessHandle.current().pid());
        List<String> redisCommand = new ArrayList<>(List.of("redis-server", "--port", "{port}", "--bind", "127.0.0.1",
                "--dir", mkdir(work.resolve("redis")).toString(), "--daemonize", "no"));
        redisCommand.addAll(mode.redisArguments());
        out.printf("pass: %s (%s)%n", mode.label, mode.description);
        int window = results.busyPollMicros;
        try (ServerProcess redis = ServerProcess.start("Redis", 0, redisCommand, work.resolve("redis.log"));
             ServerProcess ferrite = ServerProcess.start("Ferrite", 0,
                     ferriteCommand(mkdir(ferriteData), mode.ferriteFsync(), KvServerBuilder.DEFAULT_BUSY_POLL_MICROS),
                     work.resolve("ferrite.log"));
             ServerProcess polling = window == 0 ? null : ServerProcess.start(busyPollVariant(window), 0,
                     ferriteCommand(mkdir(Path.of(ferriteData + "-polling")), mode.ferriteFsync(), window),
                     work.resolve("ferrite-polling.log"))) {
            out.printf("redis-server on port %d (pid %d), ferrite-kv-server on port %d (pid %d)%s, all on core 0%n",
                    redis.port, redis.pid(), ferrite.port, ferrite.pid(), polling == null ? ""
                            : ", with --busy-poll " + window + " on port " + polling.port + " (pid " + polling.pid() + ")");
            List<ServerProcess> servers = polling == null ? List.of(redis, ferrite) : List.of(redis, ferrite, polling);
            // Whole unmeasured rounds on each: after one pass of 1,000,000 INCRs with -P 16, the JIT
            // compiler threads still took 32% of the server's core in the next pass.
            List<Load> loads = Load.all(results.requests);
            for (int warmUp = 1; warmUp <= WARM_UP_ROUNDS; warmUp++) {
                for (ServerProcess s : servers) {
                    for (Load load : loads) {
                        out.printf("warm-up %d/%d: %s, %s%n", warmUp, WARM_UP_ROUNDS, s.name, load.label());
                        Tools.redisBenchmark(s.port, load.warmUp(), out);
                    }
                }
            }
            for (int round = 1; round <= results.rounds; round++) {
                for (Load load : loads) {
                    // Odd rounds in the servers' order, even rounds in reverse: each position as often.
                    List<ServerProcess> order = new ArrayList<>(servers);
                    if (round % 2 == 0) {
                        java.util.Collections.reverse(order);
                    }
                    for (ServerProcess s : order) {
                        Tools.awaitQuiet(redis); // no AOF rewrite of Redis's left running into a round
                        out.printf("%s, round %d/%d, %s, %s%n", mode.label, round, results.rounds, s.name, load.label());
                        for (BenchmarkRow row : measure(s, load, out)) {
                            results.add(load.label(), row.test(), s.name, row);
                        }
                    }
                }
            }
            for (ServerProcess s : List.of(redis, ferrite)) {
                out.println("memory: loading " + MEMORY_KEYS + " keys of " + VALUE_BYTES + " B into " + s.name);
                String flushed = s.call("FLUSHALL");
                if (!flushed.equals("+OK")) {
                    throw new IOException(s.name + " answered " + flushed + " to FLUSHALL");
                }
                Tools.settledMemory(s); // the rounds' collections freed first
                s.load(MEMORY_KEYS, VALUE_BYTES);
                Tools.settle(s);
                String info = s.call("INFO", "memory");
                long keys = Long.parseLong(s.call("DBSIZE").substring(1));
                results.memory(s.name, keys, Tools.infoField(info, "used_memory"), s.residentBytes());
                for (String type : ELEMENT_TYPES) {
                    s.call("FLUSHALL");
                    long before = Tools.settledMemory(s);
                    out.println("memory: loading " + MEMORY_ELEMENTS + " elements into one " + type + " of " + s.name);
                    s.loadElements(type, MEMORY_ELEMENTS);
                    long after = Tools.settledMemory(s);
                    results.elementMemory(s.name, type, (double) (after - before) / MEMORY_ELEMENTS);
                }
            }
        } finally {
            Tools.deleteTree(work);
            for (Path data : List.of(ferriteData, Path.of(ferriteData + "-polling"))) {
                if (!data.startsWith(work)) {
                    Tools.deleteTree(data);
                }
            }
        }
    }

    /**
     * Runs a load's tests one by one against a server, each with the server's CPU seconds per
     * million requests read from {@code /proc} before and after it.
     */
    private static List<BenchmarkRow> measure(ServerProcess s, Load load, PrintStream out)
            throws IOException, InterruptedException {
        List<BenchmarkRow> rows = new ArrayList<>();
        for (String test : load.tests().split(",")) {
            double before = s.cpuSeconds();
            List<BenchmarkRow> one = Tools.redisBenchmark(s.port, load.only(test), out);
            double perMillion = (s.cpuSeconds() - before) / load.requests() * 1e6;
            out.printf("  server CPU %.2f s per million requests%n", perMillion);
            one.forEach(row -> rows.add(row.withCpu(perMillion)));
        }
        return rows;
    }

    private static List<String> ferriteCommand(Path data, String fsync, int busyPollMicros) {
        List<String> cmd = new ArrayList<>(JvmFlags.forkCommand().stream().filter(f -> !f.startsWith("-Xm")).toList());
        // One core: the serial collector, and a heap sized for a server whose data lives off the heap.
        // --busy-poll: the event loop polls that long after its last request before it sleeps, which
        // spares redis-benchmark (the bottleneck of the unpipelined rows) the wake-ups of a sleeping server.
        cmd.addAll(List.of("-XX:+UseSerialGC", "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                "dev.ferrite.kv.server.Main", "--port", "{port}", "--http-port", "-1", "--threads", "1",
                "--busy-poll", Integer.toString(busyPollMicros), "--fsync", fsync, "--data", data.toString()));
        return cmd;
    }

    private static Path mkdir(Path p) throws IOException {
        return Files.createDirectories(p);
    }

    /** The results of one pass (one persistence mode), grouped by load, test and server. */
    static final class ServerResults {
        final Persistence persistence;
        final int rounds;
        final int requests;
        /** The busy-poll window of the labelled variant in µs, 0 if it did not run. */
        final int busyPollMicros;
        final String redisVersion;
        final String cpu;
        final String java = System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
        /** load's label → test → server → one row per round. */
        final Map<String, Map<String, Map<String, List<BenchmarkRow>>>> rows = new LinkedHashMap<>();
        /** server → {keys, used_memory, rss}. */
        final Map<String, long[]> memory = new LinkedHashMap<>();
        /** server → collection type → used_memory bytes per element. */
        final Map<String, Map<String, Double>> elementMemory = new LinkedHashMap<>();

        ServerResults(Persistence persistence, int rounds, int requests, int busyPollMicros, String redisVersion,
                      String cpu) {
            this.persistence = persistence;
            this.rounds = rounds;
            this.requests = requests;
            this.busyPollMicros = busyPollMicros;
            this.redisVersion = redisVersion;
            this.cpu = cpu;
        }

        void add(String load, String test, String server, BenchmarkRow row) {
            rows.computeIfAbsent(load, l -> new LinkedHashMap<>()).computeIfAbsent(test, t -> new LinkedHashMap<>())
                    .computeIfAbsent(server, s -> new ArrayList<>()).add(row);
        }

        void memory(String server, long keys, long usedMemory, long rss) {
            memory.put(server, new long[] {keys, usedMemory, rss});
        }

        void elementMemory(String server, String type, double bytesPerElement) {
            elementMemory.computeIfAbsent(server, k -> new LinkedHashMap<>()).put(type, bytesPerElement);
        }
    }

    static void sleep(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
