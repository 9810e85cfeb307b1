package dev.ferrite.kv.server;

import java.util.Locale;

/**
 * When written data is forced from the page cache to the disk, as Redis's {@code appendfsync}.
 * Whatever the policy, an acknowledged write is in the map's memory-mapped file when its reply is
 * sent, so it survives {@code kill -9} of the server; the policy decides what survives a power
 * loss or a kernel crash.
 */
public enum FsyncPolicy {
    /** Every reply to a write is sent only after the written databases were forced to disk (msync). */
    ALWAYS,
    /** Every open database is forced to disk once a second (the default: at most a second lost). */
    EVERYSEC,
    /** Never forced by the server: the kernel writes dirty pages back on its own schedule. */
    NO;

    /**
     * @param name always, everysec or no (any case)
     * @return the policy
     * @throws dev.ferrite.FerriteException if the name is none of those
     */
    public static FsyncPolicy parse(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new dev.ferrite.FerriteException("fsync policy '" + name + "' must be always, everysec or no");
        }
    }

    /** @return the name as Redis's config spells it */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
