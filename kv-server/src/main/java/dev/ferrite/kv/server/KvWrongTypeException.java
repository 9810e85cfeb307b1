package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;

/**
 * Thrown by a {@link KvDatabase} call on a key that holds another type than the call works on
 * (Redis's {@code WRONGTYPE} error); the call changed nothing.
 */
public class KvWrongTypeException extends FerriteException {

    private static final long serialVersionUID = 1L;

    /** The key's type, as TYPE names it. */
    private final String held;

    /**
     * @param key    the key
     * @param held   the type it holds, as TYPE names it
     * @param wanted the type the call works on
     */
    public KvWrongTypeException(String key, String held, String wanted) {
        super("WRONGTYPE key '" + key + "' holds a " + held + ", not a " + wanted);
        this.held = held;
    }

    /** @return the type the key holds, as TYPE names it ({@code string}, {@code hash}...) */
    public String held() {
        return held;
    }
}
