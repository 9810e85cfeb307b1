package dev.ferrite.kv.server;

/**
 * The size of the collection the last change of one {@link CollectionStore} left, with the tree's
 * {@link dev.ferrite.kv.FerriteSortedMap#version version} after it: while the version is the same,
 * no change was published since (by this process or another), so a push or pop learns the list's
 * size from it instead of counting the list with two descents of the tree, as Redis keeps each
 * list's length. A change notes a size ({@link #pending}); the note counts only if the change is
 * then published ({@link #published}). Used by the store's lock holder only: not thread-safe.
 */
final class KnownSize {

    private long id;
    /** -1 until a change's note is published. */
    private long size = -1;
    private long version;
    private long pendingId;
    private long pendingSize = -1;

    /** @return collection {@code id}'s size in the tree of that version, or -1 if not known */
    long of(long id, long version) {
        return id == this.id && version == this.version ? size : -1;
    }

    /** Notes collection {@code id}'s size as the running change leaves it. */
    void pending(long id, long size) {
        pendingId = id;
        pendingSize = size;
    }

    /**
     * The running change ended.
     *
     * @param published whether it published a new tree
     * @param version   the tree's version now
     */
    void published(boolean published, long version) {
        if (published && pendingSize >= 0) {
            id = pendingId;
            size = pendingSize;
            this.version = version;
        }
        pendingSize = -1;
    }

    /** The running change failed: what it noted is dropped. */
    void dropPending() {
        pendingSize = -1;
    }
}
