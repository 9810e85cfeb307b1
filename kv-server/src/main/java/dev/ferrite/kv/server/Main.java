package dev.ferrite.kv.server;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar ferrite-kv-server.jar [--port N] [--bind ADDRESS] [--data DIR] [--backend NAME]}:
 * serves until SIGTERM or Ctrl-C, then closes connections and maps cleanly.
 */
public final class Main {

    private Main() {
    }

    /**
     * @param args the flags above
     * @throws InterruptedException if interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        KvServer.Builder builder = KvServer.builder();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                usage("missing value after " + flag);
            }
            String value = args[++i];
            switch (flag) {
                case "--port" -> builder.port(parsePort(value));
                case "--bind" -> builder.bind(value);
                case "--data" -> builder.dataDirectory(Path.of(value));
                case "--backend" -> builder.backend(value);
                default -> usage("unknown flag " + flag);
            }
        }
        KvServer server = builder.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "ferrite-kv-shutdown"));
        stopped.await();
    }

    private static int parsePort(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            usage("port " + value + " is not a number");
            return -1;
        }
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: java -jar ferrite-kv-server.jar [--port N] [--bind ADDRESS] [--data DIR] [--backend NAME]");
        System.exit(2);
    }
}
