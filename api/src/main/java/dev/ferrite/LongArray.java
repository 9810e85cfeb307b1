package dev.ferrite;

/**
 * A view of a whole segment as {@code long}-indexed long values of 8 bytes each, element
 * {@code i} at byte offset {@code 8 * i}. Reads and writes go to the segment; the view is as
 * thread-safe as the segment and valid while the segment handle it came from is open.
 */
public interface LongArray {

    /** @return elements: the segment size divided by 8, rounded down */
    long length();

    /**
     * @param i element index in [0, length - 1]
     * @return the element
     */
    long get(long i);

    /**
     * @param i element index in [0, length - 1]
     * @param v the value
     */
    void set(long i, long v);

    /** @return the segment this view reads and writes */
    Segment segment();
}
