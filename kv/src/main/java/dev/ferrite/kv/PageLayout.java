package dev.ferrite.kv;

import dev.ferrite.CorruptFileException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Byte layout of a sorted map's pages, and reads of a page copied to a {@code byte[]}.
 * Little-endian. Mirrored in {@code docs/FORMAT.md} ("Sorted map, version 1").
 *
 * <pre>
 *   0       4      5     6       8      12      16
 *   +-------+------+-----+-------+------+-------+------------------------------------------+
 *   | STAMP | KIND | (0) | COUNT | USED | NEXT  | body                                     |
 *   +-------+------+-----+-------+------+-------+------------------------------------------+
 *   leaf, branch: COUNT u16 offsets of their entries, in key order, then the entries
 *   leaf entry:   u16 key length, u8 value kind, u32 value length, key, value (inline) or long ref (overflow)
 *   branch entry: long child ref, long child count, u16 separator length, separator
 *   overflow:     long ref of the next overflow page at 16 (0 for the last), value bytes from 24
 * </pre>
 *
 * <p>A page's bytes change only while its stamp is odd: a writer makes the stamp odd, writes,
 * then makes it even (one more). A reference names a page and the even stamp it had when the
 * reference was written, so a reader that sees the stamp equal before and after its copy has the
 * page the reference meant. Child {@code i} of a branch holds the keys at least separator {@code i}
 * (child 0's separator is empty and means "anything lower") and below separator {@code i + 1}.
 */
final class PageLayout {

    /** int: the page's stamp: even when its bytes are whole, odd while they are written or the page is free. */
    static final int STAMP = 0;
    /** byte: what the page holds. */
    static final int KIND = 4;
    /** u16: entries of a leaf, children of a branch. */
    static final int COUNT = 6;
    /** int: bytes of the page in use, from 0. */
    static final int USED = 8;
    /** int: a free page's next free page (0 ends the list). */
    static final int NEXT = 12;
    /** Where the offset table of a leaf or branch starts. */
    static final int BODY = 16;
    /** long, in an overflow page: the next overflow page's reference, 0 for the last. */
    static final int OVERFLOW_NEXT = 16;
    /** Where an overflow page's value bytes start. */
    static final int OVERFLOW_DATA = 24;

    /** Kind of a free page. */
    static final byte FREE = 0;
    /** Kind of a leaf: entries. */
    static final byte LEAF = 1;
    /** Kind of a branch: children. */
    static final byte BRANCH = 2;
    /** Kind of an overflow page: a piece of a value too long for its leaf. */
    static final byte OVERFLOW = 3;

    /** Leaf entry: the key length (u16), the value kind (u8), the value length (u32). */
    static final int LEAF_ENTRY_HEADER = 7;
    /** Value kind: the value's bytes follow the key. */
    static final byte INLINE = 0;
    /** Value kind: a long reference to the first of the value's overflow pages follows the key. */
    static final byte OVERFLOWED = 1;
    /** Branch entry: the child reference (long), the child's entry count (long), the separator length (u16). */
    static final int BRANCH_ENTRY_HEADER = 18;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

    private PageLayout() {
    }

    /**
     * @return the most bytes one entry (with its offset) may take in a page of that size: a
     *         quarter of the body, so that a page that overflows by one entry splits in two that fit
     */
    static int maxEntry(int pageSize) {
        return (pageSize - BODY) / 4;
    }

    /** @return the longest key a page of that size takes: its entry must fit with an overflow reference, or as a separator */
    static int maxKey(int pageSize) {
        return maxEntry(pageSize) - 2 - LEAF_ENTRY_HEADER - 8;
    }

    /** @return the bytes of value an overflow page of that size holds */
    static int overflowData(int pageSize) {
        return pageSize - OVERFLOW_DATA;
    }

    static int getInt(byte[] page, int at) {
        return (int) INT.get(page, at);
    }

    static long getLong(byte[] page, int at) {
        return (long) LONG.get(page, at);
    }

    static int getU16(byte[] page, int at) {
        return (short) SHORT.get(page, at) & 0xFFFF;
    }

    static void putInt(byte[] page, int at, int v) {
        INT.set(page, at, v);
    }

    static void putLong(byte[] page, int at, long v) {
        LONG.set(page, at, v);
    }

    static void putU16(byte[] page, int at, int v) {
        SHORT.set(page, at, (short) v);
    }

    /**
     * Writes a leaf's or branch's header after its stamp (which {@link PageStore#write} sets): kind,
     * the zero byte, count, used bytes and a zero {@code NEXT}.
     */
    static void putNodeHeader(byte[] page, byte kind, int count, int used) {
        page[KIND] = kind;
        page[KIND + 1] = 0;
        putU16(page, COUNT, count);
        putInt(page, USED, used);
        putInt(page, NEXT, 0);
    }

    // ---------------------------------------------------------------- checked reads of a copied page

    /**
     * Checks a copied leaf or branch page's header: its kind, count and used bytes.
     *
     * @return the page's kind
     * @throws CorruptFileException naming the page and the field
     */
    static byte checkNode(byte[] page, int number, int pageSize) {
        byte kind = page[KIND];
        int count = getU16(page, COUNT);
        int used = getInt(page, USED);
        if (kind != LEAF && kind != BRANCH) {
            throw corrupt(number, "kind " + kind + " where a leaf (1) or branch (2) was expected");
        }
        if (used < BODY + 2 * count || used > pageSize || count == 0 && kind == BRANCH) {
            throw corrupt(number, (kind == LEAF ? "leaf" : "branch") + " of " + count + " entries uses " + used
                    + " bytes, outside [" + (BODY + 2 * count) + ", " + pageSize + "]");
        }
        return kind;
    }

    /** @return where entry {@code i} of a checked page starts, checked to leave room for its header */
    static int entry(byte[] page, int number, int i, int header) {
        int at = getU16(page, BODY + 2 * i);
        int used = getInt(page, USED);
        if (at < BODY + 2 * getU16(page, COUNT) || at + header > used) {
            throw corrupt(number, "entry " + i + " at offset " + at + " lies outside the page's entries (used " + used + ")");
        }
        return at;
    }

    /** @return the key length of the leaf entry at {@code at}, checked against the page's used bytes */
    static int leafKeyLength(byte[] page, int number, int at) {
        int k = getU16(page, at);
        int v = getInt(page, at + 3);
        boolean inline = page[at + 2] == INLINE;
        long end = (long) at + LEAF_ENTRY_HEADER + k + (inline ? Integer.toUnsignedLong(v) : 8);
        if (page[at + 2] != INLINE && page[at + 2] != OVERFLOWED || v < 0 || end > getInt(page, USED)) {
            throw corrupt(number, "leaf entry at offset " + at + " (key " + k + " bytes, value kind " + page[at + 2]
                    + ", " + v + " bytes) ends past the page's used bytes, " + getInt(page, USED));
        }
        return k;
    }

    /** @return the separator length of the branch entry at {@code at}, checked against the page's used bytes */
    static int separatorLength(byte[] page, int number, int at) {
        int k = getU16(page, at + 16);
        if (at + BRANCH_ENTRY_HEADER + k > getInt(page, USED)) {
            throw corrupt(number, "branch entry at offset " + at + " with a separator of " + k
                    + " bytes ends past the page's used bytes, " + getInt(page, USED));
        }
        return k;
    }

    /**
     * Binary search of a leaf's keys.
     *
     * @return the entry's index if found, else {@code -(insertion point) - 1}
     */
    static int searchLeaf(byte[] page, int number, byte[] key) {
        int lo = 0;
        int hi = getU16(page, COUNT) - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int at = entry(page, number, mid, LEAF_ENTRY_HEADER);
            int k = leafKeyLength(page, number, at);
            int c = Arrays.compareUnsigned(page, at + LEAF_ENTRY_HEADER, at + LEAF_ENTRY_HEADER + k, key, 0, key.length);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    /** @return the child of a branch whose keys may include {@code key}: the last whose separator is at most it */
    static int searchBranch(byte[] page, int number, byte[] key) {
        int lo = 1;
        int hi = getU16(page, COUNT) - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int at = entry(page, number, mid, BRANCH_ENTRY_HEADER);
            int k = separatorLength(page, number, at);
            int c = Arrays.compareUnsigned(page, at + BRANCH_ENTRY_HEADER, at + BRANCH_ENTRY_HEADER + k, key, 0, key.length);
            if (c <= 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return lo - 1;
    }

    /** @return the child reference of branch entry {@code i} */
    static long childRef(byte[] page, int number, int i) {
        return getLong(page, entry(page, number, i, BRANCH_ENTRY_HEADER));
    }

    /** @return the entry count of branch entry {@code i}'s subtree */
    static long childCount(byte[] page, int number, int i) {
        return getLong(page, entry(page, number, i, BRANCH_ENTRY_HEADER) + 8);
    }

    static CorruptFileException corrupt(int number, String what) {
        return new CorruptFileException("sorted map page " + number + ": " + what);
    }
}
