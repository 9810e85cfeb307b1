package dev.ferrite;

/**
 * The root of every error Ferrite raises: a wrong argument, an exhausted pool, a corrupt file, a closed segment, a backend that cannot run here.
 *
 * <p>Unchecked. The message names the value that was wrong and the limit it broke.
 */
public class FerriteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was wrong: the value and the limit it broke
     */
    public FerriteException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what was wrong: the value and the limit it broke
     * @param cause   the underlying failure
     */
    public FerriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
