package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.ChunkTableLayout.NIL;
import static dev.ferrite.internal.pool.ChunkTableLayout.OWNER_FREE;
import static dev.ferrite.internal.pool.PoolHeaderLayout.FREE_HEAD_OFFSET;
import static dev.ferrite.internal.pool.PoolHeaderLayout.OBTAINED_EXTENTS_OFFSET;
import static dev.ferrite.internal.pool.PoolHeaderLayout.USED_CHUNKS_OFFSET;

import dev.ferrite.CorruptFileException;
import dev.ferrite.internal.PoolGeometry;

/**
 * Who holds each chunk, and the stack of free chunks, in the mapped chunk table.
 *
 * <p>The free stack is a Treiber stack threaded through the chunks' {@code NEXT} links, its head
 * a {@code tag << 32 | id} word changed only by CAS; the tag grows on every change, so a head
 * that was popped and pushed back in between (ABA) fails the CAS. The owner code of a chunk is the
 * authority: a pop takes the chunk off the stack and then sets its owner; a release sets the owner
 * to free and then pushes. Between those two steps a chunk is free but on no stack: if the process
 * dies there, recovery finds it (a free chunk that is not reachable) and pushes it back.
 *
 * <p>Every chunk id read from the file is range-checked before it is used.
 */
final class ChunkLedger {

    private final MetaRegion meta;
    private final PoolGeometry geometry;
    private final String where;

    ChunkLedger(MetaRegion meta, PoolGeometry geometry, String where) {
        this.meta = meta;
        this.geometry = geometry;
        this.where = where;
    }

    /** @return extents obtained so far */
    int obtainedExtents() {
        return meta.getIntVolatile(OBTAINED_EXTENTS_OFFSET);
    }

    /** @return chunks in the obtained extents */
    int obtainedChunks() {
        int extents = obtainedExtents();
        if (extents == 0) {
            return 0;
        }
        return geometry.firstChunk(extents - 1) + (int) (geometry.extentBytes(extents - 1) >>> geometry.chunkShift);
    }

    /** @return chunks held by segments or in flight */
    long used() {
        return meta.getLongVolatile(USED_CHUNKS_OFFSET);
    }

    void addUsed(long delta) {
        if (delta != 0) {
            meta.getAndAddLong(USED_CHUNKS_OFFSET, delta);
        }
    }

    void setUsed(long used) {
        meta.putLongVolatile(USED_CHUNKS_OFFSET, used);
    }

    /**
     * Takes the top chunk off the free stack and gives it to an owner.
     *
     * @param owner the owner code
     * @return the chunk id, or {@link ChunkTableLayout#NIL} if the stack is empty
     * @throws CorruptFileException if the stack holds an id out of range or a chunk that is not free
     */
    int pop(int owner) {
        while (true) {
            long head = meta.getLongVolatile(FREE_HEAD_OFFSET);
            int id = (int) head;
            if (id == NIL) {
                return NIL;
            }
            checkId(id, "free stack head");
            int next = meta.next(id);
            long newHead = (((head >>> 32) + 1) << 32) | (next & 0xFFFFFFFFL);
            if (meta.compareAndSetLong(FREE_HEAD_OFFSET, head, newHead)) {
                if (next != NIL) {
                    checkId(next, "next link of free chunk " + id);
                }
                if (!meta.compareAndSetOwner(id, OWNER_FREE, owner)) {
                    throw new CorruptFileException(where + ": chunk " + id + " was on the free stack with owner "
                            + meta.owner(id) + "; a free chunk's owner must be " + OWNER_FREE);
                }
                return id;
            }
        }
    }

    /**
     * Pushes a chain of free chunks, already linked {@code first → … → last}, with one CAS.
     *
     * @param first the chain's first chunk
     * @param last  its last chunk
     */
    void pushChain(int first, int last) {
        while (true) {
            long head = meta.getLongVolatile(FREE_HEAD_OFFSET);
            meta.setNext(last, (int) head);
            long newHead = (((head >>> 32) + 1) << 32) | (first & 0xFFFFFFFFL);
            if (meta.compareAndSetLong(FREE_HEAD_OFFSET, head, newHead)) {
                return;
            }
        }
    }

    /**
     * Gives chunks back: each owner becomes free (it must be {@code owner}), then the chunks are
     * linked and pushed in order, so the next allocations reuse them in that order.
     *
     * @param chunks chunk ids, at least one
     * @param owner  their owner code
     * @throws CorruptFileException if a chunk is not held by {@code owner}
     */
    void release(int[] chunks, int owner) {
        for (int i = 0; i < chunks.length; i++) {
            if (!meta.compareAndSetOwner(chunks[i], owner, OWNER_FREE)) {
                throw new CorruptFileException(where + ": chunk " + chunks[i] + " has owner " + meta.owner(chunks[i])
                        + " where " + owner + " was expected; not releasing it");
            }
            meta.setNext(chunks[i], i + 1 < chunks.length ? chunks[i + 1] : NIL);
        }
        pushChain(chunks[0], chunks[chunks.length - 1]);
    }

    /**
     * Links every chunk of a newly obtained extent into a free chain. Their owners are already
     * free: the entries of unobtained chunks are zero.
     *
     * @param extent the extent index
     * @return {first, last} of the chain
     */
    int[] linkExtent(int extent) {
        int first = geometry.firstChunk(extent);
        int count = (int) (geometry.extentBytes(extent) >>> geometry.chunkShift);
        for (int i = 0; i < count; i++) {
            meta.setOwner(first + i, OWNER_FREE);
            meta.setNext(first + i, i + 1 < count ? first + i + 1 : NIL);
        }
        return new int[] {first, first + count - 1};
    }

    /**
     * Publishes one more obtained extent.
     *
     * @param extents the new count
     */
    void setObtainedExtents(int extents) {
        meta.putIntVolatile(OBTAINED_EXTENTS_OFFSET, extents);
    }

    /**
     * @param id   a chunk id read from the file
     * @param what where it was read, for the message
     * @throws CorruptFileException if it is outside the obtained chunks
     */
    void checkId(int id, String what) {
        int obtained = obtainedChunks();
        if (id < 0 || id >= obtained) {
            throw new CorruptFileException(where + ": " + what + " is chunk " + id + "; it must be in [0, "
                    + obtained + ") (the obtained chunks)");
        }
    }
}
