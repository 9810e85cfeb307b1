package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;

import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar ferrite-kv-server.jar [--name value ...] [--config FILE]} (see
 * {@link ServerOptions} for the names): with no arguments, RESP on 127.0.0.1:6380, HTTP on
 * 127.0.0.1:8080, data in {@code ./ferrite-data}. Serves until SIGTERM or Ctrl-C, then stops
 * accepting, closes the connections and closes the maps (forcing them to disk first under the
 * {@code always} and {@code everysec} fsync policies).
 */
public final class Main {

    private Main() {
    }

    /**
     * @param args the flags
     * @throws InterruptedException if interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        KvServer server;
        try {
            server = ServerOptions.parse(args).start();
        } catch (FerriteException e) {
            System.err.println("ferrite-kv-server: " + e.getMessage());
            System.err.println(ServerOptions.usage());
            System.exit(2);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "ferrite-kv-shutdown"));
        stopped.await();
    }
}
