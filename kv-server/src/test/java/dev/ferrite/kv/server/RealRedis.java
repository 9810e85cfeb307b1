package dev.ferrite.kv.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} (Debian's {@code redis-server} package, which {@code .ci/run}
 * installs) on a free loopback port, without persistence: the reference the server's replies are
 * compared with. Stopped by {@link #close()}.
 */
final class RealRedis implements AutoCloseable {

    private final Process process;
    private final int port;

    private RealRedis(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts one; fails (CI) or aborts (elsewhere) if redis-server is not installed. */
    static RealRedis start(Path dir) throws Exception {
        return start(dir, null);
    }

    /**
     * Starts one that requires a password, or none if {@code password} is null.
     *
     * @param dir its working directory (and log)
     */
    static RealRedis start(Path dir, String password) throws Exception {
        String binary = ExternalTools.require("redis-server", "redis-server");
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no",
                "--enable-debug-command", "local")); // DEBUG SET-ACTIVE-EXPIRE, from this host only
        if (password != null) {
            command.addAll(List.of("--requirepass", password));
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        RealRedis redis = new RealRedis(p, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (RespClient c = new RespClient(port)) {
                Object pong = c.call("PING");
                if ("PONG".equals(pong) || pong instanceof RespClient.Err e && e.text().startsWith("NOAUTH")) {
                    return redis;
                }
            } catch (IOException notYet) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    redis.close();
                    throw new IllegalStateException("redis-server did not start on port " + port + ": see "
                            + dir.resolve("redis.log"), notYet);
                }
                Thread.sleep(50);
            }
        }
    }

    int port() {
        return port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
