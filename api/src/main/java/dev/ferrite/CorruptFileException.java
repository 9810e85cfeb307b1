package dev.ferrite;

/**
 * A pool or structure file holds a value that cannot be right (wrong magic, unknown version, a field out of range, truncation). Raised before any memory access that could fault.
 *
 * <p>Unchecked. The message names the value that was wrong and the limit it broke.
 */
public class CorruptFileException extends FerriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was wrong: the value and the limit it broke
     */
    public CorruptFileException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what was wrong: the value and the limit it broke
     * @param cause   the underlying failure
     */
    public CorruptFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
