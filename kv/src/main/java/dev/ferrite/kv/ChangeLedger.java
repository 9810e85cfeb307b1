package dev.ferrite.kv;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * What a sorted map's writer has changed and how it is published: the pages a change took (given
 * back if it fails), the published pages it no longer uses (freed once it is published), and the
 * root word, stored with one release store when a change ends or, for an atomic change
 * ({@link #begin} ... {@link #commit}), once at its commit. Until then an atomic change builds a
 * tree of its own that no reader reaches. Also the takeover's repair of the free list. Not
 * thread-safe: the caller holds the map's lock.
 */
final class ChangeLedger {

    private final PageStore pages;
    private final int pageSize;
    /** Pages this change (or atomic change) took and has not published; given back if it fails. */
    private final BitSet taken = new BitSet();
    /** Pages of the published tree the change no longer uses: freed once it is published. */
    private final List<Integer> retired = new ArrayList<>();
    /** Whether an atomic change is open: changes build {@link #working} and publish at {@link #commit}. */
    private boolean atomic;
    /** The root word of the tree an atomic change builds. */
    private long working;
    /** Why the open atomic change can only be rolled back (an operation inside it failed midway), or null. */
    private Throwable failed;

    ChangeLedger(PageStore pages) {
        this.pages = pages;
        this.pageSize = pages.pageSize;
    }

    /**
     * Takes a page for the change.
     *
     * @return its number
     * @throws dev.ferrite.PoolExhaustedException if a new extent does not fit the pool
     */
    int take() {
        int page = pages.allocate();
        taken.set(page);
        return page;
    }

    /** Writes a node's bytes to a page taken for the change. @return its reference */
    long write(byte[] bytes, int used) {
        return pages.write(take(), bytes, used);
    }

    /** Opens an atomic change: the changes until {@link #commit} build a tree nobody else sees. */
    void begin() {
        atomic = true;
        failed = null;
        working = pages.header.getLongVolatile(SortedLayout.ROOT);
    }

    /**
     * @return the root word of the tree the writer changes: the open atomic change's, else the
     *         published one
     */
    long root() {
        return atomic ? working : pages.header.getLongVolatile(SortedLayout.ROOT);
    }

    /**
     * Publishes the open atomic change's tree with one store, then frees the published pages it
     * replaced; publishes nothing if it changed nothing.
     *
     * @throws IllegalStateException if an operation inside it failed midway (it is rolled back)
     */
    void commit() {
        if (failed != null) {
            Throwable cause = failed;
            rollback();
            throw new IllegalStateException("the atomic change was rolled back: an operation inside it failed ("
                    + cause + ")", cause);
        }
        atomic = false;
        if (working != pages.header.getLongVolatile(SortedLayout.ROOT)) {
            publish(working);
        }
        taken.clear();
        retired.clear();
    }

    /** Drops the open atomic change: its pages go back to the free list, the published tree stays. */
    void rollback() {
        atomic = false;
        failed = null;
        giveBack();
    }

    /** @throws IllegalStateException if an operation of the open atomic change failed midway */
    void checkNotFailed() {
        if (atomic && failed != null) {
            throw new IllegalStateException("an operation of this atomic change failed midway (" + failed
                    + "): it will be rolled back, and no more changes are taken", failed);
        }
    }

    /** After an operation failed midway: its pages go back, or its atomic change can only be rolled back. */
    void fail(Throwable e) {
        if (atomic) {
            failed = e;
        } else {
            giveBack();
        }
    }

    /** Empties the map: publishes an empty root, then frees every page the tree held. */
    void clear() {
        checkNotFailed();
        long root = root();
        if (root == 0) {
            return;
        }
        BitSet held = new BitSet();
        mark(root, held, new byte[pageSize]);
        for (int p = held.nextSetBit(0); p >= 0; p = held.nextSetBit(p + 1)) {
            retire(p);
        }
        publish(0);
    }

    /**
     * After a writer died holding the lock: the free list rebuilt from the pages the published
     * tree does not hold (those the dead writer had taken, or not yet freed).
     *
     * @return pages free after the repair
     */
    int repair() {
        BitSet held = new BitSet();
        long root = pages.header.getLongVolatile(SortedLayout.ROOT);
        if (root != 0) {
            mark(root, held, new byte[pageSize]);
        }
        return pages.rebuildFreeList(held);
    }

    /** @return pages the published tree holds (its nodes and overflow pages) */
    int heldPages() {
        BitSet held = new BitSet();
        long root = pages.header.getLongVolatile(SortedLayout.ROOT);
        if (root != 0) {
            mark(root, held, new byte[pageSize]);
        }
        return held.cardinality();
    }

    private void mark(long ref, BitSet held, byte[] buf) {
        int number = SortedLayout.refPage(ref);
        if (number >= pages.highWater() || held.get(number)) {
            throw PageLayout.corrupt(number, "referenced twice or past the last page used (" + (pages.highWater() - 1) + ")");
        }
        held.set(number);
        TreeNode n = TreeNode.decode(pages.readStable(ref, buf), number, pageSize);
        if (n.leaf) {
            for (Object v : n.values) {
                if (v instanceof TreeNode.Overflow o) {
                    for (int p : overflowPages(o)) {
                        held.set(p);
                    }
                }
            }
        } else {
            for (long child : n.refs) {
                mark(child, held, buf);
            }
        }
    }

    /**
     * Drops a page from the tree being changed: a page of the published tree is freed once the
     * change is published; one this atomic change wrote itself (nobody else sees it) at once.
     */
    void retire(int page) {
        if (taken.get(page)) {
            taken.clear(page);
            pages.free(page);
        } else {
            retired.add(page);
        }
    }

    /** Drops a value's overflow pages from the tree being changed ({@link #retire}). */
    void retireOverflow(TreeNode.Overflow o) {
        for (int p : overflowPages(o)) {
            retire(p);
        }
    }

    private List<Integer> overflowPages(TreeNode.Overflow o) {
        int per = PageLayout.overflowData(pageSize);
        int n = (int) ((o.length() + (long) per - 1) / per);
        List<Integer> out = new ArrayList<>(n);
        long ref = o.ref();
        for (int j = 0; j < n; j++) {
            if (ref == 0) {
                throw PageLayout.corrupt(SortedLayout.refPage(o.ref()), "an overflow value of " + o.length()
                        + " bytes ends after " + j + " pages");
            }
            int page = SortedLayout.refPage(ref);
            out.add(page);
            ref = pages.getLong(page, PageLayout.OVERFLOW_NEXT);
        }
        return out;
    }

    /** Publishes a new root word, then frees the pages it replaced; inside an atomic change, only notes it. */
    void publish(long root) {
        if (atomic) {
            working = root;
            return;
        }
        // Release stores: the new pages before the root, the root before the old pages turn odd
        // (a reader that sees one odd finds the new root); only the lock holder writes either word.
        pages.header.putLongOrdered(SortedLayout.ROOT, root);
        pages.header.putLongOrdered(SortedLayout.COMMITS, pages.header.getLong(SortedLayout.COMMITS) + 1);
        for (int p : retired) {
            pages.free(p);
        }
        retired.clear();
        taken.clear();
    }

    private void giveBack() {
        for (int p = taken.nextSetBit(0); p >= 0; p = taken.nextSetBit(p + 1)) {
            pages.free(p);
        }
        taken.clear();
        retired.clear();
    }
}
