package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.ChunkTableLayout.NIL;
import static dev.ferrite.internal.pool.DirectoryLayout.STATE_DELETING;
import static dev.ferrite.internal.pool.DirectoryLayout.STATE_LIVE;
import static dev.ferrite.internal.pool.DirectoryLayout.STATE_RESERVED;
import static dev.ferrite.internal.pool.PoolHeaderLayout.MAX_OWNERS;

import dev.ferrite.CorruptFileException;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolExhaustedException;
import dev.ferrite.internal.PoolGeometry;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A pool's named segments: making, opening, closing and deleting them in the file's directory,
 * their chunks claimed from and given back to the pool's store under the directory slot's owner
 * code. A segment deleted while other processes hold it is torn down by the last one to close it
 * (the directory records which owner slots hold it). Every method is called holding the pool's
 * meta lock ({@link PoolStore#withLock}); {@link #open} and {@link #names} also read-only, where
 * no lock is taken.
 */
public final class NamedSegments {

    private final PoolStore store;
    private final MetaRegion meta;
    private final Directory directory;
    private final ChunkLedger ledger;
    private final OwnerTable owners;
    private final PoolGeometry geometry;
    /** This process's owner slot, -1 if read-only. */
    private final int slot;
    private final boolean readOnly;
    private final String where;

    NamedSegments(PoolStore store, MetaRegion meta, Directory directory, ChunkLedger ledger, OwnerTable owners, int slot,
            String where) {
        this.store = store;
        this.meta = meta;
        this.directory = directory;
        this.ledger = ledger;
        this.owners = owners;
        this.geometry = store.layout().geometry();
        this.slot = slot;
        this.readOnly = slot < 0;
        this.where = where;
    }

    /**
     * A named segment as this process sees it.
     *
     * @param slot       directory slot
     * @param generation the slot's generation, to tell a later reuse of the slot
     * @param name       the name
     * @param size       bytes
     * @param chunks     chunk ids in segment order
     */
    public record Named(int slot, long generation, String name, long size, int[] chunks) {
    }

    /**
     * Makes a named segment, opened by this process. Caller holds the lock.
     *
     * @param name the name
     * @param size bytes
     * @return the segment
     * @throws FerriteException       if the name is taken or the directory is full
     * @throws PoolExhaustedException if chunks are short; nothing is left behind
     */
    public Named allocate(String name, long size) {
        byte[] bytes = Directory.encode(name);
        if (directory.findLive(bytes) >= 0) {
            throw new FerriteException("segment '" + name + "' already exists in " + where
                    + "; open it, or delete it first");
        }
        int d = directory.reserve(bytes, slot);
        int count = (int) geometry.chunksFor(size);
        int[] ids;
        try {
            ids = store.claim(count, ChunkTableLayout.directoryOwner(d));
        } catch (RuntimeException e) {
            directory.empty(d);
            throw e;
        }
        for (int i = 0; i < count; i++) {
            meta.setNext(ids[i], i + 1 < count ? ids[i + 1] : NIL);
        }
        directory.publish(d, size, count == 0 ? NIL : ids[0], count, 1L << slot);
        return new Named(d, directory.generation(d), name, size, ids);
    }

    /**
     * Opens a named segment for this process and records that it holds it. Caller holds the lock.
     *
     * @param name the name
     * @return the segment, or null if no live segment has the name
     * @throws CorruptFileException if its directory entry or chain is unsound
     */
    public Named open(String name) {
        int d = directory.findLive(Directory.encode(name));
        if (d < 0) {
            return null;
        }
        int[] ids = readChain(d);
        if (!readOnly) {
            directory.setOpenMask(d, directory.openMask(d) | 1L << slot);
        }
        return new Named(d, directory.generation(d), name, directory.size(d), ids);
    }

    private int[] readChain(int d) {
        int obtained = ledger.obtainedChunks();
        directory.check(d, obtained, geometry.chunkSize);
        int count = directory.chunkCount(d);
        int owner = ChunkTableLayout.directoryOwner(d);
        int[] ids = new int[count];
        BitSet seen = new BitSet();
        int c = directory.firstChunk(d);
        for (int i = 0; i < count; i++) {
            ledger.checkId(c, "link " + i + " of the chain of '" + directory.name(d) + "'");
            if (seen.get(c) || meta.owner(c) != owner) {
                throw PoolLayout.corrupt(where, "chunk " + c + " in the chain of '" + directory.name(d) + "'",
                        seen.get(c) ? "met twice (a cycle)" : "owned by " + meta.owner(c), "owned once by " + owner);
            }
            seen.set(c);
            ids[i] = c;
            c = meta.next(c);
        }
        if (c != NIL) {
            throw PoolLayout.corrupt(where, "end of the chain of '" + directory.name(d) + "'", c, "-1 after " + count
                    + " chunks");
        }
        return ids;
    }

    /**
     * This process closed its last handle on a named segment. Caller holds the lock. Frees the
     * segment if it was deleted and no other process holds it.
     *
     * @param named the segment as opened
     */
    public void closed(Named named) {
        int d = named.slot();
        if (directory.generation(d) != named.generation()) {
            return;
        }
        int state = directory.state(d);
        if (state != STATE_LIVE && state != STATE_DELETING) {
            return;
        }
        long mask = directory.openMask(d) & ~(1L << slot);
        directory.setOpenMask(d, mask);
        if (state == STATE_DELETING && liveOnly(mask) == 0) {
            tearDown(d);
        }
    }

    /**
     * Deletes a name. Caller holds the lock. The chunks go back now if no process holds the
     * segment, else when the last one closes it.
     *
     * @param name the name
     * @return whether it existed
     */
    public boolean delete(String name) {
        int d = directory.findLive(Directory.encode(name));
        if (d < 0) {
            return false;
        }
        long mask = liveOnly(directory.openMask(d));
        directory.setOpenMask(d, mask);
        if (mask == 0) {
            tearDown(d);
        } else {
            directory.setState(d, STATE_DELETING, slot);
        }
        return true;
    }

    private long liveOnly(long mask) {
        long live = 0;
        for (int s = 0; s < MAX_OWNERS; s++) {
            if ((mask & (1L << s)) != 0 && (s == slot || owners.isLive(s))) {
                live |= 1L << s;
            }
        }
        return live;
    }

    // RESERVED first: if this process dies while giving the chunks back, recovery finishes the job.
    private void tearDown(int d) {
        int[] ids = readChain(d);
        directory.setState(d, STATE_RESERVED, slot);
        if (ids.length > 0) {
            store.release(ids, ChunkTableLayout.directoryOwner(d));
        }
        directory.empty(d);
    }

    /** @return the names of the live named segments. Caller holds the lock. */
    public List<String> names() {
        return new ArrayList<>(directory.liveNames());
    }
}
