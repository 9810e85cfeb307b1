package dev.ferrite.testkit;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import java.nio.file.Path;

/**
 * The other process of a sharing test: opens the pool and the segment "request" another process
 * made and still holds open, checks that {@code long i} holds {@code 8 * i * 3}, writes -42 at
 * offset 8, makes a named segment "reply" holding 0xC0FFEE at offset 4096, allocates an unnamed
 * segment it never frees, and exits closing the pool. Exit status 2 on a mismatch.
 *
 * <p>Arguments: {@code backend file|shm location}.
 */
public final class SharedSegmentPeer {

    private SharedSegmentPeer() {
    }

    /**
     * @param args backend, kind, location
     */
    public static void main(String[] args) {
        PoolSpec spec = args[1].equals("file") ? PoolSpec.file(Path.of(args[2])).build() : PoolSpec.shm(args[2]).build();
        try (ChunkPool pool = Ferrite.backend(args[0]).openPool(spec)) {
            try (Segment request = pool.open("request").orElseThrow()) {
                long n = request.size() / 8;
                for (long i = 0; i < n; i++) {
                    if (request.getLong(8 * i) != 8 * i * 3) {
                        System.out.println("mismatch at long " + i + ": " + request.getLong(8 * i));
                        System.exit(2);
                    }
                }
                request.putLong(8, -42);
                System.out.println("checked " + n + " longs");
            }
            try (Segment reply = pool.allocate("reply", 2 * 4096)) {
                reply.putLong(4096, 0xC0FFEEL);
            }
            pool.allocate(10 * 4096).putLong(0, 1);
        }
    }
}
