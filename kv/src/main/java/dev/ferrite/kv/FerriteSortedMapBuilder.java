package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.FerriteException;
import dev.ferrite.InvalidSpecException;
import dev.ferrite.PoolSpec;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Makes or opens a {@link FerriteSortedMap}: where it lives (a pool file, an shm pool, a pool of
 * the caller's, or nothing for a process-local map), its page size and the pool's limits. Not
 * thread-safe; a builder can make several maps.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class FerriteSortedMapBuilder<K, V> {

    /** The map's name in a pool the builder makes. */
    public static final String DEFAULT_NAME = "sorted";
    /** Bytes per page unless {@link #pageSize} says otherwise: 4 KiB (keys of up to 1,003 bytes). */
    public static final int DEFAULT_PAGE_SIZE = 4096;

    private final Codec<K> keyCodec;
    private final Codec<V> valueCodec;
    private final PoolPlace place = new PoolPlace();
    private String name = DEFAULT_NAME;
    private int pageSize = DEFAULT_PAGE_SIZE;
    private long capacity = FerriteMapBuilder.DEFAULT_CAPACITY;
    private boolean readOnly;
    private boolean overwrite;
    private Executor growth;

    FerriteSortedMapBuilder(Codec<K> keyCodec, Codec<V> valueCodec) {
        this.keyCodec = Objects.requireNonNull(keyCodec, "keyCodec");
        this.valueCodec = Objects.requireNonNull(valueCodec, "valueCodec");
        if (keyCodec == Codecs.LONG || keyCodec == Codecs.INT || keyCodec == Codecs.DOUBLE) {
            throw new FerriteException(keyCodec + " writes little-endian bytes, whose order is not the numbers' order;"
                    + " a sorted map orders keys by their bytes: use Codec.int64Ordered() (or a codec of your own)");
        }
    }

    /**
     * Keeps the map in a pool file of its own (persistent; other processes open the same path).
     *
     * @param path the pool file
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> file(Path path) {
        place.file(path);
        return this;
    }

    /**
     * Keeps the map in an shm pool of its own, {@code /dev/shm/<name>} (RAM, shared by processes).
     *
     * @param shmName the shm pool's name
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> shm(String shmName) {
        place.shm(shmName);
        return this;
    }

    /**
     * Keeps the map in a pool of the caller's, under a name (the pool stays the caller's to close).
     *
     * @param chunkPool the pool
     * @param mapName   the map's name in it; its pages take the names {@code <mapName>.x<n>}
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> pool(ChunkPool chunkPool, String mapName) {
        place.pool(chunkPool);
        return name(mapName);
    }

    /**
     * @param mapName the map's name in its pool, 1 to 200 bytes of UTF-8; default {@value #DEFAULT_NAME}
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> name(String mapName) {
        Objects.requireNonNull(mapName, "mapName");
        int bytes = mapName.getBytes(StandardCharsets.UTF_8).length;
        if (bytes < 1 || bytes > 200) {
            throw new InvalidSpecException("sorted map name '" + mapName + "' is " + bytes + " bytes of UTF-8; 1 to 200 are allowed");
        }
        this.name = mapName;
        return this;
    }

    /**
     * @param backendName the backend of a pool the builder makes or opens; default {@link Ferrite#backend()}
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> backend(String backendName) {
        place.backend(Objects.requireNonNull(backendName, "backendName"));
        return this;
    }

    /**
     * Bytes per page of a new map: a power of two from 4 KiB to 64 KiB. The longest key is a
     * {@code (pageSize - 16) / 4 - 17} bytes (1,003 at 4 KiB, 16,363 at 64 KiB); values of any length up
     * to 512 MiB go to pages of their own when their entry passes that quarter.
     *
     * @param bytes the page size
     * @return this builder
     * @throws InvalidSpecException if it is not a power of two in that range
     */
    public FerriteSortedMapBuilder<K, V> pageSize(int bytes) {
        if (bytes < SortedLayout.MIN_PAGE_SIZE || bytes > SortedLayout.MAX_PAGE_SIZE || Integer.bitCount(bytes) != 1) {
            throw new InvalidSpecException("page size " + bytes + " is not a power of two in ["
                    + SortedLayout.MIN_PAGE_SIZE + ", " + SortedLayout.MAX_PAGE_SIZE + "]");
        }
        this.pageSize = bytes;
        return this;
    }

    /**
     * @param bytes capacity of a pool the builder makes (file pools are sparse); default 256 GiB
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> capacity(long bytes) {
        if (bytes < 1 << 20) {
            throw new InvalidSpecException("capacity " + bytes + " is below the least, " + (1 << 20));
        }
        this.capacity = bytes;
        return this;
    }

    /**
     * Opens the map for reading only: writes throw {@code UnsupportedOperationException}, and
     * this process takes no client slot.
     *
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> readOnly() {
        this.readOnly = true;
        return this;
    }

    /**
     * Makes the map's memory ahead of need. The pool grows by extents that double up to 1 GiB, and
     * making one reserves its memory in the file system first: on a RAM file system ({@code
     * /dev/shm}, anonymous pools) by writing it, about 0.4 s a GiB on the machine of
     * BENCHMARKS.md. By default the write that needs the next extent makes it and waits that long;
     * with an executor, the next extent is made there once three quarters of the last one are in
     * use, and the write finds it made. The executor's tasks may block for that long; a rejected
     * task leaves the extent to be made when it is needed. At most one extent is made ahead, so the
     * pool holds up to one extent (at most 1 GiB) more than the map uses.
     *
     * @param executor where extents are made ahead, or null (the default) to make each when a
     *                 write needs it; ignored for a read-only map
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> growthExecutor(Executor executor) {
        this.growth = executor;
        return this;
    }

    /**
     * @param replace whether {@link #create()} replaces an existing pool file or shm pool
     * @return this builder
     */
    public FerriteSortedMapBuilder<K, V> overwrite(boolean replace) {
        this.overwrite = replace;
        return this;
    }

    /**
     * Creates a new, empty map.
     *
     * @return the open map
     * @throws FerriteException if the file, shm pool or name already exists (unless
     *                          {@link #overwrite overwrite(true)}), or the pool cannot hold the map
     */
    public FerriteSortedMap<K, V> create() {
        if (readOnly) {
            throw new InvalidSpecException("a map cannot be created read-only");
        }
        if (place.callersPool() != null) {
            if (place.callersPool().segmentNames().contains(name)) {
                throw new FerriteException("a segment named '" + name + "' already exists in " + place.callersPool().spec().describe());
            }
            return new FerriteSortedMap<>(SortedStore.create(place.callersPool(), name, pageSize, keyCodec, valueCodec, growth), keyCodec, valueCodec, null);
        }
        PoolSpec.Builder spec = place.spec().capacity(capacity).maxNamedSegments(256);
        if (overwrite) {
            spec.overwrite(true);
        } else if (place.exists(name)) {
            throw new FerriteException("a sorted map already exists at " + place.where() + "; open() it, or create with overwrite(true)");
        }
        ChunkPool made = place.backend().createPool(spec.build());
        try {
            return new FerriteSortedMap<>(SortedStore.create(made, name, pageSize, keyCodec, valueCodec, growth), keyCodec, valueCodec, made);
        } catch (RuntimeException e) {
            made.close();
            if (made.spec().kind() != PoolSpec.Kind.ANONYMOUS) {
                place.backend().deletePool(made.spec());
            }
            throw e;
        }
    }

    /**
     * Opens an existing map, in milliseconds whatever its size; a dead writer's lock is taken
     * over and the pages it held are found again.
     *
     * @return the open map
     * @throws FerriteException                 if there is no such map, or its codecs are not these
     * @throws dev.ferrite.CorruptFileException naming the field if its header is damaged
     */
    public FerriteSortedMap<K, V> open() {
        if (place.callersPool() != null) {
            return new FerriteSortedMap<>(openIn(place.callersPool()), keyCodec, valueCodec, null);
        }
        if (!place.persistent()) {
            throw new FerriteException("a process-local map cannot be opened, only created: say file(...), shm(...) or pool(...)");
        }
        if (!place.exists(name)) {
            throw new FerriteException("no sorted map at " + place.where() + "; create() makes one");
        }
        ChunkPool opened = place.backend().openPool(place.spec().readOnly(readOnly).build());
        try {
            return new FerriteSortedMap<>(openIn(opened), keyCodec, valueCodec, opened);
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
    }

    /**
     * Opens the map if it exists, else creates it; safe when several processes race to do so.
     *
     * @return the open map
     */
    public FerriteSortedMap<K, V> createOrOpen() {
        for (int attempt = 0; ; attempt++) {
            try {
                return place.exists(name) ? open() : create();
            } catch (FerriteException e) {
                if (attempt >= 3 || !place.exists(name)) {
                    throw e;
                }
            }
        }
    }

    private SortedStore openIn(ChunkPool p) {
        return SortedStore.open(p, name, readOnly, keyCodec, valueCodec, growth)
                .orElseThrow(() -> new FerriteException("no sorted map named '" + name + "' in " + p.spec().describe()));
    }




}
