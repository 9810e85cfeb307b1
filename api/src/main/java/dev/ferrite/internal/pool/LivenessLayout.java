package dev.ferrite.internal.pool;

/**
 * Byte layout of a liveness record: what a process that holds a slot in shared memory (a pool's
 * owner slot, a queue's endpoint slot) writes about itself so that others can tell whether it
 * still runs, even from another PID namespace. Little-endian longs; the record sits at
 * {@link #SLOT_OFFSET} in both kinds of slot. Mirrored in {@code docs/FORMAT.md}.
 *
 * <pre>
 *   0          8               16         24               32
 *   +----------+---------------+----------+----------------+
 *   | OWNER    | PID_NAMESPACE | BOOT_ID  | HEARTBEAT_NANOS|
 *   +----------+---------------+----------+----------------+
 * </pre>
 *
 * <p>A claimant writes the record (with OWNER = its identity word) before it CASes the slot's
 * identity word from 0, and again after it won; a record whose OWNER is not the slot's identity
 * word is being written and says nothing yet.
 */
public final class LivenessLayout {

    /** Offset of the record inside a pool owner slot and a queue endpoint slot. */
    public static final int SLOT_OFFSET = 24;
    /** long: the identity word of the process that wrote the record. */
    public static final int OWNER = 0;
    /** long: inode number of the writer's PID namespace ({@code /proc/self/ns/pid}), 0 if unknown. */
    public static final int PID_NAMESPACE = 8;
    /** long: the two halves of the kernel's boot id XORed ({@code /proc/sys/kernel/random/boot_id}), 0 if unknown. */
    public static final int BOOT_ID = 16;
    /** long: the writer's monotonic clock ({@code CLOCK_MONOTONIC}, ns) when it last proved alive. */
    public static final int HEARTBEAT_NANOS = 24;
    /** Bytes of a record. */
    public static final int SIZE = 32;

    private LivenessLayout() {
    }
}
