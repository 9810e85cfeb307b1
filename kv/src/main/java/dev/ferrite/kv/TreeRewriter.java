package dev.ferrite.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.ferrite.kv.PageLayout.BODY;
import static dev.ferrite.kv.PageLayout.BRANCH_ENTRY_HEADER;

/**
 * A sorted map's general change, for what the writer's in-place path does not do: the leaf decoded
 * into a node and changed, then the path written bottom up into new pages, each level's node merged
 * with a neighbour if it fell under a quarter of a page, split if it outgrew one, dropped if empty;
 * values too long for a leaf go to overflow pages. A branch above takes its changed child's pages
 * from its own bytes; only one that splits or merges is decoded. Not thread-safe: the caller holds
 * the map's lock.
 */
final class TreeRewriter {

    private final PageStore pages;
    private final int pageSize;
    private final ChangeLedger ledger;
    private final byte[] buf;
    /** Branches of a path this rewriter decoded (a split or merge reached them): a count for tests. */
    long branchesDecoded;

    TreeRewriter(PageStore pages, ChangeLedger ledger) {
        this.pages = pages;
        this.pageSize = pages.pageSize;
        this.ledger = ledger;
        this.buf = new byte[pageSize];
    }

    /**
     * Makes a change of one key in new pages: the leaf decoded and changed, then the path written
     * bottom up with splits and merges. The caller publishes the root word it returns.
     *
     * @param levels    copies of the path's pages, root first, as the writer descended it
     * @param pathPages their page numbers
     * @param pathChild the child taken in each branch of the path
     * @param depth     the path's length, 0 for an empty tree
     * @param pos       the key's index in the leaf, or {@code -(insertion point) - 1}
     * @param stored    the key's value as the leaf holds it ({@code byte[]} or {@link TreeNode.Overflow}), or null
     * @param next      the key's new value, or null to remove it
     * @param lastAdded the key the writer added before, or null: a run of keys added in order splits where it runs
     * @return the new root word
     */
    long rewrite(byte[][] levels, int[] pathPages, int[] pathChild, int depth, byte[] key, int pos, Object stored,
                 byte[] next, byte[] lastAdded) {
        List<TreeNode> nodes = new ArrayList<>(depth + 1);
        List<Integer> numbers = new ArrayList<>(depth + 1);
        List<Integer> childIndex = new ArrayList<>(depth);
        if (depth == 0) {
            nodes.add(TreeNode.newLeaf());
            numbers.add(0);
        }
        for (int level = 0; level < depth; level++) {
            // The leaf now; a branch only if a change below needs it decoded.
            nodes.add(level == depth - 1 ? TreeNode.decode(levels[level], pathPages[level], pageSize) : null);
            numbers.add(pathPages[level]);
            if (level < depth - 1) {
                childIndex.add(pathChild[level]);
            }
        }
        TreeNode leaf = nodes.get(nodes.size() - 1);
        if (stored instanceof TreeNode.Overflow o) {
            ledger.retireOverflow(o);
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
                run = runAt(leaf, changedAt, lastAdded);
            }
        }
        return rewrite(nodes, levels, numbers, childIndex, changedAt, run);
    }

    /** @return how a key just added at index {@code at} of a leaf follows the one this writer added before */
    private static TreeNode.Run runAt(TreeNode leaf, int at, byte[] lastAdded) {
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
    private long rewrite(List<TreeNode> nodes, byte[][] levels, List<Integer> numbers, List<Integer> childIndex,
                         int changedAt, TreeNode.Run run) {
        List<Piece> pieces = null;
        for (int level = nodes.size() - 1; level >= 0; level--) {
            TreeNode node = nodes.get(level);
            if (node == null) { // a branch of the path, not decoded yet
                Piece spliced = spliceBranch(levels, numbers, childIndex, level, pieces);
                if (spliced != null) {
                    pieces = List.of(spliced);
                    continue;
                }
                node = decoded(nodes, levels, numbers, level);
            }
            if (numbers.get(level) != 0) {
                ledger.retire(numbers.get(level));
            }
            if (pieces != null) {
                int i = childIndex.get(level);
                replaceChild(node, i, pieces);
                // Growth at the branch's start or end fills its pieces as a leaf's (TreeNode.split).
                changedAt = pieces.isEmpty() ? -1 : i == 0 ? 0 : i + pieces.size() - 1;
                run = TreeNode.Run.NONE;
            }
            if (level > 0 && node.size() > 0 && node.bytes() < pageSize / 4) {
                Merge m = mergeWithNeighbour(decoded(nodes, levels, numbers, level - 1), childIndex.get(level - 1), node);
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

    /**
     * @param parent a copy of the node's parent page
     * @param i      the node's index in its parent
     * @return whether a node (leaf or branch) of {@code used} bytes under a quarter of a page
     *         would be merged with its neighbour ({@link #mergeWithNeighbour}'s first test, by the
     *         neighbour's size): if not, it is written as it is
     */
    static boolean mergeable(PageStore pages, byte[] parent, int parentNumber, int i, int used) {
        int other = i > 0 ? i - 1 : i + 1;
        if (other >= PageLayout.getU16(parent, PageLayout.COUNT)) {
            return false;
        }
        int neighbour = SortedLayout.refPage(PageLayout.childRef(parent, parentNumber, other));
        return TreeNode.mergedFit(pages.getInt(neighbour, PageLayout.USED), used, pages.pageSize);
    }

    /** @return the path's node at {@code level}, decoded from its page copy if it was not yet */
    private TreeNode decoded(List<TreeNode> nodes, byte[][] levels, List<Integer> numbers, int level) {
        TreeNode node = nodes.get(level);
        if (node == null) {
            node = TreeNode.decode(levels[level], numbers.get(level), pageSize);
            nodes.set(level, node);
            branchesDecoded++;
        }
        return node;
    }

    /**
     * Writes the path's branch at {@code level} with the child the path takes replaced by the
     * pieces the level below became, from the page's bytes (no node decoded), when the branch
     * stays within a page and is not merged: the root with two children or more, another branch
     * at least a quarter of a page or not {@link #mergeable}.
     *
     * @return the branch's new piece, or null if it must be decoded (nothing written)
     */
    private Piece spliceBranch(byte[][] levels, List<Integer> numbers, List<Integer> childIndex, int level, List<Piece> pieces) {
        byte[] page = levels[level];
        int number = numbers.get(level);
        int i = childIndex.get(level);
        boolean root = level == 0;
        int count = PageLayout.getU16(page, PageLayout.COUNT);
        int newCount = count - 1 + pieces.size();
        if (pieces.isEmpty() || root && newCount < 2) {
            return null;
        }
        // One pass writes the entries into the buffer; it stops when they would not fit a page.
        int to = BODY + 2 * newCount;
        int slot = 0;
        long entries = 0;
        for (int j = 0; j < count; j++) {
            int at = PageLayout.entry(page, number, j, BRANCH_ENTRY_HEADER);
            int separator = PageLayout.separatorLength(page, number, at);
            for (int k = 0; k < (j == i ? pieces.size() : 1); k++) {
                Piece p = j == i ? pieces.get(k) : null;
                byte[] sep = p == null || k == 0 ? null : p.separator(); // the child's place keeps its separator
                int length = sep == null ? separator : sep.length;
                if (to + BRANCH_ENTRY_HEADER + length > pageSize) {
                    return null;
                }
                PageLayout.putU16(buf, BODY + 2 * slot++, to);
                if (p == null) {
                    System.arraycopy(page, at, buf, to, BRANCH_ENTRY_HEADER + separator);
                    entries += PageLayout.getLong(page, at + 8);
                } else {
                    PageLayout.putLong(buf, to, p.ref());
                    PageLayout.putLong(buf, to + 8, p.count());
                    PageLayout.putU16(buf, to + 16, length);
                    if (sep == null) {
                        System.arraycopy(page, at + BRANCH_ENTRY_HEADER, buf, to + BRANCH_ENTRY_HEADER, separator);
                    } else {
                        System.arraycopy(sep, 0, buf, to + BRANCH_ENTRY_HEADER, length);
                    }
                    entries += p.count();
                }
                to += BRANCH_ENTRY_HEADER + length;
            }
        }
        if (!root && to < pageSize / 4
                && mergeable(pages, levels[level - 1], numbers.get(level - 1), childIndex.get(level - 1), to)) {
            return null;
        }
        PageLayout.putNodeHeader(buf, PageLayout.BRANCH, newCount, to);
        ledger.retire(number);
        return new Piece(ledger.write(buf, to), entries, null);
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
        if (!TreeNode.mergedFit(pages.getInt(SortedLayout.refPage(ref), PageLayout.USED), nodeBytes, pageSize)) {
            return new Merge(node, i); // known from the neighbour's size alone: not decoded
        }
        TreeNode neighbour = TreeNode.decode(pages.readStable(ref, buf), SortedLayout.refPage(ref), pageSize);
        if (neighbour.leaf != node.leaf || !TreeNode.mergedFit(neighbour.bytes(), nodeBytes, pageSize)) {
            return new Merge(node, i);
        }
        int left = Math.min(i, other);
        TreeNode merged = left == other ? neighbour : node;
        merged.append(left == other ? node : neighbour, parent.keys.get(left + 1));
        ledger.retire(SortedLayout.refPage(ref));
        parent.keys.remove(left + 1);
        parent.refs.remove(left + 1);
        parent.counts.remove(left + 1);
        parent.counts.set(left, merged.entries());
        return new Merge(merged, left);
    }

    private long write(TreeNode node) {
        int used = node.encode(buf);
        return ledger.write(buf, used);
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
            int page = ledger.take();
            Arrays.fill(buf, 0, PageLayout.OVERFLOW_DATA, (byte) 0);
            buf[PageLayout.KIND] = PageLayout.OVERFLOW;
            PageLayout.putInt(buf, PageLayout.USED, PageLayout.OVERFLOW_DATA + n);
            PageLayout.putLong(buf, PageLayout.OVERFLOW_NEXT, next);
            System.arraycopy(value, from, buf, PageLayout.OVERFLOW_DATA, n);
            next = pages.write(page, buf, PageLayout.OVERFLOW_DATA + n);
        }
        return new TreeNode.Overflow(next, value.length);
    }
}
