package dev.ferrite.kv;

import dev.ferrite.CorruptFileException;
import dev.ferrite.Segment;

import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;

/**
 * A map's header segment ({@link MapLayout}): written whole by the creator (fields, codecs, CRC,
 * then the magic), checked by every opener. Stateless.
 */
final class MapHeader {

    private MapHeader() {
    }

    /**
     * Writes a new map's header fields, the codecs' identities, the CRC and last the magic. Each
     * section line's generation must be written already.
     */
    static void write(Segment header, int sections, int maxKey, int maxValue, int loadLimit, Codec<?> keyCodec,
                      Codec<?> valueCodec) {
        header.putInt(MapLayout.VERSION, MapLayout.VERSION_VALUE);
        header.putInt(MapLayout.SECTIONS, sections);
        header.putInt(MapLayout.CLIENTS, MapLayout.CLIENT_COUNT);
        header.putInt(MapLayout.MAX_KEY, maxKey);
        header.putInt(MapLayout.MAX_VALUE, maxValue);
        header.putLong(MapLayout.CREATED_MILLIS, System.currentTimeMillis());
        MapCodecs.record(header, keyCodec, valueCodec);
        header.putInt(MapLayout.LOAD_LIMIT, loadLimit);
        header.putInt(MapLayout.CRC, mapCrc(header));
        header.putLongVolatile(MapLayout.MAGIC, MapLayout.MAGIC_VALUE);
    }

    /**
     * Checks a map header: its magic (waiting up to 2 s for one being created), version, CRC,
     * section count and limits. Reads no section.
     *
     * @param header the header segment
     * @param name   the map's name, for messages
     * @throws CorruptFileException naming the field if the header is not a map header of this version
     */
    static void validate(Segment header, String name) {
        String where = "map '" + name + "' in " + header.pool().spec().describe();
        if (header.size() < MapLayout.headerSize(1)) {
            throw new CorruptFileException(where + ": header segment of " + header.size()
                    + " bytes is shorter than the least, " + MapLayout.headerSize(1));
        }
        long magic = header.getLongVolatile(MapLayout.MAGIC);
        for (int waited = 0; magic == 0 && waited < 200; waited++) {
            // Another process may be creating it this moment: its magic comes last.
            LockSupport.parkNanos(10_000_000);
            magic = header.getLongVolatile(MapLayout.MAGIC);
        }
        if (magic != MapLayout.MAGIC_VALUE) {
            throw new CorruptFileException(where + ": magic 0x" + Long.toHexString(magic) + " is not 0x"
                    + Long.toHexString(MapLayout.MAGIC_VALUE) + (magic == 0
                    ? " (its creation never finished: delete the segment '" + name + "' to start again)" : ""));
        }
        int version = header.getInt(MapLayout.VERSION);
        if (version != MapLayout.VERSION_VALUE && version != MapLayout.VERSION_WITHOUT_REACH) {
            throw new CorruptFileException(where + ": format version " + version + " is not "
                    + MapLayout.VERSION_WITHOUT_REACH + " or " + MapLayout.VERSION_VALUE + ", the ones this build reads" + (version == 2
                    ? "; copy it into a new map with dev.ferrite.kv.MapMigrate (OLD_POOL_FILE NEW_POOL_FILE [MAP_NAME])" : ""));
        }
        int crc = header.getInt(MapLayout.CRC);
        if (crc != mapCrc(header)) {
            throw new CorruptFileException(where + ": header CRC 0x" + Integer.toHexString(crc)
                    + " does not match its bytes (0x" + Integer.toHexString(mapCrc(header)) + ")");
        }
        int sections = header.getInt(MapLayout.SECTIONS);
        if (sections < 1 || sections > MapLayout.MAX_SECTIONS || Integer.bitCount(sections) != 1) {
            throw new CorruptFileException(where + ": section count " + sections
                    + " is not a power of two in [1, " + MapLayout.MAX_SECTIONS + "]");
        }
        if (header.size() < MapLayout.headerSize(sections)) {
            throw new CorruptFileException(where + ": header segment of " + header.size()
                    + " bytes cannot hold " + sections + " sections (" + MapLayout.headerSize(sections) + ")");
        }
        int clients = header.getInt(MapLayout.CLIENTS);
        if (clients != MapLayout.CLIENT_COUNT) {
            throw new CorruptFileException(where + ": client slot count " + clients + " is not " + MapLayout.CLIENT_COUNT);
        }
        if (header.getInt(MapLayout.MAX_KEY) < 1 || header.getInt(MapLayout.MAX_VALUE) < 0) {
            throw new CorruptFileException(where + ": size limits key " + header.getInt(MapLayout.MAX_KEY)
                    + ", value " + header.getInt(MapLayout.MAX_VALUE) + " are not positive");
        }
        int load = header.getInt(MapLayout.LOAD_LIMIT);
        if (load != 0 && (load < MapLayout.MIN_LOAD_LIMIT || load > MapLayout.MAX_LOAD_LIMIT)) {
            throw new CorruptFileException(where + ": load limit " + load + " thousandths is outside ["
                    + MapLayout.MIN_LOAD_LIMIT + ", " + MapLayout.MAX_LOAD_LIMIT + "]");
        }
    }

    /** @return the sections' load limit in thousandths ({@link MapLayout#LOAD_LIMIT}) of a validated header */
    static int loadLimit(Segment header) {
        int load = header.getInt(MapLayout.LOAD_LIMIT);
        return load == 0 ? MapLayout.UNRECORDED_LOAD_LIMIT : load;
    }

    /** @return CRC-32C of a header's fixed fields: bytes [8, 28) and [32, 40) (a sorted map's header CRC) */
    static int crc(Segment header) {
        return crc(header, false);
    }

    /**
     * @return a map header's CRC: as {@link #crc(Segment)}, then over bytes [124, 128) if they are
     *         not 0 (a map made before the load limit was recorded has 0 there)
     */
    static int mapCrc(Segment header) {
        return crc(header, header.getInt(MapLayout.LOAD_LIMIT) != 0);
    }

    private static int crc(Segment header, boolean withLoadLimit) {
        byte[] b = new byte[MapLayout.CLIENTS_OFFSET];
        header.copyTo(0, b, 0, b.length);
        CRC32C c = new CRC32C();
        c.update(b, MapLayout.VERSION, MapLayout.CRC - MapLayout.VERSION);
        c.update(b, MapLayout.CREATED_MILLIS, 8);
        if (withLoadLimit) {
            c.update(b, MapLayout.LOAD_LIMIT, 4);
        }
        return (int) c.getValue();
    }
}
