package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import io.netty.util.ResourceLeakDetector;


/**
 * {@code java -jar ferrite-kv-server.jar [--name value ...] [--config FILE]} (see
 * {@link ServerOptions} for the names): with no arguments, RESP on 127.0.0.1:6380, HTTP on
 * 127.0.0.1:8080, data in {@code ./ferrite-data}. Serves until SIGTERM, Ctrl-C or SHUTDOWN, then stops
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
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.print(ServerOptions.help());
            return;
        }
        NettySettings.apply();
        quietLeakDetection();
        KvServer server;
        try {
            server = ServerOptions.parse(args).start();
        } catch (FerriteException e) {
            System.err.println("ferrite-kv-server: " + e.getMessage());
            System.err.println(ServerOptions.usage());
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "ferrite-kv-shutdown"));
        server.awaitStop(); // SIGTERM, Ctrl-C or a client's SHUTDOWN
        System.exit(0);
    }

    /**
     * Turns Netty's buffer leak detector off unless the command line sets its level: at its default
     * it records a stack trace for one buffer in 128, on the event loops. The tests
     * run the server with it on.
     */
    private static void quietLeakDetection() {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }
}
