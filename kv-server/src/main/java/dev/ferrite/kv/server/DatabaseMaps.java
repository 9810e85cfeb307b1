package dev.ferrite.kv.server;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.FerriteMapBuilder;

import java.nio.file.Path;

/**
 * How every process that holds a database's file makes, opens and closes its map (the server's
 * {@link Databases} and the in-process door's {@link DatabaseFile}): one shape of map (raw keys
 * to {@link ValueLayout stored values}, {@link #SECTIONS} sections, {@link #CHUNK_SIZE} chunks),
 * each over a pool of its own that is closed with it. Stateless.
 */
final class DatabaseMaps {

    /**
     * Sections of a new database's map. A map grows section by section, and the event loop that
     * runs a write waits while its section grows: with 256 sections a step copies a 256th of the
     * keys, where the map's own default for a size it is not told (16 sections) copies a 16th.
     * Measured inserting 5M keys of 20 B with 100 B values into a file map in-process: the longest
     * put 35-40 ms instead of 125 ms, all puts 5.5-5.7 s instead of 7.4-8.5 s.
     */
    static final int SECTIONS = 256;

    /**
     * Chunk size of a database's pool. A new map writes the first page of each section, and Linux
     * reads ahead around a page fault of a mapped file: on ext4 with 8 MiB read-ahead, writeback
     * then allocates the whole large folio read around each written page. With 64 KiB chunks the
     * 256 sections start in 16 MiB and an empty database costs about 7 MB of disk; with 1 MiB
     * chunks it cost 227 MB.
     */
    static final long CHUNK_SIZE = 64 << 10;

    private DatabaseMaps() {
    }

    /**
     * Makes an empty database's map in {@code file} and flushes it to the disk, so that a rename
     * publishes it whole; the map is closed again.
     *
     * @param backend the Ferrite backend, or null for the default
     * @throws dev.ferrite.FerriteException if the file exists or cannot be made
     */
    static void makeEmpty(Path file, String backend) {
        var b = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(file).sections(SECTIONS).chunkSize(CHUNK_SIZE);
        try (FerriteMap<byte[], byte[]> map = (backend == null ? b : b.backend(backend)).create()) {
            map.force();
        }
    }

    /**
     * Opens a database's map over a pool of the caller's own, which {@link #close} closes after
     * the map: called when no command uses the map, that unmaps its memory at once, and a dropped
     * database's deleted file gives its disk back then (a map closing a pool it made itself leaves
     * the memory mapped until the collector runs, for threads that may still be reading it).
     *
     * @param backend the Ferrite backend, or null for the default
     * @return the open map
     * @throws dev.ferrite.FerriteException if the file holds no map of this shape, or is damaged past repair
     */
    static FerriteMap<byte[], byte[]> open(Path file, String backend) {
        ChunkPool pool = (backend == null ? Ferrite.backend() : Ferrite.backend(backend)).openPool(PoolSpec.file(file).build());
        try {
            return FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, FerriteMapBuilder.DEFAULT_NAME).open();
        } catch (RuntimeException | Error e) {
            pool.close();
            throw e;
        }
    }

    /** Closes a map {@link #open} opened, then its pool; no command may be using it. */
    static void close(FerriteMap<byte[], byte[]> map) {
        try {
            map.close();
        } finally {
            map.pool().close();
        }
    }
}
