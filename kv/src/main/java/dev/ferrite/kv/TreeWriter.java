package dev.ferrite.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.UnaryOperator;

import static dev.ferrite.kv.PageLayout.BODY;
import static dev.ferrite.kv.PageLayout.LEAF_ENTRY_HEADER;

/**
 * A sorted map's changes, copy-on-write: the writer (holding the map's lock) copies the path from
 * the root to the leaf it changes into new pages, splitting a page that outgrows its size and
 * merging one that falls under a quarter of it with a neighbour, then publishes the new root word
 * with one volatile store and only then frees the pages the old path held. An atomic change
 * ({@link #begin} ... {@link #commit}) publishes many changes with one store: until then they build
 * a tree of their own, whose pages a later change of it frees at once. Killed at any instant, the
 * writer leaves the last published tree whole; the pages it had taken are found again by
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
    /** The key of the last entry this writer added: a run of keys added in order splits where it runs. */
    private byte[] lastAdded;

    TreeWriter(PageStore pages) {
        this.pages = pages;
        this.pageSize = pages.pageSize;
        this.buf = new byte[pageSize];
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
        checkNotFailed();
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
        checkNotFailed();
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
        long root = root();
        int depth = 0;
        if (root != 0) {
            for (long ref = root; ; depth++) {
                if (depth > TreeReader.MAX_DEPTH) {
                    throw PageLayout.corrupt(SortedLayout.refPage(ref), "lies deeper than " + TreeReader.MAX_DEPTH
                            + " levels: a branch refers back to a page above it");
                }
                byte[] page = level(depth);
                if (!pages.read(ref, page)) {
                    throw PageLayout.corrupt(SortedLayout.refPage(ref), "its stamp is not the one its reference names ("
                            + SortedLayout.refStamp(ref) + ") while the writer holds the lock");
                }
                int number = SortedLayout.refPage(ref);
                pathPages[depth] = number;
                if (PageLayout.checkNode(page, number, pageSize) == PageLayout.LEAF) {
                    depth++;
                    break;
                }
                pathChild[depth] = PageLayout.searchBranch(page, number, key);
                ref = PageLayout.childRef(page, number, pathChild[depth]);
            }
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
            publish(written != 0 ? written : rewrite(depth, key, pos, stored, next));
        } catch (RuntimeException | Error e) {
            fail(e);
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
        spliceLeaf(leaf, pathPages[depth - 1], count, pos, key, next, newCount, newUsed);
        retire(pathPages[depth - 1]);
        long ref = write(buf, newUsed);
        long delta = newCount - count;
        for (int level = depth - 2; level >= 0; level--) {
            byte[] branch = levels[level];
            int branchUsed = PageLayout.getInt(branch, PageLayout.USED);
            int at = PageLayout.entry(branch, pathPages[level], pathChild[level], PageLayout.BRANCH_ENTRY_HEADER);
            PageLayout.putLong(branch, at, ref);
            PageLayout.putLong(branch, at + 8, PageLayout.getLong(branch, at + 8) + delta);
            retire(pathPages[level]);
            ref = write(branch, branchUsed);
        }
        return ref;
    }

    /**
     * @param depth the node's depth plus one: its parent is at {@code depth - 2} of the path
     * @return whether a node (leaf or branch) of {@code used} bytes under a quarter of a page would
     *         be merged with its neighbour ({@link #mergeWithNeighbour}'s test): if not, it is
     *         written as it is
     */
    private boolean mergeable(int depth, int used) {
        byte[] parent = levels[depth - 2];
        int i = pathChild[depth - 2];
        int other = i > 0 ? i - 1 : i + 1;
        if (other >= PageLayout.getU16(parent, PageLayout.COUNT)) {
            return false;
        }
        int neighbour = SortedLayout.refPage(PageLayout.childRef(parent, pathPages[depth - 2], other));
        return mergedFit(pages.getInt(neighbour, PageLayout.USED), used);
    }

    /** @return whether two nodes of these sizes in bytes, merged, fit three quarters of a page: the merge rule */
    private boolean mergedFit(int bytes, int otherBytes) {
        return bytes + otherBytes - BODY <= pageSize * 3 / 4;
    }

    /**
     * Writes into {@link #buf} the leaf {@code leaf} with the key's entry put ({@code next}) or
     * removed ({@code next == null}) at {@code pos}: entries in key order after the offset table.
     */
    private void spliceLeaf(byte[] leaf, int number, int count, int pos, byte[] key, byte[] next, int newCount, int newUsed) {
        int used = PageLayout.getInt(leaf, PageLayout.USED);
        int index = pos >= 0 ? pos : -pos - 1;
        int tableEnd = BODY + 2 * count;
        int entryAt = index < count ? PageLayout.entry(leaf, number, index, LEAF_ENTRY_HEADER) : used;
        int entryEnd = pos >= 0 ? (index + 1 < count ? PageLayout.entry(leaf, number, index + 1, LEAF_ENTRY_HEADER) : used) : entryAt;
        int newTableEnd = BODY + 2 * newCount;
        int shift = newTableEnd - tableEnd; // of the entries before the change
        System.arraycopy(leaf, 0, buf, 0, BODY);
        buf[PageLayout.KIND + 1] = 0;
        PageLayout.putU16(buf, PageLayout.COUNT, newCount);
        PageLayout.putInt(buf, PageLayout.USED, newUsed);
        PageLayout.putInt(buf, PageLayout.NEXT, 0);
        System.arraycopy(leaf, tableEnd, buf, newTableEnd, entryAt - tableEnd);
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
        System.arraycopy(leaf, entryEnd, buf, entryEnd + after, used - entryEnd);
        int j = moveOffsets(leaf, 0, index, buf, 0, shift);
        if (next != null) {
            PageLayout.putU16(buf, BODY + 2 * j++, at);
        }
        // the entries after the change: past the old one at index if it was replaced or removed
        moveOffsets(leaf, pos >= 0 ? index + 1 : index, count, buf, j, after);
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

    /**
     * The general change: the path decoded into nodes, the leaf changed, then written bottom up
     * with splits and merges ({@link #rewrite(List, List, List, int, TreeNode.Run)}).
     *
     * @return the new root word
     */
    private long rewrite(int depth, byte[] key, int pos, Object stored, byte[] next) {
        List<TreeNode> nodes = new ArrayList<>(depth + 1);
        List<Integer> numbers = new ArrayList<>(depth + 1);
        List<Integer> childIndex = new ArrayList<>(depth);
        if (depth == 0) {
            nodes.add(TreeNode.newLeaf());
            numbers.add(0);
        }
        for (int level = 0; level < depth; level++) {
            nodes.add(TreeNode.decode(levels[level], pathPages[level], pageSize));
            numbers.add(pathPages[level]);
            if (level < depth - 1) {
                childIndex.add(pathChild[level]);
            }
        }
        TreeNode leaf = nodes.get(nodes.size() - 1);
        if (stored instanceof TreeNode.Overflow o) {
            retireOverflow(o);
        }
        int changedAt;
        TreeNode.Run run = TreeNode.Run.NONE;
        if (next == null) {
            leaf.keys.remove(pos);
            leaf.values.remove(pos);
            changedAt = -1;
        } else {
            Object value = valueFor(key, next);
            changedAt = pos >= 0 ? pos : -pos - 1;
            if (pos >= 0) {
                leaf.values.set(pos, value);
            } else {
                leaf.keys.add(changedAt, key);
                leaf.values.add(changedAt, value);
                run = runAt(leaf, changedAt);
            }
        }
        return rewrite(nodes, numbers, childIndex, changedAt, run);
    }

    /** @return how a key just added at index {@code at} of a leaf follows the one this writer added before */
    private TreeNode.Run runAt(TreeNode leaf, int at) {
        if (lastAdded == null) {
            return TreeNode.Run.NONE;
        }
        if (at > 0 && Arrays.equals(leaf.keys.get(at - 1), lastAdded)) {
            return TreeNode.Run.ASCENDING;
        }
        if (at + 1 < leaf.size() && Arrays.equals(leaf.keys.get(at + 1), lastAdded)) {
            return TreeNode.Run.DESCENDING;
        }
        return TreeNode.Run.NONE;
    }

    /** Empties the map: publishes an empty root, then frees every page the tree held. */
    void clear() {
        checkNotFailed();
        long root = root();
        if (root == 0) {
            return;
        }
        BitSet held = new BitSet();
        mark(root, held);
        for (int p = held.nextSetBit(0); p >= 0; p = held.nextSetBit(p + 1)) {
            retire(p);
        }
        publish(0);
    }

    // ---------------------------------------------------------------- atomic changes

    /** Opens an atomic change: the changes until {@link #commit} build a tree nobody else sees. */
    void begin() {
        atomic = true;
        failed = null;
        working = pages.header.getLongVolatile(SortedLayout.ROOT);
    }

    /** @return whether an atomic change is open */
    boolean atomic() {
        return atomic;
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

    private void checkNotFailed() {
        if (atomic && failed != null) {
            throw new IllegalStateException("an operation of this atomic change failed midway (" + failed
                    + "): it will be rolled back, and no more changes are taken", failed);
        }
    }

    /** After an operation failed midway: its pages go back, or its atomic change can only be rolled back. */
    private void fail(Throwable e) {
        if (atomic) {
            failed = e;
        } else {
            giveBack();
        }
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
            mark(root, held);
        }
        return pages.rebuildFreeList(held);
    }

    /** @return pages the published tree holds (its nodes and overflow pages) */
    int heldPages() {
        BitSet held = new BitSet();
        long root = pages.header.getLongVolatile(SortedLayout.ROOT);
        if (root != 0) {
            mark(root, held);
        }
        return held.cardinality();
    }

    private void mark(long ref, BitSet held) {
        int number = SortedLayout.refPage(ref);
        if (number >= pages.highWater() || held.get(number)) {
            throw PageLayout.corrupt(number, "referenced twice or past the last page used (" + (pages.highWater() - 1) + ")");
        }
        held.set(number);
        TreeNode n = node(ref);
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
                mark(child, held);
            }
        }
    }

    // ---------------------------------------------------------------- the path, bottom up

    /** A written node as its parent keeps it: reference, entry count, separator (unused for the first). */
    private record Piece(long ref, long count, byte[] separator) {
    }

    /** A node after a merge, and its index in its parent. */
    private record Merge(TreeNode node, int index) {
    }

    /**
     * Writes the changed path into new pages, bottom up: each level's node merged with a
     * neighbour if it fell under a quarter of a page, split if it outgrew one, dropped if empty.
     *
     * @return the new root word
     */
    private long rewrite(List<TreeNode> nodes, List<Integer> numbers, List<Integer> childIndex, int changedAt,
                         TreeNode.Run run) {
        List<Piece> pieces = null;
        for (int level = nodes.size() - 1; level >= 0; level--) {
            TreeNode node = nodes.get(level);
            if (numbers.get(level) != 0) {
                retire(numbers.get(level));
            }
            if (pieces != null) {
                int i = childIndex.get(level);
                replaceChild(node, i, pieces);
                // Growth at the branch's start or end fills its pieces as a leaf's (TreeNode.split).
                changedAt = pieces.isEmpty() ? -1 : i == 0 ? 0 : i + pieces.size() - 1;
                run = TreeNode.Run.NONE;
            }
            if (level > 0 && node.size() > 0 && node.bytes() < pageSize / 4) {
                Merge m = mergeWithNeighbour(nodes.get(level - 1), childIndex.get(level - 1), node);
                node = m.node();
                childIndex.set(level - 1, m.index());
            }
            if (level == 0 && !node.leaf && node.size() == 1) {
                return node.refs.get(0); // a root of one child gives way to the child
            }
            pieces = write(node.size() == 0 ? List.of() : node.split(pageSize, changedAt, run));
        }
        while (pieces.size() > 1) {
            TreeNode root = TreeNode.newBranch();
            replaceChild(root, -1, pieces);
            pieces = write(root.split(pageSize, -1, TreeNode.Run.NONE));
        }
        return pieces.isEmpty() ? 0 : pieces.get(0).ref();
    }

    /** Writes a level's nodes, each to a page of its own, with the separators their parent keeps. */
    private List<Piece> write(List<TreeNode> nodes) {
        byte[][] separators = new byte[nodes.size()][];
        for (int j = 1; j < nodes.size(); j++) {
            separators[j] = TreeNode.separator(nodes.get(j - 1), nodes.get(j));
        }
        List<Piece> out = new ArrayList<>(nodes.size());
        for (int j = 0; j < nodes.size(); j++) {
            TreeNode n = nodes.get(j);
            out.add(new Piece(write(n), n.entries(), separators[j]));
        }
        return out;
    }

    /** Puts a changed child's pieces in its parent, in place of child {@code i} ({@code -1}: into an empty new root). */
    private static void replaceChild(TreeNode parent, int i, List<Piece> pieces) {
        byte[] first = new byte[0];
        int at = 0;
        if (i >= 0) {
            first = parent.keys.remove(i);
            parent.refs.remove(i);
            parent.counts.remove(i);
            at = i;
        }
        for (int j = 0; j < pieces.size(); j++) {
            Piece p = pieces.get(j);
            parent.keys.add(at + j, j == 0 ? first : p.separator());
            parent.refs.add(at + j, p.ref());
            parent.counts.add(at + j, p.count());
        }
        if (pieces.isEmpty() && i == 0 && parent.size() > 0) {
            parent.keys.set(0, new byte[0]); // the next child now takes everything lower
        }
    }

    /**
     * Merges a small node with its left neighbour (or right, for the first child) when the two
     * fit three quarters of a page; the neighbour's page is retired and the parent keeps one entry
     * for the two, at the left one's place.
     */
    private Merge mergeWithNeighbour(TreeNode parent, int i, TreeNode node) {
        int other = i > 0 ? i - 1 : i + 1;
        if (other >= parent.size()) {
            return new Merge(node, i);
        }
        long ref = parent.refs.get(other);
        int nodeBytes = node.bytes();
        if (!mergedFit(pages.getInt(SortedLayout.refPage(ref), PageLayout.USED), nodeBytes)) {
            return new Merge(node, i); // known from the neighbour's size alone: not decoded
        }
        TreeNode neighbour = node(ref);
        if (neighbour.leaf != node.leaf || !mergedFit(neighbour.bytes(), nodeBytes)) {
            return new Merge(node, i);
        }
        int left = Math.min(i, other);
        TreeNode merged = left == other ? neighbour : node;
        merged.append(left == other ? node : neighbour, parent.keys.get(left + 1));
        retire(SortedLayout.refPage(ref));
        parent.keys.remove(left + 1);
        parent.refs.remove(left + 1);
        parent.counts.remove(left + 1);
        parent.counts.set(left, merged.entries());
        return new Merge(merged, left);
    }

    // ---------------------------------------------------------------- pages

    private long write(TreeNode node) {
        Arrays.fill(buf, 0, PageLayout.BODY, (byte) 0);
        int used = node.encode(buf);
        return write(buf, used);
    }

    /** Writes a node's bytes to a new page. @return its reference */
    private long write(byte[] bytes, int used) {
        int page = pages.allocate();
        taken.set(page);
        return pages.write(page, bytes, used);
    }

    private TreeNode node(long ref) {
        if (!pages.read(ref, buf)) {
            throw PageLayout.corrupt(SortedLayout.refPage(ref), "its stamp is not the one its reference names ("
                    + SortedLayout.refStamp(ref) + ") while the writer holds the lock");
        }
        return TreeNode.decode(buf, SortedLayout.refPage(ref), pageSize);
    }

    private static int childFor(TreeNode branch, byte[] key) {
        int lo = 1;
        int hi = branch.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(branch.keys.get(mid), key) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return lo - 1;
    }

    /** @return an inline value, or the value written to overflow pages when its entry would not fit */
    private Object valueFor(byte[] key, byte[] value) {
        if (2 + PageLayout.LEAF_ENTRY_HEADER + key.length + value.length <= PageLayout.maxEntry(pageSize)) {
            return value;
        }
        int per = PageLayout.overflowData(pageSize);
        long next = 0;
        for (int from = (value.length - 1) / per * per; from >= 0; from -= per) {
            int n = Math.min(per, value.length - from);
            int page = pages.allocate();
            taken.set(page);
            Arrays.fill(buf, 0, PageLayout.OVERFLOW_DATA, (byte) 0);
            buf[PageLayout.KIND] = PageLayout.OVERFLOW;
            PageLayout.putInt(buf, PageLayout.USED, PageLayout.OVERFLOW_DATA + n);
            PageLayout.putLong(buf, PageLayout.OVERFLOW_NEXT, next);
            System.arraycopy(value, from, buf, PageLayout.OVERFLOW_DATA, n);
            next = pages.write(page, buf, PageLayout.OVERFLOW_DATA + n);
        }
        return new TreeNode.Overflow(next, value.length);
    }

    private byte[] readOverflow(TreeNode.Overflow o) {
        byte[] v = TreeReader.readOverflow(pages, o.ref(), o.length(), SortedLayout.refPage(o.ref()));
        if (v == null) {
            throw PageLayout.corrupt(SortedLayout.refPage(o.ref()), "an overflow page's stamp moved while the writer holds the lock");
        }
        return v;
    }

    private void retireOverflow(TreeNode.Overflow o) {
        for (int p : overflowPages(o)) {
            retire(p);
        }
    }

    /**
     * Drops a page from the tree being changed: a page of the published tree is freed once the
     * change is published; one this atomic change wrote itself (nobody else sees it) at once.
     */
    private void retire(int page) {
        if (taken.get(page)) {
            taken.clear(page);
            pages.free(page);
        } else {
            retired.add(page);
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
    private void publish(long root) {
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
