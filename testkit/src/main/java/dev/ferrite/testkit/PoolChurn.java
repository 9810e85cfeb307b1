package dev.ferrite.testkit;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A child process for multi-process tests: opens a pool and allocates and frees unnamed and named
 * segments at random. Every chunk of every segment it holds carries a stamp (its pid and a
 * sequence number) at both ends, checked before the segment is freed: if another process were
 * ever handed the same chunk, a stamp would be overwritten and the churn exits with status 2.
 *
 * <p>Arguments: {@code backend file|shm location operations seed}; operations -1 runs until
 * killed. Prints {@code started} once the pool is open and {@code ok N} after N operations.
 */
public final class PoolChurn {

    private PoolChurn() {
    }

    /**
     * @param args backend, kind, location, operations, seed
     */
    public static void main(String[] args) {
        String backend = args[0];
        PoolSpec spec = args[1].equals("file") ? PoolSpec.file(Path.of(args[2])).build() : PoolSpec.shm(args[2]).build();
        long operations = Long.parseLong(args[3]);
        Random rnd = new Random(Long.parseLong(args[4]));
        long pid = ProcessHandle.current().pid();
        try (ChunkPool pool = Ferrite.backend(backend).openPool(spec)) {
            System.out.println("started");
            System.out.flush();
            List<Segment> held = new ArrayList<>();
            List<Long> stamps = new ArrayList<>();
            long seq = 0;
            int named = 0;
            for (long op = 0; operations < 0 || op < operations; op++) {
                int what = rnd.nextInt(10);
                if (what < 5 && held.size() < 24) {
                    long stamp = pid << 32 | ++seq;
                    Segment s;
                    int chunks = 1 + rnd.nextInt(6);
                    try {
                        s = what == 0 ? pool.allocate("churn-" + pid + "-" + named++, chunks * pool.chunkSize())
                                : pool.allocate(chunks * pool.chunkSize());
                    } catch (dev.ferrite.PoolExhaustedException full) {
                        continue;
                    } catch (dev.ferrite.FerriteException e) {
                        if (e.getMessage().contains("is full")) {
                            continue;
                        }
                        throw e;
                    }
                    stamp(s, stamp, pool.chunkSize());
                    held.add(s);
                    stamps.add(stamp);
                } else if (!held.isEmpty()) {
                    int i = rnd.nextInt(held.size());
                    Segment s = held.remove(i);
                    long stamp = stamps.remove(i);
                    check(s, stamp, pool.chunkSize());
                    String name = s.name();
                    s.close();
                    if (name != null && rnd.nextBoolean()) {
                        pool.delete(name);
                    }
                }
            }
            for (int i = 0; i < held.size(); i++) {
                check(held.get(i), stamps.get(i), pool.chunkSize());
                held.get(i).close();
            }
            System.out.println("ok " + operations);
        } catch (IllegalStateException e) {
            System.out.println("FAIL " + e.getMessage());
            System.exit(2);
        } catch (RuntimeException e) {
            System.out.println("ERROR " + e);
            e.printStackTrace();
            System.exit(3);
        }
    }

    private static void stamp(Segment s, long stamp, long chunk) {
        for (long off = 0; off < s.size(); off += chunk) {
            s.putLong(off, stamp);
            s.putLong(off + chunk - 8, ~stamp);
        }
    }

    private static void check(Segment s, long stamp, long chunk) {
        for (long off = 0; off < s.size(); off += chunk) {
            if (s.getLong(off) != stamp || s.getLong(off + chunk - 8) != ~stamp) {
                throw new IllegalStateException("chunk at offset " + off + " of a segment stamped " + stamp
                        + " holds " + s.getLong(off) + ": it was handed to another owner");
            }
        }
    }
}
