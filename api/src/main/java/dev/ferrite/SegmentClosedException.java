package dev.ferrite;

/**
 * An access through a segment handle that was closed, or whose pool was closed. Raised by checked backends; unchecked ones may crash or read stale memory instead.
 *
 * <p>Unchecked. The message names the value that was wrong and the limit it broke.
 */
public class SegmentClosedException extends FerriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was wrong: the value and the limit it broke
     */
    public SegmentClosedException(String message) {
        super(message);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param message what was wrong: the value and the limit it broke
     * @param cause   the underlying failure
     */
    public SegmentClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
