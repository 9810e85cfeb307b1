package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.PoolHeaderLayout.*;

import dev.ferrite.CorruptFileException;
import dev.ferrite.PoolSpec;
import dev.ferrite.internal.PoolGeometry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Where everything is in a pool file: the geometry, and the offsets of the directory, the chunk
 * table and the data, derived from it. Written to a new header by {@link #writeGeometry}; read
 * back and checked field by field by {@link #read}, which throws {@link CorruptFileException}
 * naming the field, the value and the limit before anything is mapped. Immutable.
 */
public final class PoolLayout {

    /** Alignment of the data region in the file: 64 KiB, a multiple of every page size in use. */
    public static final long DATA_ALIGNMENT = 1L << 16;
    /** Most directory slots a pool may have. */
    public static final int MAX_DIRECTORY_SLOTS = 1 << 16;

    private final PoolGeometry geometry;
    private final int directorySlots;
    private final long chunkTableOffset;
    private final long dataOffset;

    private PoolLayout(PoolGeometry geometry, int directorySlots) {
        this.geometry = geometry;
        this.directorySlots = directorySlots;
        this.chunkTableOffset = roundUp(HEADER_SIZE + (long) directorySlots * DirectoryLayout.SLOT_SIZE, 4096);
        this.dataOffset = roundUp(chunkTableOffset + (long) geometry.totalChunks * ChunkTableLayout.ENTRY_SIZE,
                DATA_ALIGNMENT);
    }

    /**
     * @param spec a validated spec
     * @return the layout of a new pool made from it
     */
    public static PoolLayout of(PoolSpec spec) {
        return new PoolLayout(new PoolGeometry(spec), spec.maxNamedSegments());
    }

    private static long roundUp(long v, long alignment) {
        return (v + alignment - 1) & -alignment;
    }

    /** @return the chunk and extent arithmetic */
    public PoolGeometry geometry() {
        return geometry;
    }

    /** @return directory slots: the most named segments the pool can hold */
    public int directorySlots() {
        return directorySlots;
    }

    /** @return file offset of the directory */
    public long directoryOffset() {
        return HEADER_SIZE;
    }

    /** @return file offset of the chunk table */
    public long chunkTableOffset() {
        return chunkTableOffset;
    }

    /** @return file offset of extent 0 */
    public long dataOffset() {
        return dataOffset;
    }

    /**
     * @param extents extents obtained
     * @return the least file length that holds them
     */
    public long requiredLength(int extents) {
        if (extents == 0) {
            return dataOffset;
        }
        return dataOffset + (long) (extents - 1) * geometry.extentSize + geometry.extentBytes(extents - 1);
    }

    /**
     * Writes the geometry fields [0, 88) and their CRC into a zeroed header.
     *
     * @param header        little-endian buffer over the header, position-independent
     * @param createdMillis creation time
     */
    public void writeGeometry(ByteBuffer header, long createdMillis) {
        header.putLong(MAGIC_OFFSET, MAGIC);
        header.putInt(VERSION_OFFSET, VERSION);
        header.putInt(HEADER_SIZE_OFFSET, HEADER_SIZE);
        header.putLong(CHUNK_SIZE_OFFSET, geometry.chunkSize);
        header.putLong(CAPACITY_OFFSET, geometry.capacity);
        header.putLong(EXTENT_SIZE_OFFSET, geometry.extentSize);
        header.putInt(TOTAL_CHUNKS_OFFSET, geometry.totalChunks);
        header.putInt(MAX_OWNERS_OFFSET, MAX_OWNERS);
        header.putInt(DIRECTORY_SLOTS_OFFSET, directorySlots);
        header.putInt(DIRECTORY_SLOT_SIZE_OFFSET, DirectoryLayout.SLOT_SIZE);
        header.putLong(DIRECTORY_OFFSET_OFFSET, HEADER_SIZE);
        header.putLong(CHUNK_TABLE_OFFSET_OFFSET, chunkTableOffset);
        header.putLong(DATA_OFFSET_OFFSET, dataOffset);
        header.putLong(CREATED_MILLIS_OFFSET, createdMillis);
        header.putInt(GEOMETRY_CRC_OFFSET, geometryCrc(header));
    }

    private static int geometryCrc(ByteBuffer header) {
        CRC32C crc = new CRC32C();
        crc.update(header.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(0).limit(GEOMETRY_CRC_OFFSET));
        return (int) crc.getValue();
    }

    /**
     * Reads and checks a header. Every field is range-checked before it is used, and the geometry
     * must match its CRC and the offsets derived from it.
     *
     * @param header     the first {@value PoolHeaderLayout#HEADER_SIZE} bytes of the file (or fewer
     *                   if the file is shorter), little-endian
     * @param fileLength the file's length in bytes
     * @param where      the file, for messages
     * @return the layout
     * @throws CorruptFileException naming the field, its value and the limit it breaks
     */
    public static PoolLayout read(ByteBuffer header, long fileLength, String where) {
        if (fileLength < HEADER_SIZE) {
            throw corrupt(where, "file length", fileLength, "at least " + HEADER_SIZE + " bytes for the header (truncated?)");
        }
        long magic = header.getLong(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw corrupt(where, "magic", "0x" + Long.toHexString(magic), "0x" + Long.toHexString(MAGIC)
                    + " (\"FERRPOOL\"): not a Ferrite pool");
        }
        int version = header.getInt(VERSION_OFFSET);
        if (version != VERSION) {
            throw corrupt(where, "version", version, VERSION + ", the only version this Ferrite reads");
        }
        expect(where, "header size", header.getInt(HEADER_SIZE_OFFSET), HEADER_SIZE);
        long chunkSize = header.getLong(CHUNK_SIZE_OFFSET);
        if (chunkSize < PoolSpec.MIN_CHUNK_SIZE || chunkSize > PoolSpec.MAX_CHUNK_SIZE || Long.bitCount(chunkSize) != 1) {
            throw corrupt(where, "chunk size", chunkSize, "a power of two in [" + PoolSpec.MIN_CHUNK_SIZE + ", "
                    + PoolSpec.MAX_CHUNK_SIZE + "]");
        }
        long capacity = header.getLong(CAPACITY_OFFSET);
        if (capacity <= 0 || capacity > PoolSpec.MAX_CAPACITY || capacity % chunkSize != 0
                || capacity / chunkSize > PoolSpec.MAX_CHUNKS) {
            throw corrupt(where, "capacity", capacity, "a positive multiple of the chunk size " + chunkSize
                    + " of at most " + PoolSpec.MAX_CHUNKS + " chunks");
        }
        long extentSize = header.getLong(EXTENT_SIZE_OFFSET);
        if (extentSize < chunkSize || extentSize > PoolSpec.MAX_EXTENT_SIZE || Long.bitCount(extentSize) != 1) {
            throw corrupt(where, "extent size", extentSize, "a power of two in [chunk size " + chunkSize + ", "
                    + PoolSpec.MAX_EXTENT_SIZE + "]");
        }
        expect(where, "total chunks", header.getInt(TOTAL_CHUNKS_OFFSET), (int) (capacity / chunkSize));
        expect(where, "max owners", header.getInt(MAX_OWNERS_OFFSET), MAX_OWNERS);
        int slots = header.getInt(DIRECTORY_SLOTS_OFFSET);
        if (slots < 0 || slots > MAX_DIRECTORY_SLOTS) {
            throw corrupt(where, "directory slots", slots, "[0, " + MAX_DIRECTORY_SLOTS + "]");
        }
        expect(where, "directory slot size", header.getInt(DIRECTORY_SLOT_SIZE_OFFSET), DirectoryLayout.SLOT_SIZE);
        PoolLayout layout = new PoolLayout(new PoolGeometry(chunkSize, capacity, extentSize), slots);
        expect(where, "directory offset", header.getLong(DIRECTORY_OFFSET_OFFSET), HEADER_SIZE);
        expect(where, "chunk table offset", header.getLong(CHUNK_TABLE_OFFSET_OFFSET), layout.chunkTableOffset);
        expect(where, "data offset", header.getLong(DATA_OFFSET_OFFSET), layout.dataOffset);
        int crc = header.getInt(GEOMETRY_CRC_OFFSET);
        int computed = geometryCrc(header);
        if (crc != computed) {
            throw corrupt(where, "geometry CRC", "0x" + Integer.toHexString(crc), "0x" + Integer.toHexString(computed)
                    + ", the CRC-32C of header bytes [0, " + GEOMETRY_CRC_OFFSET + ")");
        }
        if (fileLength < layout.dataOffset) {
            throw corrupt(where, "file length", fileLength, "at least the data offset " + layout.dataOffset
                    + " (truncated?)");
        }
        int extents = header.getInt(OBTAINED_EXTENTS_OFFSET);
        if (extents < 0 || extents > layout.geometry.extentCount) {
            throw corrupt(where, "obtained extents", extents, "[0, " + layout.geometry.extentCount + "]");
        }
        if (fileLength < layout.requiredLength(extents)) {
            throw corrupt(where, "file length", fileLength, "at least " + layout.requiredLength(extents) + " for "
                    + extents + " obtained extents (truncated?)");
        }
        int state = header.getInt(STATE_OFFSET);
        if (state != STATE_CLEAN && state != STATE_OPEN) {
            throw corrupt(where, "state", state, STATE_CLEAN + " (clean) or " + STATE_OPEN + " (open)");
        }
        return layout;
    }

    private static void expect(String where, String field, long value, long expected) {
        if (value != expected) {
            throw corrupt(where, field, value, String.valueOf(expected));
        }
    }

    /**
     * @param where  the file
     * @param field  the field
     * @param value  what it holds
     * @param wanted what it must be
     * @return the exception naming them
     */
    public static CorruptFileException corrupt(String where, String field, Object value, String wanted) {
        return new CorruptFileException(where + ": " + field + " is " + value + "; it must be " + wanted);
    }
}
