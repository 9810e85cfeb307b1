package dev.ferrite.kv.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys and values of the collection store ({@code docs/FORMAT.md}, "KV server collections,
 * version 1"): one sorted map whose keys begin with a collection's id (8 bytes, big-endian), so
 * each collection's entries lie together, in order.
 *
 * <pre>
 *   [id][0]                 header: the owners, each [name length u8][database file name, ASCII]
 *                           [key length u32 BE][key]: the keys whose stored value names this id
 *   [id][1][member]         an element: a hash's field (value: the field's value), a set's member
 *                           (value: empty), a list's position (value: the element), a sorted
 *                           set's member (value: its score, IEEE 754 binary64 bits, u64 BE)
 *   [id][2][order][member]  a sorted set's member by score: {@code order} is the score as a u64
 *                           BE whose unsigned order is the scores' order ({@link #order}); value
 *                           empty
 *   [0 x 8][0]              the next id to give (u64 BE); ids start at 1
 *   [0 x 8][1][record u64]  a journaled command finished (value: empty): its undo-journal
 *                           record is not undone at the next start
 * </pre>
 */
final class CollectionLayout {

    /** Bytes of an id. */
    static final int ID_BYTES = 8;
    /** The kind byte of a collection's header. */
    static final byte HEADER = 0;
    /** The kind byte of a collection's elements. */
    static final byte ELEMENT = 1;
    /** The kind byte of a sorted set's members by score. */
    static final byte SCORE = 2;
    /** Bytes of a score's order in a {@link #SCORE} key. */
    static final int ORDER_BYTES = 8;
    /** Bytes before an element's member: id and kind. */
    static final int PREFIX = ID_BYTES + 1;
    /** The key of the next id to give. */
    static final byte[] NEXT_ID = new byte[PREFIX];

    /** @return the key marking journal record {@code record}'s command finished */
    static byte[] finished(long record) {
        return key(0, ELEMENT, idBytes(record));
    }

    /** A key naming a collection: a database's file and a key in it. */
    record Owner(String database, byte[] key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Owner other && database.equals(other.database) && Arrays.equals(key, other.key);
        }

        @Override
        public int hashCode() {
            return database.hashCode() * 31 + Arrays.hashCode(key);
        }
    }

    private CollectionLayout() {
    }

    /** @return the key of an entry of collection {@code id} of that kind with that suffix */
    static byte[] key(long id, byte kind, byte[] suffix) {
        byte[] k = new byte[PREFIX + suffix.length];
        putId(k, id);
        k[ID_BYTES] = kind;
        System.arraycopy(suffix, 0, k, PREFIX, suffix.length);
        return k;
    }

    /** @return the key of collection {@code id}'s header */
    static byte[] header(long id) {
        return key(id, HEADER, new byte[0]);
    }

    /** @return the key of an element of collection {@code id} */
    static byte[] element(long id, byte[] member) {
        return key(id, ELEMENT, member);
    }

    /** @return the lowest key of collection {@code id}'s elements (inclusive) */
    static byte[] elementsFrom(long id) {
        return key(id, ELEMENT, new byte[0]);
    }

    /** @return the key above collection {@code id}'s elements (exclusive) */
    static byte[] elementsTo(long id) {
        return key(id, (byte) (ELEMENT + 1), new byte[0]);
    }

    /** @return the lowest key of collection {@code id}, or of the ids after it */
    static byte[] first(long id) {
        byte[] k = new byte[ID_BYTES];
        putId(k, id);
        return k;
    }

    /** @return the lowest key of collection {@code id}'s members by score (inclusive) */
    static byte[] scoresFrom(long id) {
        return key(id, SCORE, new byte[0]);
    }

    /** @return the key above collection {@code id}'s members by score (exclusive) */
    static byte[] scoresTo(long id) {
        return key(id, (byte) (SCORE + 1), new byte[0]);
    }

    /**
     * @return the lowest key of the members by score of collection {@code id} whose score's order
     *         is at least {@code order}
     */
    static byte[] scoreFrom(long id, long order) {
        byte[] k = new byte[PREFIX + ORDER_BYTES];
        putId(k, id);
        k[ID_BYTES] = SCORE;
        putLong(k, PREFIX, order);
        return k;
    }

    /** @return the key of a sorted set's member by score */
    static byte[] scoreKey(long id, double score, byte[] member) {
        byte[] k = new byte[PREFIX + ORDER_BYTES + member.length];
        putId(k, id);
        k[ID_BYTES] = SCORE;
        putLong(k, PREFIX, order(score));
        System.arraycopy(member, 0, k, PREFIX + ORDER_BYTES, member.length);
        return k;
    }

    /** @return the member of a key made by {@link #scoreKey} */
    static byte[] scoreMember(byte[] key) {
        return Arrays.copyOfRange(key, PREFIX + ORDER_BYTES, key.length);
    }

    /** @return the score of a key made by {@link #scoreKey} (-0 reads as 0) */
    static double scoreOf(byte[] key) {
        long order = 0;
        for (int i = 0; i < ORDER_BYTES; i++) {
            order = order << 8 | (key[PREFIX + i] & 0xFF);
        }
        long bits = order < 0 ? order ^ Long.MIN_VALUE : ~order;
        return Double.longBitsToDouble(bits);
    }

    /**
     * @param score a score, not NaN
     * @return a number whose unsigned order is the scores' numeric order: the bits with the sign
     *         flipped for a positive score, all bits flipped for a negative one; -0 is 0
     */
    static long order(double score) {
        long bits = Double.doubleToLongBits(score == 0 ? 0.0 : score);
        return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
    }

    /** @return a sorted set element's value: the score's bits */
    static byte[] scoreValue(double score) {
        byte[] v = new byte[8];
        putLong(v, 0, Double.doubleToRawLongBits(score));
        return v;
    }

    /** @return the score a sorted set element's value holds */
    static double scoreValueOf(byte[] value) {
        long bits = 0;
        for (int i = 0; i < 8; i++) {
            bits = bits << 8 | (value[i] & 0xFF);
        }
        return Double.longBitsToDouble(bits);
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    /** @return the member of an element key */
    static byte[] member(byte[] key) {
        return Arrays.copyOfRange(key, PREFIX, key.length);
    }

    /** @return the id a key of the store begins with */
    static long id(byte[] key) {
        long id = 0;
        for (int i = 0; i < ID_BYTES; i++) {
            id = id << 8 | (key[i] & 0xFF);
        }
        return id;
    }

    static byte[] idBytes(long id) {
        byte[] b = new byte[ID_BYTES];
        putId(b, id);
        return b;
    }

    private static void putId(byte[] b, long id) {
        for (int i = 0; i < ID_BYTES; i++) {
            b[i] = (byte) (id >>> (56 - 8 * i));
        }
    }

    /** @return a header's value naming these owners */
    static byte[] owners(List<Owner> owners) {
        int n = 0;
        for (Owner o : owners) {
            n += 1 + o.database().length() + 4 + o.key().length;
        }
        byte[] v = new byte[n];
        int at = 0;
        for (Owner o : owners) {
            byte[] name = o.database().getBytes(StandardCharsets.US_ASCII);
            v[at++] = (byte) name.length;
            System.arraycopy(name, 0, v, at, name.length);
            at += name.length;
            int kl = o.key().length;
            for (int i = 0; i < 4; i++) {
                v[at++] = (byte) (kl >>> (24 - 8 * i));
            }
            System.arraycopy(o.key(), 0, v, at, kl);
            at += kl;
        }
        return v;
    }

    /**
     * @return the owners a header's value names; those after a malformed one are dropped (a
     *         header is only ever written whole, by one atomic change)
     */
    static List<Owner> owners(byte[] header) {
        List<Owner> out = new ArrayList<>();
        int at = 0;
        while (at < header.length) {
            int nl = header[at++] & 0xFF;
            if (at + nl + 4 > header.length) {
                break;
            }
            String name = new String(header, at, nl, StandardCharsets.US_ASCII);
            at += nl;
            int kl = (header[at] & 0xFF) << 24 | (header[at + 1] & 0xFF) << 16 | (header[at + 2] & 0xFF) << 8 | header[at + 3] & 0xFF;
            at += 4;
            if (kl < 0 || at + kl > header.length) {
                break;
            }
            out.add(new Owner(name, Arrays.copyOfRange(header, at, at + kl)));
            at += kl;
        }
        return out;
    }
}
