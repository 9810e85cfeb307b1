package dev.ferrite;

/**
 * A backend was asked for by a name that no available backend has, or the named backend cannot run on this JVM or machine. The message lists the names that are available.
 *
 * <p>Unchecked. The message names the value that was wrong and the limit it broke.
 */
public class BackendUnavailableException extends FerriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was wrong: the value and the limit it broke
     */
    public BackendUnavailableException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what was wrong: the value and the limit it broke
     * @param cause   the underlying failure
     */
    public BackendUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
