package dev.ferrite.kv.server;

/**
 * How the server stores a Redis string as a map value ({@code docs/FORMAT.md}, "KV server value,
 * version 1"): the expiry first, so it survives a restart with the value, then the string's bytes.
 * Keys are stored as the client sent them.
 *
 * <pre>
 *   0  expire at: milliseconds since the epoch (bits 0-61 of a little-endian long); 0 = no expiry
 *      form (bits 62-63): 0 as written, 1 edited in place (APPEND, SETRANGE, SETBIT), 2 a number
 *      written as text (INCRBYFLOAT); tells OBJECT ENCODING what Redis would say
 *   8  the string's bytes (0 or more)
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

    private ValueLayout() {
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
