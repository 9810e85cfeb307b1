package dev.ferrite.bench.server;

import dev.ferrite.kv.server.FsyncPolicy;
import dev.ferrite.kv.server.KvDatabase;
import dev.ferrite.kv.server.KvServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One server database through its two doors: a {@link KvDatabase} in the benchmark's process, and
 * a Redis client's unpipelined request over loopback to the same server (embedded in the same
 * JVM, {@code --fsync no}). {@code entries} strings of 100 bytes, a hash of {@code entries} fields
 * and a sorted set of {@code entries} members; each call reads or overwrites a random one. Scores
 * are ns per call, the request's round trip included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class InProcessDatabase {

    @Param({"100000"})
    public int entries;

    private Path dir;
    private KvServer server;
    private KvDatabase db;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private String value;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("ferrite-door-bench");
        server = KvServer.builder().port(0).dataDirectory(dir).fsync(FsyncPolicy.NO).start();
        db = KvServer.openDatabase(dir, 0);
        value = "v".repeat(100);
        for (int i = 0; i < entries; i++) {
            db.set(key(i), value);
            db.hset("hash", key(i), value);
            db.zadd("zset", i, key(i));
        }
        socket = new Socket("127.0.0.1", server.port());
        socket.setTcpNoDelay(true);
        out = new BufferedOutputStream(socket.getOutputStream());
        in = new BufferedInputStream(socket.getInputStream());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        socket.close();
        db.close();
        server.close();
        Tools.deleteTree(dir);
    }

    private static String key(int i) {
        return String.format("key:%012d", i);
    }

    private String randomKey() {
        return key(ThreadLocalRandom.current().nextInt(entries));
    }

    @Benchmark
    public String databaseGet() {
        return db.get(randomKey());
    }

    @Benchmark
    public String databaseHget() {
        return db.hget("hash", randomKey());
    }

    @Benchmark
    public Double databaseZscore() {
        return db.zscore("zset", randomKey());
    }

    @Benchmark
    public boolean databaseHset() {
        return db.hset("hash", randomKey(), value);
    }

    @Benchmark
    public int respGet() throws IOException {
        return call("GET", randomKey());
    }

    @Benchmark
    public int respHget() throws IOException {
        return call("HGET", "hash", randomKey());
    }

    @Benchmark
    public int respZscore() throws IOException {
        return call("ZSCORE", "zset", randomKey());
    }

    @Benchmark
    public int respHset() throws IOException {
        return call("HSET", "hash", randomKey(), value);
    }

    /** Sends one request and reads its reply (an integer or a bulk string). @return the reply's length or value */
    private int call(String... args) throws IOException {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        }
        out.write(b.toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
        int type = in.read();
        int n = (int) number();
        if (type == '$' && n >= 0) {
            in.skipNBytes(n + 2L);
        } else if (type != '$' && type != ':') {
            throw new IOException("unexpected reply type " + (char) type);
        }
        return n;
    }

    private long number() throws IOException {
        long n = 0;
        boolean negative = false;
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c == '-') {
                negative = true;
            } else if (c < '0' || c > '9') {
                throw new IOException("unexpected byte " + c + " in a reply's number");
            } else {
                n = n * 10 + (c - '0');
            }
        }
        in.read(); // \n
        return negative ? -n : n;
    }
}
