package dev.ferrite.internal.pool;

import dev.ferrite.internal.PoolFile;
import dev.ferrite.internal.PoolGeometry;
import java.nio.MappedByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A pool file's data extents as one process sees them: their mappings (each mapped on its first
 * use), the next extent obtained when the free stack runs dry, and the file system's blocks
 * reserved before chunks reach a user, so a full file system is an exception and never a SIGBUS
 * on a write through a mapping. Growth and reservation take the meta lock. Thread-safe.
 */
final class DataExtents {

    private final PoolFile file;
    private final PoolLayout layout;
    private final PoolGeometry geometry;
    private final MetaRegion meta;
    private final ChunkLedger ledger;
    /** The pool's meta lock; null in a read-only pool, which neither grows nor reserves. */
    private final MetaLock lock;
    private final MappedByteBuffer[] mappings;

    DataExtents(PoolFile file, PoolLayout layout, MetaRegion meta, ChunkLedger ledger, MetaLock lock) {
        this.file = file;
        this.layout = layout;
        this.geometry = layout.geometry();
        this.meta = meta;
        this.ledger = ledger;
        this.lock = lock;
        this.mappings = new MappedByteBuffer[geometry.extentCount];
    }

    /**
     * @param chunk a chunk id of an obtained extent
     * @return the mapping of its extent in this process, mapped on first use
     */
    MappedByteBuffer extentOf(int chunk) {
        int e = chunk >>> geometry.chunksPerExtentShift;
        MappedByteBuffer m = mappings[e];
        return m != null ? m : map(e);
    }

    private synchronized MappedByteBuffer map(int e) {
        if (mappings[e] == null) {
            mappings[e] = file.map(layout.dataOffset() + e * geometry.extentSize, geometry.extentBytes(e));
        }
        return mappings[e];
    }

    /**
     * Obtains the next extent and offers its chunks, unless another claimant did since it saw
     * {@code seenExtents} of them.
     *
     * @param seenExtents the extents obtained when the caller found the free stack empty
     * @return whether there are more extents than that now; false if the pool is at its capacity
     */
    boolean grow(int seenExtents) {
        lock.lock();
        try {
            int n = ledger.obtainedExtents();
            if (n > seenExtents) {
                return true;
            }
            if (n >= geometry.extentCount) {
                return false;
            }
            // Grow the file first, then count the extent, then offer its chunks: a crash in
            // between leaves free chunks on no stack, which recovery puts back.
            file.ensureLength(layout.requiredLength(n + 1));
            int[] chain = ledger.linkExtent(n);
            ledger.setObtainedExtents(n + 1);
            ledger.pushChain(chain[0], chain[1]);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Before chunks reach their user: makes sure the file system holds their blocks. Chunks below
     * the pool's reserved count are; the count moves up (under the meta lock) over the chunks first
     * handed out. Nothing above the count is in any user's hands (every claimant reserves before
     * it returns), so the reservation may write zeros over it.
     *
     * @param ids chunks just claimed
     */
    void reserveBlocks(int[] ids) {
        long end = 0;
        for (int id : ids) {
            end = Math.max(end, ((long) id + 1) << geometry.chunkShift);
        }
        if (end <= reservedBytes()) {
            return;
        }
        lock.lock();
        try {
            long reserved = reservedBytes();
            if (end > reserved) {
                file.reserve(layout.dataOffset() + reserved, end - reserved, "chunks [" + (reserved >> geometry.chunkShift)
                        + ", " + (end >> geometry.chunkShift) + ")");
                meta.putLongVolatile(PoolHeaderLayout.RESERVED_OFFSET, PoolHeaderLayout.RESERVED_KNOWN | end);
            }
        } finally {
            lock.unlock();
        }
    }

    private long reservedBytes() {
        return meta.getLongVolatile(PoolHeaderLayout.RESERVED_OFFSET) & ~PoolHeaderLayout.RESERVED_KNOWN;
    }

    /** Flushes every extent mapped in this process to the file. */
    void force() {
        for (MappedByteBuffer m : mappings) {
            if (m != null) {
                m.force();
            }
        }
    }

    /** @return the extents mapped in this process so far */
    List<MappedByteBuffer> mapped() {
        List<MappedByteBuffer> all = new ArrayList<>();
        for (MappedByteBuffer m : mappings) {
            if (m != null) {
                all.add(m);
            }
        }
        return all;
    }
}
