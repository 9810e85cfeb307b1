package dev.ferrite.kv.server;

import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class's server: a data directory of the test's own, a server started over it on ephemeral
 * ports, and that server closed after each test (a subclass's own {@code @AfterEach} methods run
 * first). A test that restarts the server closes the running one itself before it starts the next.
 */
abstract class ServerFixture {

    /** The test's data directory, empty when the test starts. */
    @TempDir
    Path data;

    /** The server the test started last, or {@code null}: closed after the test. */
    KvServer server;

    /**
     * Starts a server on an ephemeral RESP port over {@link #data}, without HTTP.
     *
     * @return the server, also in {@link #server}
     */
    KvServer startServer() {
        return startServer(b -> b);
    }

    /**
     * Starts a server on an ephemeral RESP port over {@link #data}, without HTTP unless
     * {@code config} asks for it.
     *
     * @param config the rest of the server's settings, applied to a builder that has the port and
     *               the data directory already
     * @return the server, also in {@link #server}
     */
    KvServer startServer(UnaryOperator<KvServerBuilder> config) {
        server = config.apply(KvServer.builder().port(0).dataDirectory(data)).start();
        return server;
    }

    /**
     * @return the file of database {@code db} in a data directory, as its manifest names it
     * @throws AssertionError if the manifest names none
     */
    static Path databaseFile(Path data, int db) throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(data.resolve("databases"))) {
            String[] f = line.split(" ");
            if (f[0].equals(Integer.toString(db))) {
                return data.resolve(f[1]);
            }
        }
        throw new AssertionError("the manifest of " + data + " names no database " + db);
    }

    @AfterEach
    void closeServer() {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
