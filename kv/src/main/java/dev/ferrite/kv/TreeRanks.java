package dev.ferrite.kv;

import dev.ferrite.kv.TreeReader.Hit;
import dev.ferrite.kv.TreeReader.Rel;
import dev.ferrite.kv.TreeReader.Run;

import java.util.ArrayList;
import java.util.List;

import static dev.ferrite.kv.PageLayout.BRANCH;
import static dev.ferrite.kv.PageLayout.COUNT;

/**
 * A sorted map's reads by position: ranks of keys, counts between keys, the size, and entries by
 * rank. Branches keep the entry count of each child, so a rank or a position costs one descent.
 * Every answer comes from one published tree (the reader's attempts start over when it moves on),
 * so two ranks taken together cannot be skewed by a change between them. Thread-safe.
 */
final class TreeRanks {

    private final TreeReader reader;
    private final int pageSize;

    TreeRanks(TreeReader reader, int pageSize) {
        this.reader = reader;
        this.pageSize = pageSize;
    }

    /**
     * @param key       a key
     * @param inclusive whether to count the key itself
     * @return entries whose keys are below the key (or at most it)
     */
    long countBelow(byte[] key, boolean inclusive) {
        byte[] buf = reader.buffer();
        while (true) {
            long below = rank(reader.root(), key, inclusive, buf);
            if (below >= 0) {
                return below;
            }
        }
    }

    /**
     * @return the entries of the tree at {@code root} whose keys are below {@code key} (or at most
     *         it), or -1 if the tree moved on meanwhile (start over)
     */
    private long rank(long root, byte[] key, boolean inclusive, byte[] buf) {
        return rankFrom(root, root, 0, 0, -1, key, inclusive, buf);
    }

    /**
     * A rank, from a page of the tree at {@code root} on.
     *
     * @param ref     the page to start at
     * @param depth   its depth
     * @param below   the entries left of it
     * @param subtree the entries under it, from its parent's entry (-1: unknown, for the root)
     * @return the entries of the tree whose keys are below {@code key} (or at most it), or -1 if
     *         the tree moved on meanwhile (start over)
     */
    private long rankFrom(long root, long ref, int depth, long below, long subtree, byte[] key, boolean inclusive,
                          byte[] buf) {
        for (; ref != 0; depth++) {
            if (!reader.read(root, ref, buf, depth)) {
                return -1;
            }
            int number = SortedLayout.refPage(ref);
            if (PageLayout.checkNode(buf, number, pageSize) == BRANCH) {
                int i = PageLayout.searchBranch(buf, number, key);
                below += countLeftOf(buf, number, i, subtree);
                subtree = PageLayout.childCount(buf, number, i);
                ref = PageLayout.childRef(buf, number, i);
                continue;
            }
            int found = PageLayout.searchLeaf(buf, number, key);
            return below + (found >= 0 ? found + (inclusive ? 1 : 0) : -found - 1);
        }
        return 0;
    }

    /**
     * The ranks of two keys in the tree at {@code root}, in one descent while their paths agree:
     * each page above the one where they part is copied once.
     *
     * @param out receives the entries below {@code lo} (or at most it) and below {@code hi}
     * @return false if the tree moved on meanwhile (start over)
     */
    private boolean ranks(long root, byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, byte[] buf,
                          long[] out) {
        long ref = root;
        long below = 0;
        long subtree = -1;
        for (int depth = 0; ref != 0; depth++) {
            if (!reader.read(root, ref, buf, depth)) {
                return false;
            }
            int number = SortedLayout.refPage(ref);
            if (PageLayout.checkNode(buf, number, pageSize) == BRANCH) {
                int i = PageLayout.searchBranch(buf, number, lo);
                int j = PageLayout.searchBranch(buf, number, hi);
                if (i == j) {
                    below += countLeftOf(buf, number, i, subtree);
                    subtree = PageLayout.childCount(buf, number, i);
                    ref = PageLayout.childRef(buf, number, i);
                    continue;
                }
                // The paths part here: take what the second needs before the first reuses the buffer.
                long belowHi = below + countLeftOf(buf, number, j, subtree);
                long subtreeHi = PageLayout.childCount(buf, number, j);
                long refHi = PageLayout.childRef(buf, number, j);
                long belowLo = below + countLeftOf(buf, number, i, subtree);
                long a = rankFrom(root, PageLayout.childRef(buf, number, i), depth + 1, belowLo,
                        PageLayout.childCount(buf, number, i), lo, loInclusive, buf);
                long b = a < 0 ? -1 : rankFrom(root, refHi, depth + 1, belowHi, subtreeHi, hi, hiInclusive, buf);
                out[0] = a;
                out[1] = b;
                return b >= 0;
            }
            int f = PageLayout.searchLeaf(buf, number, lo);
            int g = PageLayout.searchLeaf(buf, number, hi);
            out[0] = below + (f >= 0 ? f + (loInclusive ? 1 : 0) : -f - 1);
            out[1] = below + (g >= 0 ? g + (hiInclusive ? 1 : 0) : -g - 1);
            return true;
        }
        out[0] = 0;
        out[1] = 0;
        return true;
    }

    /**
     * @param subtree the entries under the branch (its parent's count of it), or -1 if unknown
     * @return the entries under the branch's children left of child {@code i}: their counts
     *         summed, or, when fewer children lie right of it, the subtree's count less theirs
     */
    private static long countLeftOf(byte[] buf, int number, int i, long subtree) {
        int count = PageLayout.getU16(buf, COUNT);
        if (subtree >= 0 && count - i < i) {
            long right = sumCounts(buf, number, i, count);
            if (right >= 0 && right <= subtree) { // else counts that disagree (damage): sum the left side
                return subtree - right;
            }
        }
        return sumCounts(buf, number, 0, i);
    }

    /** @return the counts of a branch's children [from, to) summed */
    private static long sumCounts(byte[] buf, int number, int from, int to) {
        long sum = 0;
        for (int j = from; j < to; j++) {
            sum += PageLayout.childCount(buf, number, j);
        }
        return sum;
    }

    /** @return the entry at a position in key order (0 the first), or null if there are not that many */
    Hit at(long index) {
        return at(null, index);
    }

    /**
     * @param from  a key, or null for the first
     * @param index a position among the keys from {@code from} on (0 the first at or above it)
     * @return the entry at that position, or null if there are not that many; both found in one
     *         published tree
     */
    Hit at(byte[] from, long index) {
        List<Hit> hits = runAt(from, index, 1, null, false, true);
        return hits.isEmpty() ? null : hits.get(0);
    }

    /**
     * Up to {@code max} entries in ascending key order from a position: those of the leaf that
     * holds the position are found with the position in one published tree; the rest, leaf by
     * leaf, as an iteration reads them.
     *
     * @param from  a key, or null for the first
     * @param index a position among the keys from {@code from} on (0 the first at or above it)
     * @param max   the most entries to return, at least 1
     * @param bound the highest key to return, or null for none
     * @param boundInclusive whether an entry whose key is the bound is returned
     * @param keys  whether every hit gets its key (else the values only, see {@link Hit})
     * @return the entries (none if there are not more than {@code index})
     */
    List<Hit> runAt(byte[] from, long index, int max, byte[] bound, boolean boundInclusive, boolean keys) {
        byte[] buf = reader.buffer();
        // Index 0 is the entry at or above the key: one descent by key, no rank to find first.
        Run first = index == 0 ? reader.run(from, Rel.GE, max, bound, boundInclusive, keys) : null;
        retry:
        while (first == null) {
            long root = reader.root();
            long base = from == null ? 0 : rank(root, from, false, buf);
            if (base < 0) {
                continue;
            }
            long ref = root;
            long rest = base + index;
            if (rest < 0) { // past any tree's size
                return List.of();
            }
            long subtree = -1; // the entries under ref, from its parent's entry (unknown for the root)
            for (int depth = 0; ref != 0; depth++) {
                if (!reader.read(root, ref, buf, depth)) {
                    continue retry;
                }
                int number = SortedLayout.refPage(ref);
                int count = PageLayout.getU16(buf, COUNT);
                if (PageLayout.checkNode(buf, number, pageSize) == BRANCH) {
                    int i = -1;
                    if (subtree >= 0 && rest < subtree && rest >= subtree - rest) { // nearer the end: count from there
                        long after = subtree - rest; // the positions from rest to the subtree's end, at least 1
                        for (int j = count - 1; j >= 0 && i < 0; j--) {
                            long c = PageLayout.childCount(buf, number, j);
                            if (after <= c) {
                                i = j;
                                rest = c - after;
                            }
                            after -= c;
                        }
                    }
                    if (i < 0) { // from the first child (also if the counts disagree with the subtree's)
                        for (i = 0; i < count; i++) {
                            long c = PageLayout.childCount(buf, number, i);
                            if (rest < c) {
                                break;
                            }
                            rest -= c;
                        }
                        if (i == count) {
                            return List.of();
                        }
                    }
                    subtree = PageLayout.childCount(buf, number, i);
                    ref = PageLayout.childRef(buf, number, i);
                    continue;
                }
                if (rest >= count) {
                    return List.of();
                }
                first = reader.collect(root, buf, number, (int) rest, count, true, max, bound, boundInclusive, keys);
                continue retry;
            }
            return List.of();
        }
        List<Hit> hits = first.hits();
        if (first.last() || hits.size() == max || hits.isEmpty()) {
            return hits;
        }
        List<Hit> all = new ArrayList<>(Math.min(max, 1 << 12)); // sized once: each leaf's run is added without regrowing it
        all.addAll(hits);
        while (all.size() < max) {
            Run next = reader.run(all.get(all.size() - 1).key(), Rel.GT, max - all.size(), bound, boundInclusive, keys);
            all.addAll(next.hits());
            if (next.last() || next.hits().isEmpty()) {
                break;
            }
        }
        return all;
    }

    /**
     * @param lo          the lower bound, or null for none
     * @param loInclusive whether an entry at {@code lo} counts
     * @param hi          the upper bound, or null for none
     * @param hiInclusive whether an entry at {@code hi} counts
     * @return the entries between the bounds, both ranks found in one published tree (a change
     *         elsewhere in the tree between two reads cannot skew the difference)
     */
    long countBetween(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive) {
        byte[] buf = reader.buffer();
        long[] both = new long[2];
        while (true) {
            long root = reader.root();
            if (lo != null && hi != null) {
                if (ranks(root, lo, !loInclusive, hi, hiInclusive, buf, both)) {
                    return Math.max(0, both[1] - both[0]);
                }
                continue;
            }
            long upper = hi == null ? total(root, buf) : rank(root, hi, hiInclusive, buf);
            long lower = lo == null || upper < 0 ? 0 : rank(root, lo, !loInclusive, buf);
            if (upper >= 0 && lower >= 0) {
                return Math.max(0, upper - lower);
            }
        }
    }

    /**
     * @return the entries below {@code lo} and below {@code hi}, both counted in one published tree
     *         (two {@link #countBelow} calls may count in two)
     */
    long[] countsBelow(byte[] lo, byte[] hi) {
        byte[] buf = reader.buffer();
        long[] both = new long[2];
        while (!ranks(reader.root(), lo, false, hi, false, buf, both)) {
            // the tree moved on: count again
        }
        return both;
    }

    /** @return the entries of the tree at {@code root}, or -1 if the tree moved on meanwhile (start over) */
    private long total(long root, byte[] buf) {
        if (root == 0) {
            return 0;
        }
        if (!reader.read(root, root, buf, 0)) {
            return -1;
        }
        int number = SortedLayout.refPage(root);
        int count = PageLayout.getU16(buf, COUNT);
        if (PageLayout.checkNode(buf, number, pageSize) != BRANCH) {
            return count;
        }
        long sum = 0;
        for (int i = 0; i < count; i++) {
            sum += PageLayout.childCount(buf, number, i);
        }
        return sum;
    }
}
