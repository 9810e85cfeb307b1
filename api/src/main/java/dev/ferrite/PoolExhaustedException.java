package dev.ferrite;

/**
 * A pool cannot provide the chunks an allocation needs within its capacity. Nothing was allocated and the pool stays usable.
 *
 * <p>Unchecked. The message names the value that was wrong and the limit it broke.
 */
public class PoolExhaustedException extends FerriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was wrong: the value and the limit it broke
     */
    public PoolExhaustedException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what was wrong: the value and the limit it broke
     * @param cause   the underlying failure
     */
    public PoolExhaustedException(String message, Throwable cause) {
        super(message, cause);
    }
}
