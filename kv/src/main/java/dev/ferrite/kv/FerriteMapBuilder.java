package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.InvalidSpecException;
import dev.ferrite.PoolSpec;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Collects the settings of a {@link FerriteMap} and creates or opens it. Where the map lives: a
 * file ({@link #file}), a named shm pool ({@link #shm}), a segment name in a pool the caller
 * manages ({@link #pool}), or, by default, process-local memory. Sizes given here are hints that
 * shape a new map, never limits: a map grows section by section up to its pool's capacity. Not
 * thread-safe; made by {@link FerriteMap#builder}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class FerriteMapBuilder<K, V> {

    /** The map's name in a pool the builder makes. */
    public static final String DEFAULT_NAME = "map";
    /** Capacity of a pool the builder makes, unless {@link #capacity} says otherwise: 256 GiB (file pools are sparse). */
    public static final long DEFAULT_CAPACITY = 256L << 30;
    /** The longest key unless {@link #maxKeySize} says otherwise: 64 KiB. */
    public static final int DEFAULT_MAX_KEY = 64 << 10;
    /** The longest value unless {@link #maxValueSize} says otherwise: 64 MiB. */
    public static final int DEFAULT_MAX_VALUE = 64 << 20;
    /** Chunk size of a pool file the builder makes, unless set ({@link #chunkSize}). */
    static final long DEFAULT_FILE_CHUNK_SIZE = 64 << 10;
    /**
     * Chunk size of an shm or process-local pool the builder makes, unless set: larger than a
     * file's, as such a pool holds its bookkeeping (8 bytes a chunk of its capacity) in RAM.
     */
    static final long DEFAULT_MEMORY_CHUNK_SIZE = 256 << 10;
    /** Fewest sections a new map gets (unless its pool has too few names free). */
    static final int MIN_SECTIONS = 16;
    /** Most sections a new map gets. */
    static final int MAX_SECTIONS = 1024;
    /** Entries per section a new map is sized for. */
    static final long ENTRIES_PER_SECTION = 65_536;

    private final Codec<K> keyCodec;
    private final Codec<V> valueCodec;
    /** Chunk size of a pool the builder makes, or 0 for the pool's default. */
    private long chunkSize;
    private final PoolPlace place = new PoolPlace();
    private String name = DEFAULT_NAME;
    private long expectedEntries = 1024;
    private int sections;
    /** The load limit of a new map's sections, in thousandths. */
    private int loadLimit = MapLayout.DEFAULT_LOAD_LIMIT;
    /** The average key size a new map expects, or -1 for the default ({@link #keySize}). */
    private int averageKeySize = -1;
    /** The average value size a new map expects, or -1 for the default ({@link #valueSize}). */
    private int averageValueSize = -1;
    private int maxKeySize = DEFAULT_MAX_KEY;
    private int maxValueSize = DEFAULT_MAX_VALUE;
    private long capacity = DEFAULT_CAPACITY;
    private boolean readOnly;
    private boolean overwrite;
    private boolean verifyReads;

    FerriteMapBuilder(Codec<K> keyCodec, Codec<V> valueCodec) {
        this.keyCodec = keyCodec;
        this.valueCodec = valueCodec;
    }

    /**
     * Keeps the map in a pool file of its own (persistent; other processes open the same path).
     *
     * @param path the pool file
     * @return this builder
     */
    public FerriteMapBuilder<K, V> file(Path path) {
        place.file(path);
        return this;
    }

    /**
     * Keeps the map in an shm pool of its own, {@code /dev/shm/<name>} (RAM, shared by processes,
     * gone at reboot).
     *
     * @param shmName the pool's name
     * @return this builder
     */
    public FerriteMapBuilder<K, V> shm(String shmName) {
        place.shm(shmName);
        return this;
    }

    /**
     * Keeps the map under a name in a pool the caller made and closes (several maps may share a
     * pool under different names). The map uses the name and names beginning {@code name.}.
     *
     * @param chunkPool the pool
     * @param mapName   the map's name in it: 1 to 200 bytes of UTF-8, not ending in {@code .<number>.<number>}
     * @return this builder
     */
    public FerriteMapBuilder<K, V> pool(ChunkPool chunkPool, String mapName) {
        place.pool(chunkPool);
        this.name = Objects.requireNonNull(mapName, "mapName");
        return this;
    }

    /**
     * @param mapName the map's name in a pool the builder makes (default {@value #DEFAULT_NAME})
     * @return this builder
     */
    public FerriteMapBuilder<K, V> name(String mapName) {
        this.name = Objects.requireNonNull(mapName, "mapName");
        return this;
    }

    /**
     * @param backendName the backend of a pool the builder makes or opens, or null for the
     *                    configured default ({@code ferrite.backend})
     * @return this builder
     */
    public FerriteMapBuilder<K, V> backend(String backendName) {
        place.backend(backendName);
        return this;
    }

    /**
     * @param entries how many entries a new map should expect: sizes its index (a hint; the map
     *                grows past it)
     * @return this builder
     */
    public FerriteMapBuilder<K, V> expectedEntries(long entries) {
        if (entries < 0) {
            throw new InvalidSpecException("expectedEntries " + entries + " is negative");
        }
        this.expectedEntries = entries;
        return this;
    }

    /**
     * Sets how many sections a new map's index is split into, instead of the count derived from
     * {@link #expectedEntries} (one per 65,536 expected entries, at least 16 and at most 1024).
     * Each section has its own lock and grows on its own: growing copies one section while the
     * others keep serving, so more sections mean shorter stalls for the writers of a growing map
     * (a server's tail latency) and more writers at once, at the cost of at least one pool chunk
     * (of address space; a file pool's untouched pages cost no disk) per section. Used by
     * {@link #create()} only: an existing map keeps the count it was made with.
     *
     * @param count a power of two in [1, 1024]
     * @return this builder
     * @throws InvalidSpecException if {@code count} is not
     */
    public FerriteMapBuilder<K, V> sections(int count) {
        if (count < 1 || count > MAX_SECTIONS || Integer.bitCount(count) != 1) {
            throw new InvalidSpecException("sections " + count + " is not a power of two in [1, " + MAX_SECTIONS + "]");
        }
        this.sections = count;
        return this;
    }

    /**
     * Sets how full a new map's sections may get before they grow: the share of a section's buckets
     * in use (entries, and tombstones of removed ones) at which a new key rebuilds the section, with
     * buckets enough for its entries to fill 5/8 of it (1.6 times as many when none was removed).
     * The index is sized so that the expected entries stay below it. Higher packs the same entries
     * into fewer bytes, and makes probes longer: at a load of 0.8, 0.85 and 0.9 a present key is
     * found in 2.9, 3.6 and 4.8 buckets on average, an absent key's probe (which ends after its home
     * bucket's reach) reads 2.3, 2.9 and 4.5, and a new key's (to the first free bucket) 12, 20 and
     * 39. The map records it: every process that opens the map later uses it, whatever its builder
     * says.
     *
     * @param loadFactor from 0.5 to 0.9; default 0.85
     * @return this builder
     * @throws InvalidSpecException if {@code loadFactor} is outside [0.5, 0.9]
     */
    public FerriteMapBuilder<K, V> loadFactor(double loadFactor) {
        double least = (double) MapLayout.MIN_LOAD_LIMIT / MapLayout.LOAD_SCALE;
        double most = (double) MapLayout.MAX_LOAD_LIMIT / MapLayout.LOAD_SCALE;
        if (!(loadFactor >= least && loadFactor <= most)) {
            throw new InvalidSpecException("loadFactor " + loadFactor + " is outside [" + least + ", " + most + "]");
        }
        this.loadLimit = (int) Math.round(loadFactor * MapLayout.LOAD_SCALE);
        return this;
    }

    /**
     * @param bytes the average encoded key size a new map should expect (a hint; default 16, ignored
     *              for a key codec of a fixed size, whose size is used)
     * @return this builder
     */
    public FerriteMapBuilder<K, V> averageKeySize(int bytes) {
        if (bytes < 0) {
            throw new InvalidSpecException("averageKeySize " + bytes + " is negative");
        }
        this.averageKeySize = bytes;
        return this;
    }

    /**
     * @param bytes the average encoded value size a new map should expect (a hint; default 64,
     *              ignored for a value codec of a fixed size, whose size is used)
     * @return this builder
     */
    public FerriteMapBuilder<K, V> averageValueSize(int bytes) {
        if (bytes < 0) {
            throw new InvalidSpecException("averageValueSize " + bytes + " is negative");
        }
        this.averageValueSize = bytes;
        return this;
    }

    /**
     * @param bytes the longest encoded key a new map accepts, in [1, 2^30]; default 64 KiB
     * @return this builder
     */
    public FerriteMapBuilder<K, V> maxKeySize(int bytes) {
        if (bytes < 1 || bytes > 1 << 30) {
            throw new InvalidSpecException("maxKeySize " + bytes + " is outside [1, " + (1 << 30) + "]");
        }
        this.maxKeySize = bytes;
        return this;
    }

    /**
     * @param bytes the longest encoded value a new map accepts, in [0, 2^30]; default 64 MiB
     * @return this builder
     */
    public FerriteMapBuilder<K, V> maxValueSize(int bytes) {
        if (bytes < 0 || bytes > 1 << 30) {
            throw new InvalidSpecException("maxValueSize " + bytes + " is outside [0, " + (1 << 30) + "]");
        }
        this.maxValueSize = bytes;
        return this;
    }

    /**
     * @param bytes capacity of a pool the builder makes: the most memory the map can hold
     *              (default 256 GiB; file and shm pools are sparse, so only what is used costs)
     * @return this builder
     */
    public FerriteMapBuilder<K, V> capacity(long bytes) {
        this.capacity = bytes;
        return this;
    }

    /**
     * @param bytes chunk size of a pool the builder makes: a power of two from 4 KiB to 1 GiB
     *              (default 64 KiB for a pool file, 256 KiB for shm and process-local pools).
     *              Each section's segment is a whole number of chunks, its table taking what the
     *              rounding leaves, so smaller chunks keep a map's bytes near what its load factor
     *              asks (16-byte keys, 100-byte values, 10M entries in a file: 156 bytes an entry
     *              with 64 KiB chunks, 161 with 256 KiB), while the pool's bookkeeping grows with
     *              {@code capacity / bytes} (8 bytes a chunk, held in RAM for shm and
     *              process-local maps: 8 MiB at the default capacity with 256 KiB chunks).
     *              A map also touches the first page of each section's segment when it is made,
     *              and on a file system that reads ahead megabytes per page fault every touch can
     *              cost that much of a file pool's disk: smaller chunks keep those pages together
     * @return this builder
     * @throws InvalidSpecException if {@code bytes} is not a power of two from 4096 to 2^30
     */
    public FerriteMapBuilder<K, V> chunkSize(long bytes) {
        if (bytes < 4096 || bytes > (1L << 30) || Long.bitCount(bytes) != 1) {
            throw new InvalidSpecException("chunkSize " + bytes + " is not a power of two from 4096 to " + (1L << 30));
        }
        this.chunkSize = bytes;
        return this;
    }

    /**
     * Opens the map for reading only: it takes no client slot, writes nothing (writes throw
     * {@code UnsupportedOperationException}) and never waits for a writer.
     *
     * @return this builder
     */
    public FerriteMapBuilder<K, V> readOnly() {
        this.readOnly = true;
        return this;
    }

    /**
     * Whether every get and write checks each entry it meets against the entry's checksum
     * (default false). Without it an entry's checksum is checked when it matters: by
     * {@link FerriteMap#verify()}, by each rebuild and repair of a section, and by an open that
     * finds processes died with the map open; reads check an entry's lengths against the map's
     * limits either way, and never return a torn entry (the buckets' versions see to that). With it,
     * a read that meets damage (a disk or memory error, a file changed by a third party) skips the
     * entry and counts it in {@link MapStats#damagedReads()}, at the cost of an XXH64 pass over
     * each entry read.
     *
     * @param verify whether to check every entry read
     * @return this builder
     */
    public FerriteMapBuilder<K, V> verifyReads(boolean verify) {
        this.verifyReads = verify;
        return this;
    }

    /**
     * @param overwrite whether {@link #create()} replaces a map file or shm pool that already
     *                  exists at the place given (default false: creating over one is an error).
     *                  Has no effect on a map made in a pool of the caller's ({@link #pool}).
     * @return this builder
     */
    public FerriteMapBuilder<K, V> overwrite(boolean overwrite) {
        this.overwrite = overwrite;
        return this;
    }

    /**
     * Creates a new map.
     *
     * @return the open map
     * @throws FerriteException if the file, shm pool or name already exists (unless {@link #overwrite overwrite(true)}), or the pool cannot
     *                          hold the map
     */
    public FerriteMap<K, V> create() {
        if (readOnly) {
            throw new InvalidSpecException("a map cannot be created read-only");
        }
        if (place.callersPool() != null) {
            return new FerriteMap<>(keyCodec, valueCodec, MapStore.create(place.callersPool(), name, shape(place.callersPool()), keyCodec, valueCodec, verifyReads), null);
        }
        PoolSpec.Builder spec = place.spec().capacity(capacity).maxNamedSegments(2 * sectionCount() + 64);
        if (overwrite) {
            spec.overwrite(true);
        } else if (place.exists(name)) {
            throw new FerriteException("a map already exists at " + place.where() + "; open() it, or create with overwrite(true)");
        }
        spec.chunkSize(chunkSize > 0 ? chunkSize : place.inFile() ? DEFAULT_FILE_CHUNK_SIZE : DEFAULT_MEMORY_CHUNK_SIZE);
        ChunkPool made = place.backend().createPool(spec.build());
        try {
            return new FerriteMap<>(keyCodec, valueCodec, MapStore.create(made, name, shape(made), keyCodec, valueCodec, verifyReads), made);
        } catch (RuntimeException e) {
            made.close();
            if (made.spec().kind() != PoolSpec.Kind.ANONYMOUS) {
                place.backend().deletePool(made.spec());
            }
            throw e;
        }
    }

    /**
     * Opens an existing map. Takes milliseconds whatever its size (nothing is scanned); sections
     * that a dead process held locked are repaired (see {@link MapStats#repairedAtOpen()}).
     *
     * @return the open map
     * @throws FerriteException              if there is no such map (or pool)
     * @throws dev.ferrite.CorruptFileException naming the field if the map's header is damaged
     */
    public FerriteMap<K, V> open() {
        if (place.callersPool() != null) {
            return new FerriteMap<>(keyCodec, valueCodec, openIn(place.callersPool()), null);
        }
        if (!place.persistent()) {
            throw new FerriteException("a process-local map cannot be opened, only created: say file(...), shm(...) or pool(...)");
        }
        if (!place.exists(name)) {
            throw new FerriteException("no map at " + place.where() + "; create() makes one");
        }
        ChunkPool opened = place.backend().openPool(place.spec().readOnly(readOnly).build());
        try {
            return new FerriteMap<>(keyCodec, valueCodec, openIn(opened), opened);
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
    }

    /**
     * Opens the map if it exists, else creates it; safe when several processes race to do so (one
     * creates, the others open what it made).
     *
     * @return the open map
     */
    public FerriteMap<K, V> createOrOpen() {
        for (int attempt = 0; ; attempt++) {
            try {
                if (place.exists(name)) {
                    return open();
                }
                return create();
            } catch (FerriteException e) {
                // Another process created it between the check and the creation: open it.
                if (attempt >= 3 || !place.exists(name)) {
                    throw e;
                }
            }
        }
    }



    /** @return the map in a pool, its codecs checked against those it was made with */
    private MapStore openIn(ChunkPool p) {
        MapStore store = MapStore.open(p, name, readOnly, verifyReads)
                .orElseThrow(() -> new FerriteException("no map named '" + name + "' in " + p.spec().describe()));
        try {
            store.checkCodecs(keyCodec, valueCodec);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return store;
    }



    private static int sections(long entries) {
        long wanted = Math.max(MIN_SECTIONS, Math.min(MAX_SECTIONS, entries / ENTRIES_PER_SECTION));
        return Integer.highestOneBit((int) wanted * 2 - 1);
    }

    /** @return the section count a new map gets: the one set, else one derived from the expected entries */
    private int sectionCount() {
        return sections > 0 ? sections : sections(expectedEntries);
    }

    /** @return the key size a new map expects: the key codec's fixed size, else the hint, else 16 */
    private int keySize() {
        return keyCodec.fixedSize() >= 0 ? keyCodec.fixedSize() : averageKeySize >= 0 ? averageKeySize : 16;
    }

    /** @return the value size a new map expects: the value codec's fixed size, else the hint, else 64 */
    private int valueSize() {
        return valueCodec.fixedSize() >= 0 ? valueCodec.fixedSize() : averageValueSize >= 0 ? averageValueSize : 64;
    }

    private MapStore.Shape shape(ChunkPool p) {
        // A map takes one name for its header and, per section, two (a generation and the next).
        int freeNames = p.spec().maxNamedSegments() - p.segmentNames().size();
        int count = sectionCount();
        if (sections > 0 && 2 * count + 1 > freeNames) {
            throw new FerriteException(p.spec().describe() + " has " + Math.max(0, freeNames) + " free segment names;"
                    + " a map of " + count + " sections needs " + (2 * count + 1) + " (maxNamedSegments "
                    + p.spec().maxNamedSegments() + ")");
        }
        while (count > 1 && 2 * count + 1 > freeNames) {
            count >>= 1; // a count derived from a hint shrinks to what the pool can name
        }
        if (freeNames < 3) {
            throw new FerriteException(p.spec().describe() + " has " + Math.max(0, freeNames)
                    + " free segment names; a map needs at least 3 (maxNamedSegments " + p.spec().maxNamedSegments() + ")");
        }
        if (name.isEmpty() || name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 200
                || name.matches(".*\\.[0-9]+\\.[0-9]+")) {
            throw new InvalidSpecException("map name '" + name + "' must be 1 to 200 bytes of UTF-8 and not end in"
                    + " .<number>.<number> (the form of its section segments' names)");
        }
        long perSection = (expectedEntries + count - 1) / count;
        // At the load limit when the expected entries are in, with room for four standard
        // deviations of a section's share of them (a binomial count) so that no section grows.
        long share = perSection + 4 * (long) Math.ceil(Math.sqrt(perSection)) + 1;
        long buckets = Math.max(SectionLayout.MIN_BUCKETS, Math.min(SectionLayout.MAX_BUCKETS,
                MapLayout.bucketsForLoad(share, loadLimit)));
        int key = Math.min(keySize(), maxKeySize);
        int value = Math.min(valueSize(), maxValueSize);
        boolean exact = keyCodec.fixedSize() >= 0 && valueCodec.fixedSize() >= 0;
        int bucketSize = BucketLayout.sizeFor(key, value, exact);
        long heap = perSection * EntryLayout.size(key, value);
        if (bucketSize > BucketLayout.MIN_SIZE) {
            heap /= 64; // room for a few entries longer than the average, which do not fit their buckets
        }
        return new MapStore.Shape(count, (int) buckets, bucketSize, heap, maxKeySize, maxValueSize, loadLimit);
    }
}
