package dev.ferrite.bench.server;

import dev.ferrite.bench.ChildProcesses;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server process under test (redis-server or ferrite-kv-server), pinned to one core with
 * {@code taskset}, on a free loopback port, its output in a log file. {@link #close()} sends
 * SIGTERM and waits.
 */
final class ServerProcess implements AutoCloseable {

    final String name;
    final int port;
    private final Process process;
    private final Path log;

    private ServerProcess(String name, int port, Process process, Path log) {
        this.name = name;
        this.port = port;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code command} pinned to {@code core} and waits until it answers PING.
     *
     * @param command the server's command line; {@code {port}} is replaced by the chosen port
     */
    static ServerProcess start(String name, int core, List<String> command, Path log) throws IOException {
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of("taskset", "-c", Integer.toString(core)));
        for (String c : command) {
            cmd.add(c.replace("{port}", Integer.toString(port)));
        }
        Process p = ChildProcesses.start(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()));
        ServerProcess server = new ServerProcess(name, port, p, log);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if ("+PONG".equals(server.call("PING"))) {
                    return server;
                }
            } catch (IOException notYet) {
                // starting
            }
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException(name + " did not start (" + String.join(" ", cmd) + "); its output: "
                        + Files.readString(log));
            }
            sleep(100);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** @return the process id */
    long pid() {
        return process.pid();
    }

    /** @return the process's resident memory in bytes (VmRSS from /proc) */
    /**
     * @return the CPU time the process has used so far, user and system, all threads, in seconds
     *         (from {@code /proc/<pid>/stat}, in Linux's 1/100 s ticks)
     */
    double cpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime: fields 14 and 15
    }

    long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS for " + name);
    }

    /**
     * Sends one command and returns the first line of its reply (for a bulk reply, the whole
     * payload as text).
     */
    String call(String... args) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(600_000);
            OutputStream out = s.getOutputStream();
            out.write(encode(args));
            out.flush();
            InputStream in = s.getInputStream();
            String first = line(in);
            if (first.startsWith("$")) {
                int n = Integer.parseInt(first.substring(1));
                return n < 0 ? null : new String(in.readNBytes(n), StandardCharsets.UTF_8);
            }
            return first;
        }
    }

    /**
     * Loads {@code count} keys {@code key:%012d} (redis-benchmark's key form) with values of
     * {@code valueBytes} bytes, pipelined in batches, and checks every reply.
     */
    void load(int count, int valueBytes) throws IOException {
        String value = "x".repeat(valueBytes);
        pipelined(count, i -> encode("SET", String.format("key:%012d", i), value), "+OK"::equals, "SET");
    }

    /**
     * Loads {@code count} elements into one collection {@code "big"} of a type, pipelined: a
     * list's 100-byte elements ({@code RPUSH}), a set's members {@code member:%012d}, a hash's
     * fields {@code field:%012d} with 100-byte values, a sorted set's members {@code member:%012d}
     * scored by their number.
     *
     * @param type list, set, hash or zset
     */
    void loadElements(String type, int count) throws IOException {
        String value = "x".repeat(100);
        pipelined(count, i -> switch (type) {
            case "list" -> encode("RPUSH", "big", value);
            case "set" -> encode("SADD", "big", String.format("member:%012d", i));
            case "hash" -> encode("HSET", "big", String.format("field:%012d", i), value);
            case "zset" -> encode("ZADD", "big", Integer.toString(i), String.format("member:%012d", i));
            default -> throw new IllegalArgumentException("no collection type " + type);
        }, reply -> reply.startsWith(":"), type + " element");
    }

    /** Sends requests 0 to {@code count - 1}, a thousand at a time, and checks each reply. */
    private void pipelined(int count, java.util.function.IntFunction<byte[]> request,
                           java.util.function.Predicate<String> ok, String what) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(600_000);
            OutputStream out = new java.io.BufferedOutputStream(s.getOutputStream(), 1 << 16);
            InputStream in = new java.io.BufferedInputStream(s.getInputStream(), 1 << 16);
            int batch = 1000;
            for (int from = 0; from < count; from += batch) {
                int to = Math.min(count, from + batch);
                for (int i = from; i < to; i++) {
                    out.write(request.apply(i));
                }
                out.flush();
                for (int i = from; i < to; i++) {
                    String reply = line(in);
                    if (!ok.test(reply)) {
                        throw new IOException(name + " answered " + reply + " to " + what + " number " + i);
                    }
                }
            }
        }
    }

    private static byte[] encode(String... args) {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            b.append((char) c);
        }
        in.read();
        return b.toString();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the log file */
    File logFile() {
        return log.toFile();
    }

    /** Sends SIGTERM and waits up to 30 s, then kills. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
