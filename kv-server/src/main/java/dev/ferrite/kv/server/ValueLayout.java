package dev.ferrite.kv.server;

/**
 * How the server stores a Redis string as a map value ({@code docs/FORMAT.md}, "KV server value,
 * version 1"): the expiry first, so it survives a restart with the value, then the string's bytes.
 * Keys are stored as the client sent them.
 *
 * <pre>
 *   0  expire at: milliseconds since the epoch (long, little-endian); 0 = no expiry
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
        return getLong(stored, EXPIRE_AT);
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
