package dev.ferrite.bench.server;

import java.nio.file.Path;
import java.util.List;

/**
 * How both servers of one pass of the server bench keep their data: the issue compares them once
 * durable and once without persistence.
 */
enum Persistence {

    /**
     * Redis with an append-only file written every second ({@code appendfsync everysec}), Ferrite
     * with {@code --fsync everysec} and its data directory on disk: each loses at most the last
     * second of writes with the machine, nothing with the process.
     */
    DURABLE("durable", "Redis `appendonly yes`, `appendfsync everysec`; Ferrite `--fsync everysec`, its data on disk"),

    /**
     * Neither server writes to a disk: Redis without snapshots or append-only file, Ferrite with
     * its data directory in {@code /dev/shm} (RAM) and {@code --fsync no}.
     */
    NONE("no persistence", "Redis `save \"\"`, `appendonly no`; Ferrite `--fsync no`, its data in `/dev/shm` (RAM)");

    /** The report's short name, e.g. a column heading. */
    final String label;
    /** What each server is told, in Markdown. */
    final String description;

    Persistence(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /** @return redis-server's arguments for this mode (snapshots are off in both) */
    List<String> redisArguments() {
        return this == DURABLE ? List.of("--save", "", "--appendonly", "yes", "--appendfsync", "everysec")
                : List.of("--save", "", "--appendonly", "no");
    }

    /** @return ferrite-kv-server's {@code --fsync} value for this mode */
    String ferriteFsync() {
        return this == DURABLE ? "everysec" : "no";
    }

    /**
     * @param work     the run's working directory (on disk)
     * @param runTag   a name unique to this run
     * @return where Ferrite keeps its data in this mode: under {@code work}, or in {@code /dev/shm}
     */
    Path ferriteData(Path work, String runTag) {
        return this == DURABLE ? work.resolve("ferrite") : Path.of("/dev/shm", runTag);
    }

    /**
     * @param value {@code durable}, {@code none} or {@code both}
     * @return the modes to run, in order
     * @throws IllegalArgumentException for any other value
     */
    static List<Persistence> parse(String value) {
        return switch (value) {
            case "both" -> List.of(DURABLE, NONE);
            case "durable" -> List.of(DURABLE);
            case "none" -> List.of(NONE);
            default -> throw new IllegalArgumentException("--persistence " + value + " is not durable, none or both");
        };
    }
}
