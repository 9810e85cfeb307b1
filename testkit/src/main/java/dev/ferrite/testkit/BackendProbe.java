package dev.ferrite.testkit;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.spi.MemoryBackend;

/**
 * A tiny program for tests that start a fresh JVM: resolves the configured backend as a user's
 * program would, allocates and uses a segment, and prints {@code backend=NAME} and
 * {@code value=42}; then one line per backend found, {@code found NAME available} or
 * {@code found NAME unavailable: REASON}. Exits 1 with the error on standard error if anything
 * fails.
 */
public final class BackendProbe {

    private BackendProbe() {
    }

    /**
     * @param args ignored
     */
    public static void main(String[] args) {
        try {
            MemoryBackend backend = Ferrite.backend();
            try (ChunkPool pool = backend.createPool(PoolSpec.anonymous().capacity(16L << 20).build());
                 Segment s = pool.allocate(3L << 20)) {
                s.putLong((1L << 20) - 4, 40);
                s.putLong((1L << 20) - 4, s.getLong((1L << 20) - 4) + 2);
                System.out.println("backend=" + backend.name());
                System.out.println("value=" + s.getLong((1L << 20) - 4));
            }
            for (MemoryBackend b : Ferrite.backends()) {
                System.out.println("found " + b.name() + (b.isAvailable() ? " available" : " unavailable: "
                        + b.unavailableReason()));
            }
        } catch (RuntimeException e) {
            System.err.println("probe failed: " + e);
            System.exit(1);
        }
    }
}
