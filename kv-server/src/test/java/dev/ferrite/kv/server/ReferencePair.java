package dev.ferrite.kv.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.stream.LongStream;

/**
 * A real {@code redis-server} ({@link RealRedis}) and an embedded Ferrite server, set up alike
 * (the same password, or none), for tests that send both the same requests. Both are stopped by
 * {@link #close()}.
 */
final class ReferencePair implements AutoCloseable {

    private static final String SENTINEL = "ECHO raw-sentinel\r\n";
    private static final String SENTINEL_REPLY = "$12\r\nraw-sentinel\r\n";

    private final RealRedis redis;
    private final KvServer ferrite;

    private ReferencePair(RealRedis redis, KvServer ferrite) {
        this.redis = redis;
        this.ferrite = ferrite;
    }

    /**
     * @param dir      where both keep their files
     * @param password the password both require, or null for none
     */
    static ReferencePair start(Path dir, String password) throws Exception {
        RealRedis redis = RealRedis.start(dir, password);
        try {
            KvServerBuilder ferrite = KvServer.builder().port(0).dataDirectory(dir.resolve("ferrite"));
            if (password != null) {
                ferrite.requirePassword(password);
            }
            return new ReferencePair(redis, ferrite.start());
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    /** @return the reference's port */
    int redisPort() {
        return redis.port();
    }

    /** @return the Ferrite server */
    KvServer ferrite() {
        return ferrite;
    }

    /** @return Ferrite's RESP port */
    int ferritePort() {
        return ferrite.port();
    }

    @Override
    public void close() throws Exception {
        try {
            ferrite.close();
        } finally {
            redis.close();
        }
    }

    /**
     * The seeds of a seeded comparison: {@code ferrite.test.<kind>Seeds} of them ({@code count}
     * unless set: a longer search runs with more) from {@code ferrite.test.<kind>SeedFrom} (1 unless
     * set: a search can go on past the seeds tried).
     */
    static LongStream seeds(String kind, long count) {
        long from = Long.getLong("ferrite.test." + kind + "SeedFrom", 1);
        return LongStream.range(from, from + Long.getLong("ferrite.test." + kind + "Seeds", count));
    }

    /**
     * Sends request bytes on a fresh connection, then a sentinel {@code ECHO}, and collects what
     * the server sends back.
     *
     * @param silenceMillis how long the server may stay silent before it counts as waiting for
     *                      more bytes of the request
     * @return the bytes (one char each) up to and with the sentinel's reply; or what came before
     *         the server closed the connection, then {@code <closed>}; or before it fell silent,
     *         then {@code <waiting>}
     */
    static String exchange(int port, byte[] request, int silenceMillis) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(silenceMillis);
            socket.getOutputStream().write(request);
            socket.getOutputStream().write(SENTINEL.getBytes(StandardCharsets.ISO_8859_1));
            StringBuilder got = new StringBuilder();
            InputStream in = socket.getInputStream();
            while (!got.toString().endsWith(SENTINEL_REPLY)) {
                int b;
                try {
                    b = in.read();
                } catch (SocketTimeoutException silent) {
                    return got + "<waiting>";
                } catch (SocketException reset) {
                    b = -1;
                }
                if (b < 0) {
                    return got + "<closed>";
                }
                got.append((char) b);
            }
            return got.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
