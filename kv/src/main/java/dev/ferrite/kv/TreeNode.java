package dev.ferrite.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.ferrite.kv.PageLayout.BODY;
import static dev.ferrite.kv.PageLayout.BRANCH_ENTRY_HEADER;
import static dev.ferrite.kv.PageLayout.LEAF_ENTRY_HEADER;

/**
 * A leaf or branch as the writer edits it, on the heap: decoded from a page, changed, encoded into
 * new pages (split when it outgrows one). A leaf's values are inline {@code byte[]}s or
 * {@link Overflow} references; a branch's children are references with their subtrees' entry
 * counts. Not thread-safe (the writer's).
 */
final class TreeNode {

    /** A value kept in overflow pages: the first page's reference and the value's length. */
    record Overflow(long ref, int length) {
    }

    final boolean leaf;
    /** Keys of a leaf; separators of a branch (the first is empty). */
    final List<byte[]> keys;
    /** A leaf's values: {@code byte[]} or {@link Overflow}. */
    final List<Object> values;
    /** A branch's child references. */
    final List<Long> refs;
    /** A branch's child entry counts. */
    final List<Long> counts;

    private TreeNode(boolean leaf, int capacity) {
        this.leaf = leaf;
        this.keys = new ArrayList<>(capacity + 2);
        this.values = leaf ? new ArrayList<>(capacity + 2) : null;
        this.refs = leaf ? null : new ArrayList<>(capacity + 2);
        this.counts = leaf ? null : new ArrayList<>(capacity + 2);
    }

    static TreeNode newLeaf() {
        return new TreeNode(true, 8);
    }

    static TreeNode newBranch() {
        return new TreeNode(false, 8);
    }

    /** Decodes a checked copy of a page. */
    static TreeNode decode(byte[] page, int number, int pageSize) {
        byte kind = PageLayout.checkNode(page, number, pageSize);
        int count = PageLayout.getU16(page, PageLayout.COUNT);
        TreeNode n = new TreeNode(kind == PageLayout.LEAF, count);
        for (int i = 0; i < count; i++) {
            if (n.leaf) {
                int at = PageLayout.entry(page, number, i, LEAF_ENTRY_HEADER);
                int k = PageLayout.leafKeyLength(page, number, at);
                int v = PageLayout.getInt(page, at + 3);
                int from = at + LEAF_ENTRY_HEADER;
                n.keys.add(Arrays.copyOfRange(page, from, from + k));
                n.values.add(page[at + 2] == PageLayout.INLINE
                        ? Arrays.copyOfRange(page, from + k, from + k + v)
                        : new Overflow(PageLayout.getLong(page, from + k), v));
            } else {
                int at = PageLayout.entry(page, number, i, BRANCH_ENTRY_HEADER);
                int k = PageLayout.separatorLength(page, number, at);
                n.refs.add(PageLayout.getLong(page, at));
                n.counts.add(PageLayout.getLong(page, at + 8));
                n.keys.add(Arrays.copyOfRange(page, at + BRANCH_ENTRY_HEADER, at + BRANCH_ENTRY_HEADER + k));
            }
        }
        return n;
    }

    int size() {
        return keys.size();
    }

    /** @return entries in this node's subtree: a leaf's entries, the sum of a branch's counts */
    long entries() {
        if (leaf) {
            return keys.size();
        }
        long sum = 0;
        for (long c : counts) {
            sum += c;
        }
        return sum;
    }

    /** @return bytes of entry {@code i} in a page, with its offset */
    int entryBytes(int i) {
        if (!leaf) {
            return 2 + BRANCH_ENTRY_HEADER + keys.get(i).length;
        }
        Object v = values.get(i);
        return 2 + LEAF_ENTRY_HEADER + keys.get(i).length + (v instanceof byte[] b ? b.length : 8);
    }

    /** @return bytes the node takes as one page */
    int bytes() {
        return rangeBytes(0, keys.size());
    }

    /**
     * @return whether two nodes of these sizes in bytes, merged, fit three quarters of a page: the
     *         rule by which a node under a quarter of a page merges with its neighbour
     */
    static boolean mergedFit(int bytes, int otherBytes, int pageSize) {
        return bytes + otherBytes - BODY <= pageSize * 3 / 4;
    }

    /** How an entry just added follows the one added before it: where a node that outgrew its page splits. */
    enum Run {
        /** No run: the node splits as {@link #split} says for where the entry went. */
        NONE,
        /** Added right after the one before (keys added in ascending order). */
        ASCENDING,
        /** Added right before the one before (descending order). */
        DESCENDING
    }

    /**
     * Splits the node into pieces that each fit a page, in order, so that keys added in order leave
     * full pages behind them. An entry added in a run (right after or right before the one added
     * before it) goes to a page of its own between the entries before and after it, which stay as
     * full as their page was; the run goes on in the new page, which also takes the entries on the
     * run's side if they are so few that the merge rule would join them to it. A node that grew at
     * its end or start otherwise fills its first or last pieces; any other node splits even by bytes.
     *
     * @param pageSize  bytes per page
     * @param changedAt the index of the entry last added or changed, or -1
     * @param run       how the entry at {@code changedAt} follows the one added before it
     * @return the pieces: this node alone if it fits
     */
    List<TreeNode> split(int pageSize, int changedAt, Run run) {
        int total = bytes();
        if (total <= pageSize) {
            return List.of(this);
        }
        int n = keys.size();
        if (run != Run.NONE) {
            // The run goes on from the new entry towards the entries on its side: when those are
            // few enough that the merge rule would join them to the new entry's page at the next
            // change, they share that page from the start.
            int from = changedAt;
            int to = changedAt + 1;
            int entry = BODY + entryBytes(changedAt);
            if (run == Run.DESCENDING && joins(rangeBytes(0, from), entry, pageSize)) {
                from = 0;
            } else if (run == Run.ASCENDING && joins(rangeBytes(to, n), entry, pageSize)) {
                to = n;
            }
            List<TreeNode> pieces = new ArrayList<>(3);
            addRange(pieces, 0, from, pageSize);
            addRange(pieces, from, to, pageSize);
            addRange(pieces, to, n, pageSize);
            return pieces;
        }
        boolean appended = changedAt == n - 1;
        boolean prepended = changedAt == 0;
        TreeNode left = new TreeNode(leaf, n / 2);
        TreeNode right = new TreeNode(leaf, n / 2);
        int filled = BODY;
        int i = 0;
        for (; i < n - 1; i++) {
            int b = entryBytes(i);
            boolean take = appended ? filled + b <= pageSize // a full left piece
                    : prepended ? total - filled + BODY > pageSize // the rest does not fit one page yet
                    : filled + b <= (total + BODY) / 2;
            if (i > 0 && !take) {
                break;
            }
            filled += b;
            left.take(this, i);
        }
        for (; i < n; i++) {
            right.take(this, i);
        }
        List<TreeNode> pieces = new ArrayList<>(3);
        pieces.addAll(left.bytes() > pageSize ? left.split(pageSize, prepended ? 0 : -1, Run.NONE) : List.of(left));
        pieces.addAll(right.bytes() > pageSize
                ? right.split(pageSize, appended ? right.size() - 1 : -1, Run.NONE) : List.of(right));
        return pieces;
    }

    /** @return bytes entries [from, to) take as one page */
    private int rangeBytes(int from, int to) {
        int sum = BODY;
        for (int i = from; i < to; i++) {
            sum += entryBytes(i);
        }
        return sum;
    }

    /** @return whether a piece of {@code bytes}, not empty, would be merged with one of {@code otherBytes} */
    private static boolean joins(int bytes, int otherBytes, int pageSize) {
        return bytes > BODY && bytes < pageSize / 4 && mergedFit(bytes, otherBytes, pageSize);
    }

    /** Adds entries [from, to) as a piece (none if empty; split evenly if over a page). */
    private void addRange(List<TreeNode> pieces, int from, int to, int pageSize) {
        if (from >= to) {
            return;
        }
        TreeNode piece = new TreeNode(leaf, to - from);
        for (int i = from; i < to; i++) {
            piece.take(this, i);
        }
        pieces.addAll(piece.split(pageSize, -1, Run.NONE));
    }

    /**
     * The separator a parent keeps for piece {@code right} after {@code left}: for branches, the
     * right piece's first separator, which moves up (the piece's own becomes empty); for leaves, the
     * shortest prefix of the right piece's first key above the left piece's last key.
     */
    static byte[] separator(TreeNode left, TreeNode right) {
        if (!right.leaf) {
            byte[] up = right.keys.get(0);
            right.keys.set(0, new byte[0]);
            return up;
        }
        byte[] last = left.keys.get(left.size() - 1);
        byte[] first = right.keys.get(0);
        int common = Arrays.mismatch(last, first);
        return Arrays.copyOf(first, common < 0 ? first.length : Math.min(first.length, common + 1));
    }

    /** Appends the entries of another node to this one (a merge; a branch's right first separator given). */
    void append(TreeNode other, byte[] firstSeparator) {
        for (int i = 0; i < other.size(); i++) {
            take(other, i);
            if (!leaf && i == 0) {
                keys.set(keys.size() - 1, firstSeparator);
            }
        }
    }

    private void take(TreeNode from, int i) {
        keys.add(from.keys.get(i));
        if (leaf) {
            values.add(from.values.get(i));
        } else {
            refs.add(from.refs.get(i));
            counts.add(from.counts.get(i));
        }
    }

    /**
     * Encodes the node as a page's bytes (stamp left 0).
     *
     * @param into a buffer of at least {@link #bytes()} bytes
     * @return bytes used
     */
    int encode(byte[] into) {
        int n = keys.size();
        int at = BODY + 2 * n;
        for (int i = 0; i < n; i++) {
            PageLayout.putU16(into, BODY + 2 * i, at);
            byte[] k = keys.get(i);
            if (leaf) {
                Object v = values.get(i);
                PageLayout.putU16(into, at, k.length);
                System.arraycopy(k, 0, into, at + LEAF_ENTRY_HEADER, k.length);
                int to = at + LEAF_ENTRY_HEADER + k.length;
                if (v instanceof byte[] b) {
                    into[at + 2] = PageLayout.INLINE;
                    PageLayout.putInt(into, at + 3, b.length);
                    System.arraycopy(b, 0, into, to, b.length);
                    at = to + b.length;
                } else {
                    Overflow o = (Overflow) v;
                    into[at + 2] = PageLayout.OVERFLOWED;
                    PageLayout.putInt(into, at + 3, o.length);
                    PageLayout.putLong(into, to, o.ref);
                    at = to + 8;
                }
            } else {
                PageLayout.putLong(into, at, refs.get(i));
                PageLayout.putLong(into, at + 8, counts.get(i));
                PageLayout.putU16(into, at + 16, k.length);
                System.arraycopy(k, 0, into, at + BRANCH_ENTRY_HEADER, k.length);
                at += BRANCH_ENTRY_HEADER + k.length;
            }
        }
        PageLayout.putNodeHeader(into, leaf ? PageLayout.LEAF : PageLayout.BRANCH, n, at);
        return at;
    }
}
