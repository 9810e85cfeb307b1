package dev.ferrite;

/**
 * A {@link PoolSpec} value out of its range: the message names the setting, the value and the limit.
 *
 * <p>Unchecked. The message names the value that was wrong and the limit it broke.
 */
public class InvalidSpecException extends FerriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was wrong: the value and the limit it broke
     */
    public InvalidSpecException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what was wrong: the value and the limit it broke
     * @param cause   the underlying failure
     */
    public InvalidSpecException(String message, Throwable cause) {
        super(message, cause);
    }
}
