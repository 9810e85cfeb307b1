package dev.ferrite.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;

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
        long root = root();
        List<TreeNode> nodes = new ArrayList<>();
        List<Integer> numbers = new ArrayList<>();
        List<Integer> childIndex = new ArrayList<>();
        if (root == 0) {
            nodes.add(TreeNode.newLeaf());
            numbers.add(0);
        } else {
            long ref = root;
            for (int depth = 0; ; depth++) {
                if (depth > TreeReader.MAX_DEPTH) {
                    throw PageLayout.corrupt(SortedLayout.refPage(ref), "lies deeper than " + TreeReader.MAX_DEPTH
                            + " levels: a branch refers back to a page above it");
                }
                TreeNode n = node(ref);
                nodes.add(n);
                numbers.add(SortedLayout.refPage(ref));
                if (n.leaf) {
                    break;
                }
                int i = childFor(n, key);
                childIndex.add(i);
                ref = n.refs.get(i);
            }
        }
        TreeNode leaf = nodes.get(nodes.size() - 1);
        int pos = Collections.binarySearch(leaf.keys, key, Arrays::compareUnsigned);
        Object stored = pos >= 0 ? leaf.values.get(pos) : null;
        byte[] old = stored == null ? null : stored instanceof byte[] b ? b : readOverflow((TreeNode.Overflow) stored);
        byte[] next = change.apply(old);
        if (next == old || next == null && old == null) {
            return old;
        }
        try {
            int changedAt;
            if (stored instanceof TreeNode.Overflow o) {
                retireOverflow(o);
            }
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
                }
            }
            publish(rewrite(nodes, numbers, childIndex, changedAt));
        } catch (RuntimeException | Error e) {
            fail(e);
            throw e;
        }
        return old;
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
    private long rewrite(List<TreeNode> nodes, List<Integer> numbers, List<Integer> childIndex, int changedAt) {
        List<Piece> pieces = null;
        for (int level = nodes.size() - 1; level >= 0; level--) {
            TreeNode node = nodes.get(level);
            if (numbers.get(level) != 0) {
                retire(numbers.get(level));
            }
            if (pieces != null) {
                int i = childIndex.get(level);
                replaceChild(node, i, pieces);
                changedAt = i;
            }
            if (level > 0 && node.size() > 0 && node.bytes() < pageSize / 4) {
                Merge m = mergeWithNeighbour(nodes.get(level - 1), childIndex.get(level - 1), node);
                node = m.node();
                childIndex.set(level - 1, m.index());
            }
            if (level == 0 && !node.leaf && node.size() == 1) {
                return node.refs.get(0); // a root of one child gives way to the child
            }
            pieces = write(node.size() == 0 ? List.of() : node.split(pageSize, changedAt));
        }
        while (pieces.size() > 1) {
            TreeNode root = TreeNode.newBranch();
            replaceChild(root, -1, pieces);
            pieces = write(root.split(pageSize, -1));
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
        TreeNode neighbour = node(parent.refs.get(other));
        if (neighbour.leaf != node.leaf || neighbour.bytes() + node.bytes() - PageLayout.BODY > pageSize * 3 / 4) {
            return new Merge(node, i);
        }
        int left = Math.min(i, other);
        TreeNode merged = left == other ? neighbour : node;
        merged.append(left == other ? node : neighbour, parent.keys.get(left + 1));
        retire(SortedLayout.refPage(parent.refs.get(other)));
        parent.keys.remove(left + 1);
        parent.refs.remove(left + 1);
        parent.counts.remove(left + 1);
        parent.counts.set(left, merged.entries());
        return new Merge(merged, left);
    }

    // ---------------------------------------------------------------- pages

    private long write(TreeNode node) {
        int page = pages.allocate();
        taken.set(page);
        Arrays.fill(buf, 0, PageLayout.BODY, (byte) 0);
        int used = node.encode(buf);
        return pages.write(page, buf, used);
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
        pages.header.putLongVolatile(SortedLayout.ROOT, root);
        pages.header.getAndAddLong(SortedLayout.COMMITS, 1);
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
