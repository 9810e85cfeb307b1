package dev.ferrite.kv.server;

import java.nio.file.Path;

/**
 * A real {@code redis-server} ({@link RealRedis}) and an embedded Ferrite server, set up alike
 * (the same password, or none), for tests that send both the same requests. Both are stopped by
 * {@link #close()}.
 */
final class ReferencePair implements AutoCloseable {

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
            KvServer.Builder ferrite = KvServer.builder().port(0).dataDirectory(dir.resolve("ferrite"));
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
}
