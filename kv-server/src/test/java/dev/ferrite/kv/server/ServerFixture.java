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
    KvServer startServer(UnaryOperator<KvServer.Builder> config) {
        server = config.apply(KvServer.builder().port(0).dataDirectory(data)).start();
        return server;
    }

    @AfterEach
    void closeServer() {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
