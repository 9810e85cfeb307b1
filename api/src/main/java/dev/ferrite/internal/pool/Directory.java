package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.DirectoryLayout.*;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The directory of named segments in the mapped file. Every method is called with the pool's
 * meta lock held; the slot states and the order of writes keep the file consistent after a crash
 * at any point (see {@link DirectoryLayout}).
 */
final class Directory {

    private final MetaRegion meta;
    private final PoolLayout layout;
    private final String where;

    Directory(MetaRegion meta, PoolLayout layout, String where) {
        this.meta = meta;
        this.layout = layout;
        this.where = where;
    }

    int slots() {
        return layout.directorySlots();
    }

    private long at(int slot, int field) {
        return slotOffset(layout.directoryOffset(), slot) + field;
    }

    int state(int slot) {
        return meta.getIntVolatile(at(slot, STATE));
    }

    long generation(int slot) {
        return meta.getLongVolatile(at(slot, GENERATION));
    }

    long size(int slot) {
        return meta.getLongVolatile(at(slot, SIZE));
    }

    int firstChunk(int slot) {
        return meta.getIntVolatile(at(slot, FIRST_CHUNK));
    }

    int chunkCount(int slot) {
        return meta.getIntVolatile(at(slot, CHUNK_COUNT));
    }

    long openMask(int slot) {
        return meta.getLongVolatile(at(slot, OPEN_MASK));
    }

    void setOpenMask(int slot, long mask) {
        meta.putLongVolatile(at(slot, OPEN_MASK), mask);
    }

    /**
     * @param name a segment name
     * @return its UTF-8 bytes
     * @throws FerriteException if it is empty or longer than {@value DirectoryLayout#MAX_NAME_BYTES} bytes
     */
    static byte[] encode(String name) {
        if (name == null || name.isEmpty()) {
            throw new FerriteException("segment name is " + (name == null ? "null" : "empty") + "; give 1 to "
                    + MAX_NAME_BYTES + " bytes of UTF-8");
        }
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_NAME_BYTES) {
            throw new FerriteException("segment name '" + name.substring(0, 20) + "…' is " + bytes.length
                    + " bytes of UTF-8; the limit is " + MAX_NAME_BYTES);
        }
        return bytes;
    }

    /**
     * @param slot a slot whose name length has been checked
     * @return its name bytes
     */
    byte[] nameBytes(int slot) {
        int len = meta.getIntVolatile(at(slot, NAME_LENGTH));
        if (len < 1 || len > MAX_NAME_BYTES) {
            throw PoolLayout.corrupt(where, "directory slot " + slot + " name length", len, "[1, " + MAX_NAME_BYTES + "]");
        }
        byte[] b = new byte[len];
        meta.getBytes(at(slot, NAME), b);
        return b;
    }

    /**
     * @param slot a checked slot
     * @return its name
     */
    String name(int slot) {
        return new String(nameBytes(slot), StandardCharsets.UTF_8);
    }

    /**
     * @param name UTF-8 bytes of a name
     * @return the LIVE slot of that name, or -1
     */
    int findLive(byte[] name) {
        for (int s = 0; s < slots(); s++) {
            if (state(s) == STATE_LIVE && meta.getIntVolatile(at(s, NAME_LENGTH)) == name.length
                    && java.util.Arrays.equals(nameBytes(s), name)) {
                return s;
            }
        }
        return -1;
    }

    /** @return the names of the LIVE slots */
    List<String> liveNames() {
        List<String> names = new ArrayList<>();
        for (int s = 0; s < slots(); s++) {
            if (state(s) == STATE_LIVE) {
                names.add(name(s));
            }
        }
        return names;
    }

    /**
     * Takes an EMPTY slot for a segment being made: RESERVED, with the name written.
     *
     * @param name      UTF-8 name
     * @param ownerSlot the reserving process's owner slot
     * @return the slot
     * @throws FerriteException if every slot is in use
     */
    int reserve(byte[] name, int ownerSlot) {
        for (int s = 0; s < slots(); s++) {
            if (state(s) == STATE_EMPTY) {
                meta.putIntVolatile(at(s, CHANGED_BY), ownerSlot);
                meta.putIntVolatile(at(s, NAME_LENGTH), name.length);
                meta.putBytes(at(s, NAME), java.util.Arrays.copyOf(name, 256));
                meta.putLongVolatile(at(s, SIZE), 0);
                meta.putIntVolatile(at(s, FIRST_CHUNK), ChunkTableLayout.NIL);
                meta.putIntVolatile(at(s, CHUNK_COUNT), 0);
                meta.putLongVolatile(at(s, OPEN_MASK), 0);
                meta.putIntVolatile(at(s, STATE), STATE_RESERVED);
                return s;
            }
        }
        throw new FerriteException("the directory of " + where + " is full: " + slots()
                + " named segments; create the pool with a larger maxNamedSegments, or delete some");
    }

    /**
     * Makes a RESERVED slot LIVE: findable by name.
     *
     * @param slot       the slot
     * @param size       segment bytes
     * @param firstChunk first chunk of the chain, or -1
     * @param chunkCount chunks in the chain
     * @param openMask   processes with handles open
     */
    void publish(int slot, long size, int firstChunk, int chunkCount, long openMask) {
        meta.putLongVolatile(at(slot, SIZE), size);
        meta.putIntVolatile(at(slot, FIRST_CHUNK), firstChunk);
        meta.putIntVolatile(at(slot, CHUNK_COUNT), chunkCount);
        meta.putLongVolatile(at(slot, OPEN_MASK), openMask);
        meta.putIntVolatile(at(slot, CRC), crc(slot));
        meta.putIntVolatile(at(slot, STATE), STATE_LIVE);
    }

    /**
     * Moves a slot to another state, recording who did it.
     *
     * @param slot      the slot
     * @param state     the new state
     * @param ownerSlot the process's owner slot
     */
    void setState(int slot, int state, int ownerSlot) {
        meta.putIntVolatile(at(slot, CHANGED_BY), ownerSlot);
        meta.putIntVolatile(at(slot, STATE), state);
    }

    /**
     * Empties a slot whose chunks are all released; the generation moves on.
     *
     * @param slot the slot
     */
    void empty(int slot) {
        meta.putLongVolatile(at(slot, GENERATION), generation(slot) + 1);
        meta.putIntVolatile(at(slot, STATE), STATE_EMPTY);
    }

    private int crc(int slot) {
        CRC32C crc = new CRC32C();
        byte[] fixed = new byte[24];
        meta.getBytes(at(slot, GENERATION), fixed);
        crc.update(fixed);
        crc.update(nameBytes(slot));
        return (int) crc.getValue();
    }

    /**
     * Checks a LIVE or DELETING slot's fields against its CRC and the pool's limits.
     *
     * @param slot           the slot
     * @param obtainedChunks chunks obtained by the pool
     * @param chunkSize      bytes per chunk
     * @throws CorruptFileException naming the field
     */
    void check(int slot, int obtainedChunks, long chunkSize) {
        String field = "directory slot " + slot + " ";
        int len = meta.getIntVolatile(at(slot, NAME_LENGTH));
        if (len < 1 || len > MAX_NAME_BYTES) {
            throw PoolLayout.corrupt(where, field + "name length", len, "[1, " + MAX_NAME_BYTES + "]");
        }
        int stored = meta.getIntVolatile(at(slot, CRC));
        int computed = crc(slot);
        if (stored != computed) {
            throw PoolLayout.corrupt(where, field + "CRC", "0x" + Integer.toHexString(stored), "0x"
                    + Integer.toHexString(computed) + ", the CRC-32C of its fields and name");
        }
        int count = chunkCount(slot);
        if (count < 0 || count > obtainedChunks) {
            throw PoolLayout.corrupt(where, field + "chunk count", count, "[0, " + obtainedChunks + "]");
        }
        long size = size(slot);
        if (size < 0 || (size + chunkSize - 1) / chunkSize != count) {
            throw PoolLayout.corrupt(where, field + "size", size, "a size that needs exactly " + count + " chunks of "
                    + chunkSize + " bytes");
        }
        int first = firstChunk(slot);
        if (count == 0 ? first != ChunkTableLayout.NIL : first < 0 || first >= obtainedChunks) {
            throw PoolLayout.corrupt(where, field + "first chunk", first, count == 0 ? "-1 for an empty segment"
                    : "[0, " + obtainedChunks + ")");
        }
    }
}
