package dev.ferrite;

/**
 * An offset or length outside a segment or region. Raised by checked backends; unchecked ones do not look.
 *
 * <p>Unchecked. The message names the value that was wrong and the limit it broke.
 */
public class OutOfBoundsException extends FerriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was wrong: the value and the limit it broke
     */
    public OutOfBoundsException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what was wrong: the value and the limit it broke
     * @param cause   the underlying failure
     */
    public OutOfBoundsException(String message, Throwable cause) {
        super(message, cause);
    }
}
