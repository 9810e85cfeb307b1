package dev.ferrite.kv;

import java.util.Arrays;
import java.util.function.UnaryOperator;

import static dev.ferrite.kv.PageLayout.BODY;
import static dev.ferrite.kv.PageLayout.LEAF_ENTRY_HEADER;

/**
 * A sorted map's changes, copy-on-write: the writer (holding the map's lock) descends to the leaf
 * a key is in or goes to and writes the changed path into new pages; the ledger
 * ({@link ChangeLedger}) publishes the new root word with one release store and only then frees the
 * pages the old path held. The common change, a leaf that keeps between a quarter of a page and a
 * page, is written here from the old pages' bytes, no node decoded; the rest (splits, merges,
 * overflow values, an emptied leaf) by {@link TreeRewriter}. Killed at any instant, the writer
 * leaves the last published tree whole; the pages it had taken are found again by
 * {@link #repair}. Not thread-safe: the caller holds the map's lock.
 */
final class TreeWriter {

    private final PageStore pages;
    private final int pageSize;
    private final byte[] buf;
    /** The update's path, root first: copies of its pages (made as needed), their numbers, the child taken in each branch. */
    private final byte[][] levels = new byte[TreeReader.MAX_DEPTH + 2][];
    private final int[] pathPages = new int[TreeReader.MAX_DEPTH + 2];
    private final int[] pathChild = new int[TreeReader.MAX_DEPTH + 2];
    /** Changes this writer made by the general path ({@link TreeRewriter}): a count for tests. */
    long rewrites;
    private final ChangeLedger ledger;
    final TreeRewriter rewriter;
    /** The index in its leaf of the entry a descent by rank ({@link #descend(byte[], long)}) reached. */
    private int rankInLeaf;
    /** The key of the last entry this writer added: a run of keys added in order splits where it runs. */
    private byte[] lastAdded;

    TreeWriter(PageStore pages) {
        this.pages = pages;
        this.pageSize = pages.pageSize;
        this.buf = new byte[pageSize];
        this.ledger = new ChangeLedger(pages);
        this.rewriter = new TreeRewriter(pages, ledger);
    }

    /** Opens an atomic change ({@link ChangeLedger#begin}). */
    void begin() {
        ledger.begin();
    }

    /** Publishes the open atomic change ({@link ChangeLedger#commit}). */
    void commit() {
        ledger.commit();
    }

    /** Drops the open atomic change ({@link ChangeLedger#rollback}). */
    void rollback() {
        ledger.rollback();
    }

    /** @return the root word of the tree this writer changes ({@link ChangeLedger#root}) */
    long root() {
        return ledger.root();
    }

    /** Rebuilds the free list after a writer died holding the lock ({@link ChangeLedger#repair}). @return pages free */
    int repair() {
        return ledger.repair();
    }

    /** @return pages the published tree holds ({@link ChangeLedger#heldPages}) */
    int heldPages() {
        return ledger.heldPages();
    }

    /** Empties the map ({@link ChangeLedger#clear}). */
    void clear() {
        ledger.clear();
    }

    /**
     * Changes one key's value.
     *
     * @param key    the key, at most {@link PageLayout#maxKey} bytes
     * @param change given the current value (null if none), returns the new value, null to remove
     *               the key, or the same array to leave it as it is
     * @return the value before, or null
     */
    byte[] update(byte[] key, UnaryOperator<byte[]> change) {
        ledger.checkNotFailed();
        int depth = descend(key);
        int pos = depth == 0 ? -1 : PageLayout.searchLeaf(levels[depth - 1], pathPages[depth - 1], key);
        return changeAt(depth, key, pos, change);
    }

    /**
     * Removes the entry nearest a bound within a range, if the leaf a descent by that bound reaches
     * holds it: one descent, where a read of the entry and then its removal take two.
     *
     * @param bound          the range's bound on the side the entry is taken from
     * @param inclusive      whether an entry whose key is {@code bound} is within the range
     * @param lowest         whether the lowest entry is taken (else the highest)
     * @param other          the range's other bound, or null for none
     * @param otherInclusive whether an entry whose key is {@code other} is within the range
     * @return the removed entry's key and value, or null if that leaf holds no entry within the
     *         range (the range may be empty, or its entry lie in the next leaf): nothing was changed
     */
    byte[][] pollEdge(byte[] bound, boolean inclusive, boolean lowest, byte[] other, boolean otherInclusive) {
        ledger.checkNotFailed();
        int depth = descend(bound);
        if (depth == 0) {
            return null;
        }
        byte[] leaf = levels[depth - 1];
        int number = pathPages[depth - 1];
        int found = PageLayout.searchLeaf(leaf, number, bound);
        int pos = lowest ? (found >= 0 ? (inclusive ? found : found + 1) : -found - 1)
                : (found >= 0 ? (inclusive ? found : found - 1) : -found - 2);
        if (lowest && pos == PageLayout.getU16(leaf, PageLayout.COUNT)) {
            // Every key of this leaf is below the entry: it is the first of the next leaf, found by
            // that leaf's separator (above the bound, at most its keys).
            byte[] next = nextSeparator(depth);
            if (next == null) {
                return null;
            }
            depth = descend(next);
            leaf = levels[depth - 1];
            number = pathPages[depth - 1];
            found = PageLayout.searchLeaf(leaf, number, next);
            pos = found >= 0 ? found : -found - 1;
        }
        if (pos < 0 || pos >= PageLayout.getU16(leaf, PageLayout.COUNT)) {
            return null;
        }
        if (other != null && TreeReader.beyondAt(leaf, number, pos, other, otherInclusive, lowest)) {
            return null;
        }
        return removeFromLeaf(depth, pos);
    }

    /**
     * Removes the entry at a position in key order (0 the first), found by the branches' child
     * counts in the descent that removes it.
     *
     * @param rank the position, 0 or more
     * @return the removed entry's key and value, or null if the tree has no more than {@code rank}
     *         entries (nothing was changed)
     */
    byte[][] removeAt(long rank) {
        ledger.checkNotFailed();
        int depth = descend(null, rank);
        return depth <= 0 ? null : removeFromLeaf(depth, rankInLeaf);
    }

    /** Removes entry {@code pos} of the descended path's leaf. @return its key and value */
    private byte[][] removeFromLeaf(int depth, int pos) {
        byte[] leaf = levels[depth - 1];
        int number = pathPages[depth - 1];
        int at = PageLayout.entry(leaf, number, pos, LEAF_ENTRY_HEADER);
        int from = at + LEAF_ENTRY_HEADER;
        byte[] key = Arrays.copyOfRange(leaf, from, from + PageLayout.leafKeyLength(leaf, number, at));
        return new byte[][] {key, changeAt(depth, key, pos, old -> null)};
    }

    /**
     * @param depth the descended path's length
     * @return the separator of the subtree just right of the path at its deepest branch that has
     *         one (every key of the path's leaf is below it, every key of the next leaf at least
     *         it), or null if the path's leaf is the last
     */
    private byte[] nextSeparator(int depth) {
        for (int level = depth - 2; level >= 0; level--) {
            byte[] branch = levels[level];
            int number = pathPages[level];
            int i = pathChild[level] + 1;
            if (i < PageLayout.getU16(branch, PageLayout.COUNT)) {
                int at = PageLayout.entry(branch, number, i, PageLayout.BRANCH_ENTRY_HEADER);
                int from = at + PageLayout.BRANCH_ENTRY_HEADER;
                return Arrays.copyOfRange(branch, from, from + PageLayout.separatorLength(branch, number, at));
            }
        }
        return null;
    }

    /**
     * Copies the path from the root to the leaf where a key is or would go into {@link #levels},
     * noting each page's number and the child taken.
     *
     * @return the path's length, 0 for an empty tree
     */
    private int descend(byte[] key) {
        return descend(key, 0);
    }

    /**
     * As {@link #descend(byte[])} with a key; without one ({@code key} null), to the leaf that holds
     * the entry at position {@code rank}, by the branches' child counts, leaving its index in that
     * leaf in {@link #rankInLeaf}.
     *
     * @return the path's length, 0 for an empty tree, -1 if the tree has no more than {@code rank} entries
     */
    private int descend(byte[] key, long rank) {
        long root = ledger.root();
        int depth = 0;
        long rest = rank;
        if (root != 0) {
            for (long ref = root; ; depth++) {
                if (depth > TreeReader.MAX_DEPTH) {
                    throw PageLayout.corrupt(SortedLayout.refPage(ref), "lies deeper than " + TreeReader.MAX_DEPTH
                            + " levels: a branch refers back to a page above it");
                }
                byte[] page = level(depth);
                pages.readStable(ref, page);
                int number = SortedLayout.refPage(ref);
                pathPages[depth] = number;
                if (PageLayout.checkNode(page, number, pageSize) == PageLayout.LEAF) {
                    depth++;
                    break;
                }
                int i = 0;
                if (key != null) {
                    i = PageLayout.searchBranch(page, number, key);
                } else {
                    int count = PageLayout.getU16(page, PageLayout.COUNT);
                    for (long c; i < count && rest >= (c = PageLayout.childCount(page, number, i)); i++) {
                        rest -= c;
                    }
                    if (i == count) {
                        return -1;
                    }
                }
                pathChild[depth] = i;
                ref = PageLayout.childRef(page, number, i);
            }
        }
        if (key == null) {
            if (depth == 0 || rest >= PageLayout.getU16(levels[depth - 1], PageLayout.COUNT)) {
                return -1;
            }
            rankInLeaf = (int) rest;
        }
        return depth;
    }

    /**
     * Changes the entry at {@code pos} of the descended path's leaf (or puts one there).
     *
     * @param pos the key's index in the leaf, or {@code -(insertion point) - 1}; -1 for an empty tree
     * @return the value before, or null
     */
    private byte[] changeAt(int depth, byte[] key, int pos, UnaryOperator<byte[]> change) {
        Object stored = null;
        if (depth > 0 && pos >= 0) {
            byte[] leaf = levels[depth - 1];
            int number = pathPages[depth - 1];
            int at = PageLayout.entry(leaf, number, pos, LEAF_ENTRY_HEADER);
            int k = PageLayout.leafKeyLength(leaf, number, at);
            int v = PageLayout.getInt(leaf, at + 3);
            int from = at + LEAF_ENTRY_HEADER + k;
            stored = leaf[at + 2] == PageLayout.INLINE ? Arrays.copyOfRange(leaf, from, from + v)
                    : new TreeNode.Overflow(PageLayout.getLong(leaf, from), v);
        }
        byte[] old = stored == null ? null : stored instanceof byte[] b ? b : readOverflow((TreeNode.Overflow) stored);
        byte[] next = change.apply(old);
        if (next == old || next == null && old == null) {
            return old;
        }
        try {
            long written = inPlace(depth, key, pos, stored, next);
            if (written == 0) {
                rewrites++;
                written = rewriter.rewrite(levels, pathPages, pathChild, depth, key, pos, stored, next, lastAdded);
            }
            ledger.publish(written);
        } catch (RuntimeException | Error e) {
            ledger.fail(e);
            throw e;
        }
        if (stored == null) {
            lastAdded = key;
        }
        return old;
    }

    /** @return the writer's copy buffer for the page at that depth of the path */
    private byte[] level(int depth) {
        if (levels[depth] == null) {
            levels[depth] = new byte[pageSize];
        }
        return levels[depth];
    }

    /**
     * The common change: an inline value put or removed in a leaf that stays between a quarter of
     * a page and a page, under branches that stay as they are but for the child's reference and
     * count. Writes the path's new pages by copying the old ones' bytes around the change (the
     * bytes {@link TreeNode#encode} would write), no node decoded.
     *
     * @param depth the path's length in {@link #levels}, 0 for an empty tree
     * @param pos   the key's index in the leaf, or {@code -(insertion point) - 1}
     * @return the new root word, or 0 if the change needs {@link #rewrite} (a split, a merge, an
     *         overflow value, an emptied leaf)
     */
    private long inPlace(int depth, byte[] key, int pos, Object stored, byte[] next) {
        if (depth == 0 || stored instanceof TreeNode.Overflow
                || next != null && 2 + LEAF_ENTRY_HEADER + key.length + next.length > PageLayout.maxEntry(pageSize)) {
            return 0;
        }
        byte[] leaf = levels[depth - 1];
        int count = PageLayout.getU16(leaf, PageLayout.COUNT);
        int used = PageLayout.getInt(leaf, PageLayout.USED);
        int oldEntry = stored == null ? 0 : 2 + LEAF_ENTRY_HEADER + key.length + ((byte[]) stored).length;
        int newEntry = next == null ? 0 : 2 + LEAF_ENTRY_HEADER + key.length + next.length;
        int newCount = count + (stored == null ? 1 : next == null ? -1 : 0);
        int newUsed = used - oldEntry + newEntry;
        if (newCount == 0 || newUsed > pageSize || depth > 1 && newUsed < pageSize / 4 && mergeable(depth, newUsed)) {
            return 0;
        }
        for (int level = 0; level < depth - 1; level++) {
            byte[] branch = levels[level];
            int branchUsed = PageLayout.getInt(branch, PageLayout.USED);
            if (level == 0 ? PageLayout.getU16(branch, PageLayout.COUNT) < 2
                    : branchUsed < pageSize / 4 && mergeable(level + 1, branchUsed)) {
                return 0; // the root gives way to its one child, or the branch merges: rewrite
            }
        }
        ledger.retire(pathPages[depth - 1]);
        int page = ledger.take();
        spliceLeaf(leaf, pathPages[depth - 1], count, pos, key, next, newCount, newUsed, page);
        long ref = pages.publish(page);
        long delta = newCount - count;
        for (int level = depth - 2; level >= 0; level--) {
            byte[] branch = levels[level];
            int branchUsed = PageLayout.getInt(branch, PageLayout.USED);
            int at = PageLayout.entry(branch, pathPages[level], pathChild[level], PageLayout.BRANCH_ENTRY_HEADER);
            PageLayout.putLong(branch, at, ref);
            PageLayout.putLong(branch, at + 8, PageLayout.getLong(branch, at + 8) + delta);
            ledger.retire(pathPages[level]);
            ref = ledger.write(branch, branchUsed);
        }
        return ref;
    }

    /**
     * @param depth the node's depth plus one: its parent is at {@code depth - 2} of the path
     * @return whether a node (leaf or branch) of {@code used} bytes under a quarter of a page would
     *         be merged with its neighbour (the rule of {@link TreeNode#mergedFit}): if not, it is
     *         written as it is
     */
    private boolean mergeable(int depth, int used) {
        return TreeRewriter.mergeable(pages, levels[depth - 2], pathPages[depth - 2], pathChild[depth - 2], used);
    }

    /**
     * Writes into a taken page the leaf {@code leaf} with the key's entry put ({@code next}) or
     * removed ({@code next == null}) at {@code pos}: entries in key order after the offset table.
     * The leaf's entries are copied from its copy straight into the page; the header, the offset
     * table and the new entry are made in {@link #buf} first, at the places they take in the page.
     */
    private void spliceLeaf(byte[] leaf, int number, int count, int pos, byte[] key, byte[] next, int newCount,
                            int newUsed, int page) {
        int used = PageLayout.getInt(leaf, PageLayout.USED);
        int index = pos >= 0 ? pos : -pos - 1;
        int tableEnd = BODY + 2 * count;
        int entryAt = index < count ? PageLayout.entry(leaf, number, index, LEAF_ENTRY_HEADER) : used;
        int entryEnd = pos >= 0 ? (index + 1 < count ? PageLayout.entry(leaf, number, index + 1, LEAF_ENTRY_HEADER) : used) : entryAt;
        int newTableEnd = BODY + 2 * newCount;
        int shift = newTableEnd - tableEnd; // of the entries before the change
        PageLayout.putNodeHeader(buf, PageLayout.LEAF, newCount, newUsed);
        int at = entryAt + shift;
        int written = 0;
        if (next != null) {
            PageLayout.putU16(buf, at, key.length);
            buf[at + 2] = PageLayout.INLINE;
            PageLayout.putInt(buf, at + 3, next.length);
            System.arraycopy(key, 0, buf, at + LEAF_ENTRY_HEADER, key.length);
            System.arraycopy(next, 0, buf, at + LEAF_ENTRY_HEADER + key.length, next.length);
            written = LEAF_ENTRY_HEADER + key.length + next.length;
        }
        int after = at + written - entryEnd; // the shift of the entries after the change
        int j = moveOffsets(leaf, 0, index, buf, 0, shift);
        if (next != null) {
            PageLayout.putU16(buf, BODY + 2 * j++, at);
        }
        // the entries after the change: past the old one at index if it was replaced or removed
        moveOffsets(leaf, pos >= 0 ? index + 1 : index, count, buf, j, after);
        pages.put(page, 4, buf, 4, newTableEnd - 4);
        pages.put(page, newTableEnd, leaf, tableEnd, entryAt - tableEnd);
        pages.put(page, at, buf, at, written);
        pages.put(page, entryEnd + after, leaf, entryEnd, used - entryEnd);
    }

    /**
     * Copies offsets [from, to) of a page's offset table into another's from index {@code j}, each
     * moved by {@code delta}.
     *
     * @return the index after the last written
     */
    private static int moveOffsets(byte[] page, int from, int to, byte[] into, int j, int delta) {
        for (int i = from; i < to; i++) {
            PageLayout.putU16(into, BODY + 2 * (j + i - from), PageLayout.getU16(page, BODY + 2 * i) + delta);
        }
        return j + Math.max(0, to - from);
    }

    private byte[] readOverflow(TreeNode.Overflow o) {
        byte[] v = TreeReader.readOverflow(pages, o.ref(), o.length(), SortedLayout.refPage(o.ref()));
        if (v == null) {
            throw PageLayout.corrupt(SortedLayout.refPage(o.ref()), "an overflow page's stamp moved while the writer holds the lock");
        }
        return v;
    }

}
