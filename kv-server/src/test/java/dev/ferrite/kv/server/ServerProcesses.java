package dev.ferrite.kv.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runnable servers ({@link Main}) in child JVMs, for tests that kill them: start one on a port
 * over a data directory, connect once it listens, kill it later from a thread of its own.
 */
final class ServerProcesses {

    private ServerProcesses() {
    }

    /**
     * Starts {@code java ... Main --port PORT --http-port -1 --data DATA} with this JVM's class path.
     *
     * @param log where its output goes (appended)
     */
    static Process start(int port, Path data, Path log) throws IOException {
        return start(port, -1, data, log);
    }

    /** As {@link #start(int, Path, Path)}, serving HTTP on {@code httpPort} (-1: none). */
    static Process start(int port, int httpPort, Path data, Path log) throws IOException {
        return new ProcessBuilder(javaCommand(Main.class, "--port", Integer.toString(port), "--http-port",
                Integer.toString(httpPort), "--data", data.toString())).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** @return the command that runs {@code main} with {@code args} in a JVM like this one, with this class path */
    static List<String> javaCommand(Class<?> main, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        if (Runtime.version().feature() >= 24) {
            cmd.add("--sun-misc-unsafe-memory-access=allow");
        }
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** @return a client of the server once it listens; fails if it dies or takes over 30 s */
    static RespClient connect(int port, Process server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return new RespClient(port);
            } catch (IOException e) {
                if (!server.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError("the server did not start on port " + port, e);
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * Kills the server with SIGKILL after {@code millis} from a thread of its own, so that the kill
     * lands anywhere in the server's work, not only between a client's requests.
     *
     * @return the thread, to join
     */
    static Thread killLater(Process server, long millis) {
        Thread killer = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            server.destroyForcibly(); // SIGKILL: no shutdown hook runs
        });
        killer.start();
        return killer;
    }

    /** One round of a client's requests and their replies. */
    @FunctionalInterface
    interface Round {
        /**
         * @param i the round's number, from 0
         * @throws IOException once the server is gone
         */
        void run(long i) throws IOException;
    }

    /**
     * Runs rounds 0, 1, 2... until the server is gone, killing it with SIGKILL at a random instant
     * within {@code maxMillis} after the first round was acknowledged (however slow the host, the
     * kill lands in the work), and waits for it to end.
     *
     * @return the last round acknowledged, 0 or more
     */
    static long runUntilKilled(Process server, int maxMillis, Round round) throws InterruptedException {
        Thread killer = null;
        long acknowledged = -1;
        try {
            for (long i = 0; ; i++) {
                round.run(i);
                acknowledged = i;
                if (killer == null) {
                    killer = killLater(server, ThreadLocalRandom.current().nextInt(maxMillis));
                }
            }
        } catch (IOException gone) {
            // the server is gone
        }
        if (killer == null) {
            throw new AssertionError("the server died before it acknowledged anything");
        }
        killer.join();
        if (!server.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the killed server did not end within 10 s");
        }
        return acknowledged;
    }

    /** @return a port no one listens on now */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
