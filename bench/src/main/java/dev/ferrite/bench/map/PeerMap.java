package dev.ferrite.bench.map;

import java.io.IOException;
import java.util.concurrent.ConcurrentMap;

/**
 * The operations the map benchmarks measure, over any library's map: keys are the benchmark's
 * 16-character strings, values 100-byte arrays. Implementations are as thread-safe as the library
 * (all are, for the benchmarks' gets from two threads).
 */
interface PeerMap {

    /** @return the value of {@code key} as a new array, or null */
    byte[] get(String key);

    /** Stores {@code value} under {@code key}; @return what the library returns (ignored) */
    Object put(String key, byte[] value);

    /** Removes {@code key}; @return what the library returns (ignored) */
    Object remove(String key);

    /** @return the off-heap memory the library says it uses, or -1 if it does not say */
    default long offHeapBytes() {
        return -1;
    }

    /** Releases the map (files stay where they are). */
    void close() throws IOException;

    /**
     * Adds 1 to the little-endian {@code long} at the start of {@code key}'s value, atomically, as a
     * user of the library would (for a {@code ConcurrentMap}: {@code computeIfPresent} of a changed copy).
     *
     * @return what the library returns (ignored)
     * @throws UnsupportedOperationException if the library has no atomic update
     */
    default Object incrementFirstLong(String key) {
        throw new UnsupportedOperationException("no atomic update");
    }

    /** @return a {@code ConcurrentMap} seen as a peer; closed if it is {@code AutoCloseable} */
    static PeerMap of(ConcurrentMap<String, byte[]> map) {
        return new PeerMap() {
            @Override
            public byte[] get(String key) {
                return map.get(key);
            }

            @Override
            public Object put(String key, byte[] value) {
                return map.put(key, value);
            }

            @Override
            public Object remove(String key) {
                return map.remove(key);
            }

            @Override
            public Object incrementFirstLong(String key) {
                return map.computeIfPresent(key, (k, v) -> {
                    byte[] changed = v.clone();
                    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(changed).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    b.putLong(0, b.getLong(0) + 1);
                    return changed;
                });
            }

            @Override
            public void close() throws IOException {
                if (map instanceof AutoCloseable c) {
                    try {
                        c.close();
                    } catch (IOException | RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IOException(e);
                    }
                }
            }
        };
    }
}
