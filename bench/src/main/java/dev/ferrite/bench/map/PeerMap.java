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
