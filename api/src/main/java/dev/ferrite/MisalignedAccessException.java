package dev.ferrite;

/**
 * A volatile, ordered or atomic access at an offset that is not a multiple of its width (4 for int, 8 for long).
 *
 * <p>Unchecked. The message names the value that was wrong and the limit it broke.
 */
public class MisalignedAccessException extends FerriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was wrong: the value and the limit it broke
     */
    public MisalignedAccessException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what was wrong: the value and the limit it broke
     * @param cause   the underlying failure
     */
    public MisalignedAccessException(String message, Throwable cause) {
        super(message, cause);
    }
}
