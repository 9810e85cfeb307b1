package dev.ferrite;

import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a {@link ChunkPool} is made of: where its memory lives ({@link Kind}), its chunk size, its
 * capacity, how much of it is obtained up front and how large each extent of memory is.
 *
 * <p>Immutable and thread-safe. Built with {@link #anonymous()}, {@link #file(Path)} or
 * {@link #shm(String)}; {@link Builder#build()} validates every value and throws
 * {@link InvalidSpecException} naming the setting, the value and the limit it broke.
 *
 * <p>Defaults: chunk size {@value #DEFAULT_CHUNK_SIZE} bytes (1 MiB), capacity
 * {@value #DEFAULT_CAPACITY} bytes (1 GiB), initial size 0 (memory is obtained as allocations need
 * it), extent size the capacity rounded up to a power of two but at most
 * {@value #MAX_EXTENT_SIZE} bytes (1 GiB).
 */
public final class PoolSpec {

    /** Where the memory of a pool lives. */
    public enum Kind {
        /** Process-private memory that disappears with the pool. */
        ANONYMOUS,
        /** A memory-mapped file at a path; sparse, so capacity may far exceed RAM. */
        FILE,
        /** A named file in {@code /dev/shm}: RAM only, shareable between processes by name. */
        SHM
    }

    /** Where shm pools live: a RAM file system shared by every process of the machine. */
    public static final Path SHM_DIRECTORY = Path.of("/dev/shm");
    /** Smallest chunk size: 4096 bytes, one page. */
    public static final long MIN_CHUNK_SIZE = 1L << 12;
    /** Largest chunk size: 1 GiB. */
    public static final long MAX_CHUNK_SIZE = 1L << 30;
    /** Default chunk size: 1 MiB. */
    public static final long DEFAULT_CHUNK_SIZE = 1L << 20;
    /** Default capacity: 1 GiB. */
    public static final long DEFAULT_CAPACITY = 1L << 30;
    /** Largest extent (one mapping or one allocation carved into chunks): 1 GiB. */
    public static final long MAX_EXTENT_SIZE = 1L << 30;
    /** Most chunks a pool can hold: 2^31 - 1, so a chunk id fits an {@code int}. */
    public static final long MAX_CHUNKS = Integer.MAX_VALUE;
    /** Largest capacity in bytes: 2^50 (1 PiB), within what a 64-bit address space can map. */
    public static final long MAX_CAPACITY = 1L << 50;
    /** Default number of named segments a pool can hold. */
    public static final int DEFAULT_MAX_NAMED_SEGMENTS = 1024;
    /** Most named segments a pool can hold. */
    public static final int MAX_NAMED_SEGMENTS = 1 << 16;
    /** Longest shm name, in characters. */
    public static final int MAX_SHM_NAME_LENGTH = 200;

    private static final Pattern SHM_NAME = Pattern.compile("[A-Za-z0-9._-]+");

    private final Kind kind;
    private final Path path;
    private final String shmName;
    private final long chunkSize;
    private final long capacity;
    private final long initialSize;
    private final long extentSize;
    private final boolean readOnly;
    private final boolean overwrite;
    private final int maxNamedSegments;

    private PoolSpec(Builder b, long extentSize) {
        this.kind = b.kind;
        this.path = b.path;
        this.shmName = b.shmName;
        this.chunkSize = b.chunkSize;
        this.capacity = b.capacity;
        this.initialSize = b.initialSize;
        this.extentSize = extentSize;
        this.readOnly = b.readOnly;
        this.overwrite = b.overwrite;
        this.maxNamedSegments = b.maxNamedSegments;
    }

    /**
     * Starts a spec for a process-private pool.
     *
     * @return a builder with the defaults
     */
    public static Builder anonymous() {
        return new Builder(Kind.ANONYMOUS, null, null);
    }

    /**
     * Starts a spec for a pool in a memory-mapped file.
     *
     * @param path the pool file; its parent directory must exist
     * @return a builder with the defaults
     * @throws InvalidSpecException if {@code path} is null
     */
    public static Builder file(Path path) {
        if (path == null) {
            throw new InvalidSpecException("file pool path is null; give the path of the pool file");
        }
        return new Builder(Kind.FILE, path, null);
    }

    /**
     * Starts a spec for a pool in {@code /dev/shm} under a name other processes can open.
     *
     * @param name 1 to {@value #MAX_SHM_NAME_LENGTH} characters of {@code [A-Za-z0-9._-]}, not
     *             {@code "."} or {@code ".."}
     * @return a builder with the defaults
     * @throws InvalidSpecException if the name is null, empty, too long or has other characters
     */
    public static Builder shm(String name) {
        validateShmName(name);
        return new Builder(Kind.SHM, null, name);
    }

    private static void validateShmName(String name) {
        if (name == null || name.isEmpty()) {
            throw new InvalidSpecException("shm name is " + (name == null ? "null" : "empty")
                    + "; give 1 to " + MAX_SHM_NAME_LENGTH + " characters of [A-Za-z0-9._-]");
        }
        if (name.length() > MAX_SHM_NAME_LENGTH) {
            throw new InvalidSpecException("shm name has " + name.length() + " characters; the limit is "
                    + MAX_SHM_NAME_LENGTH);
        }
        if (!SHM_NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new InvalidSpecException("shm name '" + name
                    + "' is not allowed; use only [A-Za-z0-9._-], and not '.' or '..'");
        }
    }

    /** @return where the memory lives */
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

    /**
     * @return the file that holds the pool: the pool file for {@link Kind#FILE}, {@code
     *         /dev/shm/<name>} for {@link Kind#SHM}, null for {@link Kind#ANONYMOUS} memory
     */
    public Path backingFile() {
        return kind == Kind.FILE ? path : kind == Kind.SHM ? SHM_DIRECTORY.resolve(shmName) : null;
    }

    /** @return bytes per chunk, a power of two in [{@value #MIN_CHUNK_SIZE}, {@value #MAX_CHUNK_SIZE}] */
    public long chunkSize() {
        return chunkSize;
    }

    /** @return the most bytes the pool's chunks may add up to; a multiple of {@link #chunkSize()} */
    public long capacity() {
        return capacity;
    }

    /** @return bytes of memory obtained when the pool is created, in [0, capacity] */
    public long initialSize() {
        return initialSize;
    }

    /** @return bytes per extent: a power of two, at least one chunk, at most {@value #MAX_EXTENT_SIZE} */
    public long extentSize() {
        return extentSize;
    }

    /** @return whether an opened pool is mapped read-only */
    public boolean readOnly() {
        return readOnly;
    }

    /** @return whether creating a pool replaces an existing file of the same name */
    public boolean overwrite() {
        return overwrite;
    }

    /** @return slots in the pool's directory: the most named segments it can hold at once */
    public int maxNamedSegments() {
        return maxNamedSegments;
    }

    /**
     * @return a builder holding every setting of this spec, to derive another from it
     */
    public Builder toBuilder() {
        Builder b = new Builder(kind, path, shmName);
        b.chunkSize = chunkSize;
        b.capacity = capacity;
        b.initialSize = initialSize;
        b.extentSize = extentSize;
        b.readOnly = readOnly;
        b.overwrite = overwrite;
        b.maxNamedSegments = maxNamedSegments;
        return b;
    }

    /** @return a short description for messages: the kind and where */
    public String describe() {
        switch (kind) {
            case FILE:
                return "file pool " + path;
            case SHM:
                return "shm pool '" + shmName + "'";
            default:
                return "anonymous pool";
        }
    }

    @Override
    public String toString() {
        return "PoolSpec[" + describe() + ", chunkSize=" + chunkSize + ", capacity=" + capacity
                + ", initialSize=" + initialSize + ", extentSize=" + extentSize
                + ", maxNamedSegments=" + maxNamedSegments
                + (readOnly ? ", readOnly" : "") + (overwrite ? ", overwrite" : "") + "]";
    }

    /** Collects the settings of a {@link PoolSpec}; not thread-safe. */
    public static final class Builder {
        private final Kind kind;
        private final Path path;
        private final String shmName;
        private long chunkSize = DEFAULT_CHUNK_SIZE;
        private long capacity = DEFAULT_CAPACITY;
        private long initialSize;
        private long extentSize;
        private boolean readOnly;
        private boolean overwrite;
        private int maxNamedSegments = DEFAULT_MAX_NAMED_SEGMENTS;

        private Builder(Kind kind, Path path, String shmName) {
            this.kind = kind;
            this.path = path;
            this.shmName = shmName;
        }

        /**
         * @param bytes bytes per chunk: a power of two in [{@value #MIN_CHUNK_SIZE}, {@value #MAX_CHUNK_SIZE}]
         * @return this builder
         */
        public Builder chunkSize(long bytes) {
            this.chunkSize = bytes;
            return this;
        }

        /**
         * @param bytes the most bytes the pool may hold: a positive multiple of the chunk size, at
         *              most {@value #MAX_CAPACITY} and {@value #MAX_CHUNKS} chunks
         * @return this builder
         */
        public Builder capacity(long bytes) {
            this.capacity = bytes;
            return this;
        }

        /**
         * @param bytes memory to obtain up front, in [0, capacity]; rounded up to whole extents
         * @return this builder
         */
        public Builder initialSize(long bytes) {
            this.initialSize = bytes;
            return this;
        }

        /**
         * @param bytes bytes per extent (one mapping or allocation carved into chunks): a power of
         *              two, at least the chunk size, at most {@value #MAX_EXTENT_SIZE}; 0 picks the default
         * @return this builder
         */
        public Builder extentSize(long bytes) {
            this.extentSize = bytes;
            return this;
        }

        /**
         * @param readOnly map an opened pool read-only; only for opening an existing file or shm pool
         * @return this builder
         */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /**
         * @param overwrite let creating a file or shm pool replace an existing one
         * @return this builder
         */
        public Builder overwrite(boolean overwrite) {
            this.overwrite = overwrite;
            return this;
        }

        /**
         * @param slots the most named segments the pool can hold at once, in [0,
         *              {@value #MAX_NAMED_SEGMENTS}]; each slot takes 320 bytes of the file
         * @return this builder
         */
        public Builder maxNamedSegments(int slots) {
            this.maxNamedSegments = slots;
            return this;
        }

        /**
         * Validates every value and builds the spec.
         *
         * @return the immutable spec
         * @throws InvalidSpecException naming the first setting out of range, its value and its limit
         */
        public PoolSpec build() {
            if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE || Long.bitCount(chunkSize) != 1) {
                throw new InvalidSpecException("chunkSize " + chunkSize + " is not a power of two in ["
                        + MIN_CHUNK_SIZE + ", " + MAX_CHUNK_SIZE + "]");
            }
            if (capacity <= 0 || capacity > MAX_CAPACITY) {
                throw new InvalidSpecException("capacity " + capacity + " is not in [1, " + MAX_CAPACITY + "]");
            }
            if (capacity % chunkSize != 0) {
                throw new InvalidSpecException("capacity " + capacity + " is not a multiple of chunkSize "
                        + chunkSize);
            }
            if (capacity / chunkSize > MAX_CHUNKS) {
                throw new InvalidSpecException("capacity " + capacity + " is " + capacity / chunkSize
                        + " chunks of " + chunkSize + " bytes; the limit is " + MAX_CHUNKS + " chunks");
            }
            if (initialSize < 0 || initialSize > capacity) {
                throw new InvalidSpecException("initialSize " + initialSize + " is not in [0, capacity "
                        + capacity + "]");
            }
            long extent = extentSize == 0 ? defaultExtentSize() : extentSize;
            if (extent < chunkSize || extent > MAX_EXTENT_SIZE || Long.bitCount(extent) != 1) {
                throw new InvalidSpecException("extentSize " + extentSize + " is not a power of two in [chunkSize "
                        + chunkSize + ", " + MAX_EXTENT_SIZE + "]");
            }
            if (maxNamedSegments < 0 || maxNamedSegments > MAX_NAMED_SEGMENTS) {
                throw new InvalidSpecException("maxNamedSegments " + maxNamedSegments + " is not in [0, "
                        + MAX_NAMED_SEGMENTS + "]");
            }
            if (kind == Kind.ANONYMOUS && (readOnly || overwrite)) {
                throw new InvalidSpecException((readOnly ? "readOnly" : "overwrite")
                        + " is true for an anonymous pool; it applies only to file and shm pools");
            }
            if (readOnly && overwrite) {
                throw new InvalidSpecException("readOnly and overwrite are both true; a read-only pool cannot be "
                        + "created over an existing one");
            }
            return new PoolSpec(this, extent);
        }

        private long defaultExtentSize() {
            long pow2 = Long.highestOneBit(capacity);
            if (pow2 < capacity) {
                pow2 <<= 1;
            }
            return Math.max(chunkSize, Math.min(MAX_EXTENT_SIZE, pow2));
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PoolSpec)) {
            return false;
        }
        PoolSpec s = (PoolSpec) o;
        return kind == s.kind && Objects.equals(path, s.path) && Objects.equals(shmName, s.shmName)
                && chunkSize == s.chunkSize && capacity == s.capacity && initialSize == s.initialSize
                && extentSize == s.extentSize && readOnly == s.readOnly && overwrite == s.overwrite
                && maxNamedSegments == s.maxNamedSegments;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, path, shmName, chunkSize, capacity, initialSize, extentSize, readOnly, overwrite,
                maxNamedSegments);
    }
}
