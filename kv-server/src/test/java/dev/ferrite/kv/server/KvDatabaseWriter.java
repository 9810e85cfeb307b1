package dev.ferrite.kv.server;

import java.nio.file.Path;

/**
 * A child JVM's program for {@link KvDatabaseTest}: opens database 0 of a data directory in-process
 * and writes to it without end, a field of a hash and a member of a sorted set per step, printing
 * each step's number once both calls returned.
 */
public final class KvDatabaseWriter {

    private KvDatabaseWriter() {
    }

    /** @param args the data directory */
    public static void main(String[] args) {
        try (KvDatabase db = KvServer.openDatabase(Path.of(args[0]), 0)) {
            for (int i = 0; ; i++) {
                db.hset("h", "f" + i, "v" + i);
                db.zadd("z", i, "m" + i);
                System.out.println(i);
                System.out.flush();
            }
        }
    }
}
