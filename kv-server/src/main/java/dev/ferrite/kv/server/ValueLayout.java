package dev.ferrite.kv.server;

/**
 * How the server stores a Redis string as a map value ({@code docs/FORMAT.md}, "KV server value,
 * version 1"): the expiry first, so it survives a restart with the value, then the string's bytes.
 * Keys are stored as the client sent them.
 *
 * <pre>
 *   0  expire at: milliseconds since the epoch (bits 0-61 of a little-endian long); 0 = no expiry
 *      form (bits 62-63): 0 as written, 1 edited in place (APPEND, SETRANGE, SETBIT), 2 a number
 *      written as text (INCRBYFLOAT); tells OBJECT ENCODING what Redis would say; 3 a collection
 *   8  a string: its bytes (0 or more); a collection: its type (u8: 1 hash, 2 set, 3 list,
 *      4 sorted set), then its id (u64, big-endian) in the {@link CollectionStore}
 * </pre>
 */
final class ValueLayout {

    /** Offset of the expiry time (long). */
    static final int EXPIRE_AT = 0;
    /** Offset of the string's first byte. */
    static final int DATA = 8;
    /** The expiry of a value that never expires. */
    static final long NO_EXPIRY = 0;
    /** The bits of the expiry word that hold the form. */
    static final long FORM_MASK = 3L << 62;
    /** Form: as written by SET and its kin, INCR and its kin: encoded by its content. */
    static final long WRITTEN = 0;
    /** Form: changed in place (APPEND, SETRANGE, SETBIT): Redis's {@code raw}. */
    static final long EDITED = 1L << 62;
    /** Form: a number written as text (INCRBYFLOAT): {@code embstr} or {@code raw}, never {@code int}. */
    static final long TEXT = 2L << 62;

    /** Form: a collection (hash, set, list, sorted set) whose elements are in the {@link CollectionStore}. */
    static final long COLLECTION = 3L << 62;
    /** Offset of a collection's type byte. */
    static final int TYPE = DATA;
    /** Offset of a collection's id. */
    static final int ID = DATA + 1;
    /** Length of a collection's stored value. */
    static final int COLLECTION_LENGTH = ID + 8;
    /** Collection types, as stored. */
    static final byte HASH = 1;
    static final byte SET = 2;
    static final byte LIST = 3;
    static final byte ZSET = 4;

    private ValueLayout() {
    }

    /** @return a collection's stored value: no expiry, its type and id */
    static byte[] collection(byte type, long id) {
        byte[] v = new byte[COLLECTION_LENGTH];
        putLong(v, EXPIRE_AT, COLLECTION);
        v[TYPE] = type;
        for (int i = 0; i < 8; i++) {
            v[ID + i] = (byte) (id >>> (56 - 8 * i));
        }
        return v;
    }

    /** @return whether a stored value is a collection's */
    static boolean isCollection(byte[] stored) {
        return (getLong(stored, EXPIRE_AT) & FORM_MASK) == COLLECTION;
    }

    /** @return the type of a stored collection ({@link #HASH}...), 0 if it is a string */
    static byte type(byte[] stored) {
        return isCollection(stored) && stored.length >= COLLECTION_LENGTH ? stored[TYPE] : 0;
    }

    /** @return the id of a stored collection */
    static long id(byte[] stored) {
        long id = 0;
        for (int i = 0; i < 8; i++) {
            id = id << 8 | (stored[ID + i] & 0xFF);
        }
        return id;
    }

    /** @return the id of the collection a stored value names, or 0 if it is null or not a collection's */
    static long collectionId(byte[] stored) {
        return stored != null && type(stored) != 0 ? id(stored) : 0;
    }

    /** @return Redis's TYPE name of a stored value */
    static String typeName(byte[] stored) {
        return switch (type(stored)) {
            case HASH -> "hash";
            case SET -> "set";
            case LIST -> "list";
            case ZSET -> "zset";
            default -> "string";
        };
    }

    /** @return a stored value: {@code expireAt} then {@code data} */
    static byte[] encode(long expireAt, byte[] data) {
        byte[] v = new byte[DATA + data.length];
        putLong(v, EXPIRE_AT, expireAt);
        System.arraycopy(data, 0, v, DATA, data.length);
        return v;
    }

    /** @return the expiry of a stored value, {@link #NO_EXPIRY} if none */
    static long expireAt(byte[] stored) {
        return getLong(stored, EXPIRE_AT) & ~FORM_MASK;
    }

    /** @return the expiry in a stored value's first word (its form bits dropped) */
    static long expireAtOfWord(long word) {
        return word & ~FORM_MASK;
    }

    /** Sets a stored value's expiry, keeping its form. */
    static void setExpireAt(byte[] stored, long expireAt) {
        putLong(stored, EXPIRE_AT, expireAt | getLong(stored, EXPIRE_AT) & FORM_MASK);
    }

    /** Sets a stored value's form ({@link #WRITTEN}, {@link #EDITED}, {@link #TEXT}), keeping its expiry. */
    static void setForm(byte[] stored, long form) {
        putLong(stored, EXPIRE_AT, expireAt(stored) | form);
    }

    /** @return Redis's OBJECT ENCODING of a stored string: int, embstr (up to 44 bytes) or raw */
    static String encoding(byte[] stored) {
        long form = getLong(stored, EXPIRE_AT) & FORM_MASK;
        int length = stored.length - DATA;
        if (form == EDITED) {
            return "raw";
        }
        if (form == WRITTEN && length <= 20 && Args.parseLong(stored, DATA, length) != null) {
            return "int";
        }
        return length <= 44 ? "embstr" : "raw";
    }

    /** @return whether a stored value has expired at {@code nowMillis} */
    static boolean expired(byte[] stored, long nowMillis) {
        long at = expireAt(stored);
        return at != NO_EXPIRY && at <= nowMillis;
    }

    /** @return the string's bytes of a stored value */
    static byte[] data(byte[] stored) {
        byte[] d = new byte[stored.length - DATA];
        System.arraycopy(stored, DATA, d, 0, d.length);
        return d;
    }

    static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }

    static void putLong(byte[] b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }
}
