package dev.ferrite.queue;

import dev.ferrite.InvalidSpecException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Where a queue lives and how it behaves. Immutable and thread-safe; made by {@link #file(Path)}
 * or {@link #shm(String)} and {@link Builder#build()}, which validates every setting and throws
 * {@link InvalidSpecException} naming the setting, its value and the limit.
 *
 * <p>The geometry (capacity, maximum message length, producer mode) is fixed at
 * {@link IpcQueue#create create}; {@link IpcQueue#open open} takes it from the queue's header and
 * ignores these three settings. The other settings are per process.
 */
public final class QueueSpec {

    /** Where a queue's memory lives. */
    public enum Kind {
        /** A pool file at a path: survives restarts of the machine. */
        FILE,
        /** A pool in {@code /dev/shm}: RAM only, gone at reboot. */
        SHM
    }

    /** Default ring capacity: 1 MiB. */
    public static final long DEFAULT_CAPACITY = 1 << 20;
    /** Default time a blocked record waits before a dead writer's record is skipped. */
    public static final Duration DEFAULT_ABANDON_TIMEOUT = Duration.ofSeconds(1);
    /** Default time after which a side without a heartbeat counts as not alive. */
    public static final Duration DEFAULT_LIVENESS_TIMEOUT = Duration.ofSeconds(1);

    private final Kind kind;
    private final Path path;
    private final String shmName;
    private final long capacity;
    private final int maxMessageLength;
    private final boolean manyProducers;
    private final Duration abandonTimeout;
    private final Duration livenessTimeout;
    private final Supplier<IdleStrategy> idleStrategy;
    private final String backend;
    private final boolean overwrite;

    private QueueSpec(Builder b) {
        this.kind = b.kind;
        this.path = b.path;
        this.shmName = b.shmName;
        this.capacity = b.capacity;
        this.maxMessageLength = b.maxMessageLength;
        this.manyProducers = b.manyProducers;
        this.abandonTimeout = b.abandonTimeout;
        this.livenessTimeout = b.livenessTimeout;
        this.idleStrategy = b.idleStrategy;
        this.backend = b.backend;
        this.overwrite = b.overwrite;
    }

    /**
     * @param path the pool file that holds the queue
     * @return a builder for a file-backed queue
     */
    public static Builder file(Path path) {
        return new Builder(Kind.FILE, Objects.requireNonNull(path, "path"), null);
    }

    /**
     * @param name a name in {@code /dev/shm} (letters, digits, '.', '_', '-')
     * @return a builder for a queue in shared memory
     */
    public static Builder shm(String name) {
        return new Builder(Kind.SHM, null, Objects.requireNonNull(name, "name"));
    }

    /** @return where the queue lives */
    public Kind kind() {
        return kind;
    }

    /** @return the pool file for {@link Kind#FILE}, else null */
    public Path path() {
        return path;
    }

    /** @return the shm name for {@link Kind#SHM}, else null */
    public String shmName() {
        return shmName;
    }

    /** @return ring capacity in bytes, a power of two */
    public long capacity() {
        return capacity;
    }

    /** @return the largest message payload in bytes */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /** @return whether many producers (threads or processes) may write at once */
    public boolean manyProducers() {
        return manyProducers;
    }

    /** @return how long the consumer waits on a record whose writer died before skipping it */
    public Duration abandonTimeout() {
        return abandonTimeout;
    }

    /** @return how old a heartbeat may be for its side to count as alive */
    public Duration livenessTimeout() {
        return livenessTimeout;
    }

    /** @return a new idle strategy for one producer or consumer */
    public IdleStrategy newIdleStrategy() {
        return idleStrategy.get();
    }

    /** @return the backend name, or null for {@link dev.ferrite.Ferrite#backend()} */
    public String backend() {
        return backend;
    }

    /** @return whether {@link IpcQueue#create} replaces an existing queue */
    public boolean overwrite() {
        return overwrite;
    }

    /** @return a builder holding this spec's settings */
    public Builder toBuilder() {
        Builder b = new Builder(kind, path, shmName);
        b.capacity = capacity;
        b.maxMessageLength = maxMessageLength;
        b.maxMessageSet = true;
        b.manyProducers = manyProducers;
        b.abandonTimeout = abandonTimeout;
        b.livenessTimeout = livenessTimeout;
        b.idleStrategy = idleStrategy;
        b.backend = backend;
        b.overwrite = overwrite;
        return b;
    }

    @Override
    public String toString() {
        return "QueueSpec[" + (kind == Kind.FILE ? "file " + path : "shm " + shmName) + ", capacity " + capacity
                + ", max message " + maxMessageLength + ", " + (manyProducers ? "many producers" : "one producer")
                + "]";
    }

    /** Collects settings; not thread-safe. */
    public static final class Builder {
        private final Kind kind;
        private final Path path;
        private final String shmName;
        private long capacity = DEFAULT_CAPACITY;
        private int maxMessageLength;
        private boolean maxMessageSet;
        private boolean manyProducers;
        private Duration abandonTimeout = DEFAULT_ABANDON_TIMEOUT;
        private Duration livenessTimeout = DEFAULT_LIVENESS_TIMEOUT;
        private Supplier<IdleStrategy> idleStrategy = IdleStrategy::backoff;
        private String backend;
        private boolean overwrite;

        private Builder(Kind kind, Path path, String shmName) {
            this.kind = kind;
            this.path = path;
            this.shmName = shmName;
        }

        /**
         * @param bytes ring capacity, a power of two from 4 KiB to 1 GiB (default 1 MiB)
         * @return this builder
         */
        public Builder capacity(long bytes) {
            this.capacity = bytes;
            return this;
        }

        /**
         * @param bytes largest message payload, 1 to {@code capacity / 2 - 8} (default
         *              {@code capacity / 8 - 8})
         * @return this builder
         */
        public Builder maxMessageLength(int bytes) {
            this.maxMessageLength = bytes;
            this.maxMessageSet = true;
            return this;
        }

        /**
         * @param many true to let several producers (threads or processes) write at once; they
         *             claim space by CAS on the tail. Default false: one producer at a time.
         * @return this builder
         */
        public Builder manyProducers(boolean many) {
            this.manyProducers = many;
            return this;
        }

        /**
         * @param timeout how long the consumer waits on a record whose writer's process died
         *                before it skips the record and reports it; positive
         * @return this builder
         */
        public Builder abandonTimeout(Duration timeout) {
            this.abandonTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @param timeout heartbeat age after which {@code isPeerAlive()} says false; at least 20 ms
         * @return this builder
         */
        public Builder livenessTimeout(Duration timeout) {
            this.livenessTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @param factory makes the idle strategy each producer and consumer uses while it waits
         *                in the blocking calls (default {@link IdleStrategy#backoff()})
         * @return this builder
         */
        public Builder idleStrategy(Supplier<IdleStrategy> factory) {
            this.idleStrategy = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /**
         * @param name backend to hold the queue's pool, or null for the configured default
         * @return this builder
         */
        public Builder backend(String name) {
            this.backend = name;
            return this;
        }

        /**
         * @param overwrite whether {@link IpcQueue#create} replaces an existing queue (default false)
         * @return this builder
         */
        public Builder overwrite(boolean overwrite) {
            this.overwrite = overwrite;
            return this;
        }

        /**
         * @return the spec
         * @throws InvalidSpecException if a setting is out of range
         */
        public QueueSpec build() {
            if (capacity < QueueLayout.MIN_CAPACITY || capacity > QueueLayout.MAX_CAPACITY
                    || Long.bitCount(capacity) != 1) {
                throw new InvalidSpecException("capacity " + capacity + " must be a power of two from "
                        + QueueLayout.MIN_CAPACITY + " to " + QueueLayout.MAX_CAPACITY + " bytes");
            }
            long maxMessage = QueueLayout.maxRecordBytes(capacity) - RecordLayout.HEADER_BYTES;
            if (!maxMessageSet) {
                maxMessageLength = (int) (capacity / 8 - RecordLayout.HEADER_BYTES);
            } else if (maxMessageLength < 1 || maxMessageLength > maxMessage) {
                throw new InvalidSpecException("maxMessageLength " + maxMessageLength + " must be from 1 to "
                        + maxMessage + " bytes (half the capacity " + capacity + " minus the 8-byte header)");
            }
            if (abandonTimeout.isNegative() || abandonTimeout.isZero()) {
                throw new InvalidSpecException("abandonTimeout " + abandonTimeout + " must be positive");
            }
            if (livenessTimeout.toMillis() < 20) {
                throw new InvalidSpecException("livenessTimeout " + livenessTimeout + " must be at least 20 ms");
            }
            return new QueueSpec(this);
        }
    }
}
