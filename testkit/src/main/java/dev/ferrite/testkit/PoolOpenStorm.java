package dev.ferrite.testkit;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.RecoveryReport;
import dev.ferrite.Segment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A child process for the meta-lock tests. In mode {@code open} it opens and closes a pool again
 * and again; in mode {@code recover} it keeps the pool open, allocating, freeing and recovering.
 * Either way, a report that says a lock or slot was taken over, or that a process died, means a
 * live process was judged dead (none dies in these tests): it prints the report and exits with 4.
 *
 * <p>Arguments: {@code backend file|shm location open|recover count seed}. Prints {@code ok N} at
 * the end.
 */
public final class PoolOpenStorm {

    private PoolOpenStorm() {
    }

    /**
     * @param args backend, kind, location, mode, count, seed
     */
    public static void main(String[] args) {
        PoolSpec spec = args[1].equals("file") ? PoolSpec.file(Path.of(args[2])).build() : PoolSpec.shm(args[2]).build();
        boolean open = args[3].equals("open");
        int count = Integer.parseInt(args[4]);
        Random rnd = new Random(Long.parseLong(args[5]));
        if (open) {
            for (int i = 0; i < count; i++) {
                try (ChunkPool pool = Ferrite.backend(args[0]).openPool(spec)) {
                    check(pool.openReport(), "open " + i);
                }
            }
        } else {
            try (ChunkPool pool = Ferrite.backend(args[0]).openPool(spec)) {
                List<Segment> held = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    if (held.size() < 8 && rnd.nextBoolean()) {
                        held.add(pool.allocate((1 + rnd.nextInt(4)) * pool.chunkSize()));
                    } else if (!held.isEmpty()) {
                        held.remove(rnd.nextInt(held.size())).close();
                    }
                    if (i % 50 == 0) {
                        check(pool.recover(), "recovery " + i);
                    }
                }
                held.forEach(Segment::close);
            }
        }
        System.out.println("ok " + count);
    }

    private static void check(RecoveryReport report, String when) {
        for (String note : report.notes()) {
            if (note.contains("taken over") || note.contains("died")) {
                System.out.println("TAKEOVER at " + when + ": " + report.notes());
                System.exit(4);
            }
        }
    }
}
