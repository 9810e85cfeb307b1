package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Copies a map of format version 2 (Ferrite 0.x before the bucket table) into a new map of the
 * current version, which this build reads: a version-2 map is refused by {@link FerriteMap}'s
 * builder with a message naming this class. The old map is only read.
 *
 * <p>From the command line: {@code java -cp ferrite-kv.jar:ferrite-api.jar:<a backend>.jar
 * dev.ferrite.kv.MapMigrate OLD_POOL_FILE NEW_POOL_FILE [MAP_NAME]} copies the map (named
 * {@code map} unless given) of a file-backed pool into a new pool file, with the same sections,
 * limits and recorded codecs, and prints how many entries it copied.
 */
public final class MapMigrate {

    private MapMigrate() {
    }

    /** The parts of the version-2 format the copy reads (docs of Ferrite 0.x, "Map, version 2"). */
    private static final class V2 {
        static final long MAP_MAGIC = 0x3150414D52524546L;
        static final int VERSION = 8;
        static final int SECTIONS = 12;
        static final int MAX_KEY = 20;
        static final int MAX_VALUE = 24;
        static final int CODECS = 40;
        static final int CODECS_END = 124;
        static final int LINES = 4224;
        static final int LINE_SIZE = 64;
        static final int LINE_GENERATION = 8;
        static final int LINE_COUNT = 16;
        static final long SECTION_MAGIC = 0x3143455352524546L;
        static final int SLOTS = 20;
        static final int HEAP_START = 24;
        static final int HEAP_END = 32;
        static final int TABLE = 384;
        static final long OFFSET_MASK = (1L << 48) - 1;
        static final long TOMBSTONE = 1;
    }

    /**
     * Copies every intact entry of a version-2 map into {@code target} (a put per entry; entries
     * whose checksum fails are skipped).
     *
     * @param source  the pool holding the old map (may be opened read-only)
     * @param mapName the old map's name in that pool
     * @param target  the map to copy into, as raw bytes
     * @return entries copied
     * @throws CorruptFileException if {@code mapName} is not a version-2 map, naming what is wrong
     */
    public static long copy(ChunkPool source, String mapName, FerriteMap<byte[], byte[]> target) {
        long copied = 0;
        try (Segment h = openHeader(source, mapName)) {
            int sections = h.getInt(V2.SECTIONS);
            for (int s = 0; s < sections; s++) {
                long generation = h.getLong(V2.LINES + (long) s * V2.LINE_SIZE + V2.LINE_GENERATION);
                String name = mapName + "." + s + "." + generation;
                try (Segment seg = source.open(name).orElseThrow(() ->
                        new CorruptFileException("map '" + mapName + "' has no segment '" + name + "'"))) {
                    copied += copySection(seg, name, target);
                }
            }
        }
        return copied;
    }

    private static Segment openHeader(ChunkPool source, String mapName) {
        Segment h = source.open(mapName).orElseThrow(() ->
                new CorruptFileException("the pool has no map named '" + mapName + "'"));
        if (h.getLong(0) != V2.MAP_MAGIC || h.getInt(V2.VERSION) != 2) {
            h.close();
            throw new CorruptFileException("'" + mapName + "' is not a map of format version 2 (magic 0x"
                    + Long.toHexString(h.getLong(0)) + ", version " + h.getInt(V2.VERSION) + ")");
        }
        return h;
    }

    private static long copySection(Segment seg, String name, FerriteMap<byte[], byte[]> target) {
        if (seg.getLong(0) != V2.SECTION_MAGIC) {
            throw new CorruptFileException("segment '" + name + "' is not a version-2 map section");
        }
        int slots = seg.getInt(V2.SLOTS);
        long heapStart = seg.getLong(V2.HEAP_START);
        long heapEnd = Math.min(seg.getLong(V2.HEAP_END), seg.size());
        long copied = 0;
        for (int i = 0; i < slots && V2.TABLE + 8L * i < heapStart; i++) {
            long w = seg.getLong(V2.TABLE + 8L * i);
            long off = w & V2.OFFSET_MASK;
            if (w == 0 || w == V2.TOMBSTONE || off < heapStart || off + EntryLayout.HEADER > heapEnd) {
                continue;
            }
            int k = seg.getInt(off + EntryLayout.KEY_LENGTH);
            int vl = seg.getInt(off + EntryLayout.VALUE_LENGTH);
            if (k < 0 || vl < 0 || off + EntryLayout.KEY + (long) k + vl > heapEnd
                    || (int) seg.hash64(off + EntryLayout.KEY_LENGTH, EntryLayout.checkedLength(k, vl)) != seg.getInt(off)) {
                continue;
            }
            byte[] key = new byte[k];
            byte[] value = new byte[vl];
            seg.copyTo(off + EntryLayout.KEY, key, 0, k);
            seg.copyTo(off + EntryLayout.KEY + k, value, 0, vl);
            target.put(key, value);
            copied++;
        }
        return copied;
    }

    /**
     * Makes a new map in a new pool file from a version-2 map in a file-backed pool: same sections,
     * limits and recorded codecs, sized for its entries.
     *
     * @param oldPool the old pool file (opened read-only)
     * @param newPool the new pool file (must not exist)
     * @param mapName the map's name in the old pool ({@code map} for a map a builder made with {@code file})
     * @return entries copied
     * @throws CorruptFileException if the old pool holds no version-2 map of that name, naming what is wrong
     * @throws FerriteException if the new pool file exists, or a pool cannot be opened or made
     */
    public static long migrate(Path oldPool, Path newPool, String mapName) {
        if (Files.exists(newPool)) {
            throw new FerriteException("the new pool file " + newPool + " exists already; migrate writes a new one");
        }
        try (ChunkPool source = Ferrite.backend().openPool(PoolSpec.file(oldPool).readOnly(true).build());
             Segment h = openHeader(source, mapName)) {
            long entries = 0;
            int sections = h.getInt(V2.SECTIONS);
            for (int s = 0; s < sections; s++) {
                entries += Math.max(0, h.getLong(V2.LINES + (long) s * V2.LINE_SIZE + V2.LINE_COUNT));
            }
            byte[] codecs = new byte[V2.CODECS_END - V2.CODECS];
            h.copyTo(V2.CODECS, codecs, 0, codecs.length);
            long copied;
            try (FerriteMap<byte[], byte[]> target = FerriteMap.builder(Codec.bytes(), Codec.bytes()).file(newPool).name(mapName)
                    .sections(sections).expectedEntries(Math.max(1, entries))
                    .maxKeySize(h.getInt(V2.MAX_KEY)).maxValueSize(h.getInt(V2.MAX_VALUE)).create()) {
                copied = copy(source, mapName, target);
                try (Segment nh = target.store().pool.open(mapName).orElseThrow()) {
                    nh.copyFrom(codecs, 0, MapLayout.KEY_CODEC_HASH, codecs.length); // the codecs the old map recorded
                }
            }
            return copied;
        }
    }

    /**
     * Runs {@link #migrate}: {@code OLD_POOL_FILE NEW_POOL_FILE [MAP_NAME]}.
     *
     * @param args the two pool files and, optionally, the map's name
     */
    public static void main(String[] args) {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: MapMigrate OLD_POOL_FILE NEW_POOL_FILE [MAP_NAME]");
            System.exit(2);
        }
        long copied = migrate(Path.of(args[0]), Path.of(args[1]), args.length == 3 ? args[2] : "map");
        System.out.println("copied " + copied + " entries into " + args[1]);
    }
}
