package dev.ferrite.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

import static dev.ferrite.kv.PageLayout.BRANCH;
import static dev.ferrite.kv.PageLayout.COUNT;
import static dev.ferrite.kv.PageLayout.LEAF_ENTRY_HEADER;

/**
 * A sorted map's reads: point gets, the nearest entry to a key in either direction, runs of
 * entries for iteration, ranks and entries by rank. A read starts at the root word and copies each
 * page it visits; a copy whose stamp moved (the writer freed the page since the root was read)
 * starts the read over at the new root. All pages of one attempt belong to one published tree, so
 * every answer is the map as it was at one instant. Readers write nothing to shared memory.
 * Thread-safe.
 */
final class TreeReader {

    /** The relation of a wanted entry's key to the key given. */
    enum Rel {
        LT, LE, GE, GT;

        boolean ascending() {
            return this == GE || this == GT;
        }
    }

    /**
     * A key and its value, as bytes. The key is null in a read for values only, except in the last
     * hit of a {@link Run}, where an iteration goes on from.
     */
    record Hit(byte[] key, byte[] value) {
    }

    /**
     * Entries an iteration reads at a time ({@link #run}).
     *
     * @param hits the entries, in the run's direction
     * @param last whether no entry after them lies within the run's bound (the iteration ends)
     */
    record Run(List<Hit> hits, boolean last) {
    }

    /** Deeper than any tree: a B+tree of 2^31 pages with at least two children per branch has 32 levels. */
    static final int MAX_DEPTH = 64;

    private final PageStore pages;
    private final int pageSize;
    private final LongSupplier roots;
    private final ThreadLocal<byte[]> buffers;

    /** A reader of the published tree. */
    TreeReader(PageStore pages) {
        this(pages, () -> pages.header.getLongVolatile(SortedLayout.ROOT));
    }

    /**
     * @param roots gives the root word of the tree to read: the published one, or the one an
     *              atomic change builds (read by its own thread only)
     */
    TreeReader(PageStore pages, LongSupplier roots) {
        this.pages = pages;
        this.pageSize = pages.pageSize;
        this.roots = roots;
        this.buffers = ThreadLocal.withInitial(() -> new byte[pageSize]);
    }

    /** @return the value of a key, or null */
    byte[] get(byte[] key) {
        byte[] buf = buffers.get();
        retry:
        while (true) {
            long root = roots.getAsLong();
            long ref = root;
            for (int depth = 0; ref != 0; depth++) {
                if (!read(root, ref, buf, depth)) {
                    continue retry;
                }
                int number = SortedLayout.refPage(ref);
                if (PageLayout.checkNode(buf, number, pageSize) == BRANCH) {
                    ref = PageLayout.childRef(buf, number, PageLayout.searchBranch(buf, number, key));
                    continue;
                }
                int i = PageLayout.searchLeaf(buf, number, key);
                if (i < 0) {
                    return null;
                }
                byte[] value = value(root, buf, number, PageLayout.entry(buf, number, i, LEAF_ENTRY_HEADER));
                if (value == null) {
                    continue retry;
                }
                return value;
            }
            return null;
        }
    }

    /**
     * @param key the key to compare with, or null for the first entry (ascending relations) or
     *            the last (descending)
     * @return the nearest entry in that relation to the key, or null
     */
    Hit find(byte[] key, Rel rel) {
        List<Hit> run = run(key, rel, 1, null, false).hits();
        return run.isEmpty() ? null : run.get(0);
    }

    /**
     * The entries from the nearest one in a relation to a key onwards in that relation's
     * direction, as far as the leaf holding the first goes: what an iterator takes at a time.
     *
     * <p>Entries beyond a bound are not read: a range's iteration copies only the entries in it.
     *
     * @param key            the key, or null to start at the first (ascending) or last (descending) entry
     * @param max            the most entries to return, at least 1
     * @param bound          where the entries end in the run's direction (the highest key of an
     *                       ascending run, the lowest of a descending one), or null for none
     * @param boundInclusive whether an entry whose key is the bound is within it
     * @return the entries in the relation's direction (none if none is in that relation), and
     *         whether the run met its bound
     */
    Run run(byte[] key, Rel rel, int max, byte[] bound, boolean boundInclusive) {
        return run(key, rel, max, bound, boundInclusive, true);
    }

    /** As {@link #run(byte[], Rel, int, byte[], boolean)}; {@code keys} false: hits but the run's last without a key. */
    private Run run(byte[] key, Rel rel, int max, byte[] bound, boolean boundInclusive, boolean keys) {
        byte[] buf = buffers.get();
        boolean up = rel.ascending();
        retry:
        while (true) {
            long root = roots.getAsLong();
            long ref = root;
            long fallback = 0; // the subtree beside the path in the wanted direction, deepest so far
            byte[] k = key;
            for (int depth = 0; ref != 0; depth++) {
                if (!read(root, ref, buf, depth)) {
                    continue retry;
                }
                int number = SortedLayout.refPage(ref);
                int count = PageLayout.getU16(buf, COUNT);
                if (PageLayout.checkNode(buf, number, pageSize) == BRANCH) {
                    int i = k == null ? (up ? 0 : count - 1) : PageLayout.searchBranch(buf, number, k);
                    if (up ? i + 1 < count : i > 0) {
                        fallback = PageLayout.childRef(buf, number, up ? i + 1 : i - 1);
                    }
                    ref = PageLayout.childRef(buf, number, i);
                    continue;
                }
                int pos;
                if (k == null) {
                    pos = up ? 0 : count - 1;
                } else {
                    int found = PageLayout.searchLeaf(buf, number, k);
                    if (found >= 0) {
                        pos = switch (rel) {
                            case LT -> found - 1;
                            case LE, GE -> found;
                            case GT -> found + 1;
                        };
                    } else {
                        pos = up ? -found - 1 : -found - 2;
                    }
                }
                if (pos >= 0 && pos < count) {
                    Run r = collect(root, buf, number, pos, count, up, max, bound, boundInclusive, keys);
                    if (r == null) {
                        continue retry;
                    }
                    return r;
                }
                ref = fallback;
                fallback = 0;
                k = null;
            }
            return new Run(List.of(), true);
        }
    }

    /**
     * The entries of a copied leaf from position {@code pos} in a run's direction, as far as the
     * leaf, {@code max} and the bound go. The bound is compared with the last entry the run may
     * take first: when that one is within it, so are all before it, and no other is compared. With
     * {@code keys} false only the last entry's key is copied (the next run starts after it).
     *
     * @return the entries, or null if an overflow value moved (the read starts over)
     */
    private Run collect(long root, byte[] buf, int number, int pos, int count, boolean up, int max,
                        byte[] bound, boolean boundInclusive, boolean keys) {
        int n = Math.min(max, up ? count - pos : pos + 1);
        int step = up ? 1 : -1;
        boolean checkEach = bound != null && beyondAt(buf, number, pos + step * (n - 1), bound, boundInclusive, up);
        List<Hit> hits = new ArrayList<>(n);
        for (int k = 0, i = pos; k < n; k++, i += step) {
            int at = PageLayout.entry(buf, number, i, LEAF_ENTRY_HEADER);
            int kl = PageLayout.leafKeyLength(buf, number, at);
            int from = at + LEAF_ENTRY_HEADER;
            if (checkEach && beyond(buf, from, from + kl, bound, boundInclusive, up)) {
                return new Run(hits, true);
            }
            byte[] v = value(root, buf, number, at);
            if (v == null) {
                return null;
            }
            hits.add(new Hit(keys || k == n - 1 ? Arrays.copyOfRange(buf, from, from + kl) : null, v));
        }
        return new Run(hits, false);
    }

    /** @return whether the key of a copied leaf's entry {@code i} lies beyond a bound in a run's direction */
    static boolean beyondAt(byte[] buf, int number, int i, byte[] bound, boolean inclusive, boolean up) {
        int at = PageLayout.entry(buf, number, i, LEAF_ENTRY_HEADER);
        int from = at + LEAF_ENTRY_HEADER;
        return beyond(buf, from, from + PageLayout.leafKeyLength(buf, number, at), bound, inclusive, up);
    }

    /** @return whether the key {@code buf[from, to)} lies beyond a bound in a run's direction */
    private static boolean beyond(byte[] buf, int from, int to, byte[] bound, boolean inclusive, boolean up) {
        int c = Arrays.compareUnsigned(buf, from, to, bound, 0, bound.length);
        return up ? c > 0 || c == 0 && !inclusive : c < 0 || c == 0 && !inclusive;
    }

    /**
     * @param key       a key
     * @param inclusive whether to count the key itself
     * @return entries whose keys are below the key (or at most it)
     */
    long countBelow(byte[] key, boolean inclusive) {
        byte[] buf = buffers.get();
        while (true) {
            long below = rank(roots.getAsLong(), key, inclusive, buf);
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
            if (!read(root, ref, buf, depth)) {
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
            if (!read(root, ref, buf, depth)) {
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
        byte[] buf = buffers.get();
        // Index 0 is the entry at or above the key: one descent by key, no rank to find first.
        Run first = index == 0 ? run(from, Rel.GE, max, bound, boundInclusive, keys) : null;
        retry:
        while (first == null) {
            long root = roots.getAsLong();
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
                if (!read(root, ref, buf, depth)) {
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
                first = collect(root, buf, number, (int) rest, count, true, max, bound, boundInclusive, keys);
                continue retry;
            }
            return List.of();
        }
        List<Hit> hits = first.hits();
        if (first.last() || hits.size() == max || hits.isEmpty()) {
            return hits;
        }
        List<Hit> all = new ArrayList<>(hits);
        while (all.size() < max) {
            Run next = run(all.get(all.size() - 1).key(), Rel.GT, max - all.size(), bound, boundInclusive, keys);
            all.addAll(next.hits());
            if (next.last() || next.hits().isEmpty()) {
                break;
            }
        }
        return all;
    }

    /** @return entries in the map */
    long size() {
        byte[] buf = buffers.get();
        while (true) {
            long size = total(roots.getAsLong(), buf);
            if (size >= 0) {
                return size;
            }
        }
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
        byte[] buf = buffers.get();
        long[] both = new long[2];
        while (true) {
            long root = roots.getAsLong();
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
        byte[] buf = buffers.get();
        long[] both = new long[2];
        while (!ranks(roots.getAsLong(), lo, false, hi, false, buf, both)) {
            // the tree moved on: count again
        }
        return both;
    }

    /** @return the entries of the tree at {@code root}, or -1 if the tree moved on meanwhile (start over) */
    private long total(long root, byte[] buf) {
        if (root == 0) {
            return 0;
        }
        if (!read(root, root, buf, 0)) {
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

    /**
     * Copies a page of the tree published as {@code root}.
     *
     * @return whether the copy is whole (false: the tree moved on since; start over)
     * @throws dev.ferrite.CorruptFileException if the tree is still the published one (its pages
     *                                          cannot have changed: the page is damaged), or the
     *                                          path is deeper than any tree (a branch refers back)
     */
    private boolean read(long root, long ref, byte[] buf, int depth) {
        if (depth > MAX_DEPTH) {
            throw PageLayout.corrupt(SortedLayout.refPage(ref), "lies deeper than " + MAX_DEPTH
                    + " levels, more than any tree has: a branch refers back to a page above it");
        }
        if (pages.read(ref, buf)) {
            return true;
        }
        stillPublished(root, ref);
        return false;
    }

    /** @throws dev.ferrite.CorruptFileException if a page that failed its stamp check belongs to the published tree */
    private void stillPublished(long root, long ref) {
        if (roots.getAsLong() == root) {
            throw PageLayout.corrupt(SortedLayout.refPage(ref), "its stamp is not " + SortedLayout.refStamp(ref)
                    + ", the one the published tree's reference names");
        }
    }

    /** @return the value of the checked leaf entry at {@code at}, or null if an overflow page moved */
    private byte[] value(long root, byte[] buf, int number, int at) {
        int kl = PageLayout.leafKeyLength(buf, number, at);
        int length = PageLayout.getInt(buf, at + 3);
        int from = at + LEAF_ENTRY_HEADER + kl;
        if (buf[at + 2] == PageLayout.INLINE) {
            return Arrays.copyOfRange(buf, from, from + length);
        }
        byte[] v = readOverflow(pages, PageLayout.getLong(buf, from), length, number);
        if (v == null) {
            stillPublished(root, PageLayout.getLong(buf, from));
        }
        return v;
    }

    /**
     * Reads a value kept in overflow pages.
     *
     * @return the value, or null if one of its pages moved (the read starts over)
     */
    static byte[] readOverflow(PageStore pages, long ref, int length, int leaf) {
        if (length > SortedStore.MAX_VALUE) {
            throw PageLayout.corrupt(leaf, "an overflow value of " + length + " bytes, more than the most, "
                    + SortedStore.MAX_VALUE);
        }
        byte[] out = new byte[length];
        int per = PageLayout.overflowData(pages.pageSize);
        for (int done = 0; done < length; ) {
            if (ref == 0) {
                throw PageLayout.corrupt(leaf, "an overflow value of " + length + " bytes ends after " + done);
            }
            int n = Math.min(per, length - done);
            long next = pages.readOverflow(ref, out, done, n);
            if (next == -1) {
                return null;
            }
            done += n;
            ref = next;
        }
        return out;
    }
}
