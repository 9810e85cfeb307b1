package dev.ferrite.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

import static dev.ferrite.kv.PageLayout.BRANCH;
import static dev.ferrite.kv.PageLayout.COUNT;
import static dev.ferrite.kv.PageLayout.LEAF_ENTRY_HEADER;

/**
 * A sorted map's reads by key: point gets, the nearest entry to a key in either direction, and
 * runs of entries for iteration ({@link TreeRanks} reads by position). A read starts at the root
 * word and copies each page it visits; a copy whose stamp moved (the writer freed the page since
 * the root was read) starts the read over at the new root. All pages of one attempt belong to one
 * published tree, so every answer is the map as it was at one instant. Readers write nothing to
 * shared memory. Thread-safe.
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
    private final TreeRanks ranks;

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
        this.ranks = new TreeRanks(this, pageSize);
    }

    /** @return the reads by position of the same tree */
    TreeRanks ranks() {
        return ranks;
    }

    /** @return the calling thread's page buffer, which every read of this reader's fills */
    byte[] buffer() {
        return buffers.get();
    }

    /** @return the root word of the tree read */
    long root() {
        return roots.getAsLong();
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
    Run run(byte[] key, Rel rel, int max, byte[] bound, boolean boundInclusive, boolean keys) {
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
    Run collect(long root, byte[] buf, int number, int pos, int count, boolean up, int max,
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
     * Copies a page of the tree published as {@code root}.
     *
     * @return whether the copy is whole (false: the tree moved on since; start over)
     * @throws dev.ferrite.CorruptFileException if the tree is still the published one (its pages
     *                                          cannot have changed: the page is damaged), or the
     *                                          path is deeper than any tree (a branch refers back)
     */
    boolean read(long root, long ref, byte[] buf, int depth) {
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
