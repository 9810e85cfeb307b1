package dev.ferrite.internal.pool;

import dev.ferrite.internal.PoolFile;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The mapped bookkeeping of a pool file: the header and directory as one mapping, the chunk table
 * as mappings of at most {@value #TABLE_PIECE_ENTRIES} entries. Every access that other processes
 * may race with is volatile or a CAS (through {@link VarHandle}s, so no Unsafe is needed here).
 * Thread-safe as the memory is; the callers keep the protocols.
 */
public final class MetaRegion implements ProcessSlot.Memory {

    /** Chunk-table entries per mapping: 2^26, 512 MiB. */
    public static final int TABLE_PIECE_ENTRIES = 1 << 26;
    private static final int PIECE_SHIFT = 26;
    private static final int PIECE_MASK = TABLE_PIECE_ENTRIES - 1;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final MappedByteBuffer head;
    private final MappedByteBuffer[] table;

    /**
     * Maps the header, directory and chunk table of a pool file.
     *
     * @param file   the pool file, long enough for {@code layout.dataOffset()} unless it may grow
     * @param layout where everything is
     */
    public MetaRegion(PoolFile file, PoolLayout layout) {
        this.head = file.map(0, layout.chunkTableOffset());
        int total = layout.geometry().totalChunks;
        int pieces = (int) (((long) total + TABLE_PIECE_ENTRIES - 1) >>> PIECE_SHIFT);
        this.table = new MappedByteBuffer[pieces];
        for (int p = 0; p < pieces; p++) {
            long entries = Math.min(TABLE_PIECE_ENTRIES, total - ((long) p << PIECE_SHIFT));
            table[p] = file.map(layout.chunkTableOffset() + ((long) p << PIECE_SHIFT) * ChunkTableLayout.ENTRY_SIZE,
                    entries * ChunkTableLayout.ENTRY_SIZE);
        }
    }

    /** @return every mapping, for force and unmap */
    public List<MappedByteBuffer> mappings() {
        List<MappedByteBuffer> all = new ArrayList<>();
        all.add(head);
        all.addAll(List.of(table));
        return all;
    }

    // ---- header and directory ---------------------------------------------------------------

    /**
     * @param off offset in the file, below the chunk table
     * @return the int there, volatile
     */
    public int getIntVolatile(long off) {
        return (int) INT.getVolatile(head, (int) off);
    }

    /**
     * @param off offset in the file, below the chunk table
     * @param v   the value, written volatile
     */
    public void putIntVolatile(long off, int v) {
        INT.setVolatile(head, (int) off, v);
    }

    /**
     * @param off offset in the file, below the chunk table
     * @return the long there, volatile
     */
    @Override
    public long get(long off) {
        return getLongVolatile(off);
    }

    @Override
    public void put(long off, long value) {
        putLongVolatile(off, value);
    }

    @Override
    public boolean compareAndSet(long off, long expect, long update) {
        return compareAndSetLong(off, expect, update);
    }

    /**
     * @param off offset in the file, below the chunk table, a multiple of 8
     * @return the long there, read volatile
     */
    public long getLongVolatile(long off) {
        return (long) LONG.getVolatile(head, (int) off);
    }

    /**
     * @param off offset in the file, below the chunk table
     * @param v   the value, written volatile
     */
    public void putLongVolatile(long off, long v) {
        LONG.setVolatile(head, (int) off, v);
    }

    /**
     * @param off    offset in the file, below the chunk table
     * @param expect expected value
     * @param update new value
     * @return whether it was swapped
     */
    public boolean compareAndSetLong(long off, long expect, long update) {
        return LONG.compareAndSet(head, (int) off, expect, update);
    }

    /**
     * @param off   offset in the file, below the chunk table
     * @param delta the amount to add
     * @return the value before
     */
    public long getAndAddLong(long off, long delta) {
        return (long) LONG.getAndAdd(head, (int) off, delta);
    }

    /**
     * @param off   offset in the file, below the chunk table
     * @param delta the amount to add
     * @return the value before
     */
    public int getAndAddInt(long off, int delta) {
        return (int) INT.getAndAdd(head, (int) off, delta);
    }

    /**
     * @param off    offset in the file, below the chunk table
     * @param expect expected value
     * @param update new value
     * @return whether it was swapped
     */
    public boolean compareAndSetInt(long off, int expect, int update) {
        return INT.compareAndSet(head, (int) off, expect, update);
    }

    /**
     * @param off offset in the file, below the chunk table
     * @param dst destination
     */
    public void getBytes(long off, byte[] dst) {
        head.get((int) off, dst);
    }

    /**
     * @param off offset in the file, below the chunk table
     * @param src source
     */
    public void putBytes(long off, byte[] src) {
        head.put((int) off, src);
    }

    // ---- chunk table ------------------------------------------------------------------------

    private ByteBuffer piece(int chunk) {
        return table[chunk >>> PIECE_SHIFT];
    }

    private static int entry(int chunk, int field) {
        return ((chunk & PIECE_MASK) << 3) + field;
    }

    /**
     * @param chunk a chunk id in range
     * @return its NEXT link, volatile
     */
    public int next(int chunk) {
        return (int) INT.getVolatile(piece(chunk), entry(chunk, ChunkTableLayout.NEXT));
    }

    /**
     * @param chunk a chunk id in range
     * @param next  the link, written volatile
     */
    public void setNext(int chunk, int next) {
        INT.setVolatile(piece(chunk), entry(chunk, ChunkTableLayout.NEXT), next);
    }

    /**
     * @param chunk a chunk id in range
     * @return its OWNER code, volatile
     */
    public int owner(int chunk) {
        return (int) INT.getVolatile(piece(chunk), entry(chunk, ChunkTableLayout.OWNER));
    }

    /**
     * @param chunk a chunk id in range
     * @param owner the owner code, written volatile
     */
    public void setOwner(int chunk, int owner) {
        INT.setVolatile(piece(chunk), entry(chunk, ChunkTableLayout.OWNER), owner);
    }

    /**
     * @param chunk  a chunk id in range
     * @param expect the owner expected
     * @param update the new owner
     * @return whether it was swapped
     */
    public boolean compareAndSetOwner(int chunk, int expect, int update) {
        return INT.compareAndSet(piece(chunk), entry(chunk, ChunkTableLayout.OWNER), expect, update);
    }
}
