package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.LivenessLayout.BOOT_ID;
import static dev.ferrite.internal.pool.LivenessLayout.HEARTBEAT_NANOS;
import static dev.ferrite.internal.pool.LivenessLayout.OWNER;
import static dev.ferrite.internal.pool.LivenessLayout.PID_NAMESPACE;

import dev.ferrite.internal.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that decides whether the process holding a slot in shared memory still runs:
 * pool owner slots and recovery, the meta lock, the busy handshake and queue endpoints all ask
 * here. It never declares a live process dead.
 *
 * <p>A process is named by an <b>identity word</b>, {@code startTicks << 32 | pid}: its pid in its
 * own PID namespace and the low 32 bits of its start time in clock ticks since boot
 * ({@code /proc/self/stat} field 22), which a wall-clock step does not move. Beside the word, the
 * holder keeps a liveness record ({@link LivenessLayout}): its PID namespace, the boot id, and a
 * heartbeat on the monotonic clock, stamped every second by a daemon thread. The holder is judged
 * by what the checker can see:
 * <ul>
 * <li>an earlier boot (boot id differs): dead;</li>
 * <li>the checker's own PID namespace: alive if {@code /proc/<pid>/stat} shows a process that is
 *     not a zombie and started at those ticks;</li>
 * <li>another PID namespace (a container sharing {@code /dev/shm} or a volume), where the pid means
 *     nothing to the checker: alive while its heartbeat is younger than
 *     {@code ferrite.livenessTimeoutMillis} (default 10 s), as Aeron judges its driver;</li>
 * <li>a record still being written: alive.</li>
 * </ul>
 * Where {@code /proc} is missing (not Linux) the word holds the start second and the check is by
 * pid and start instant, as the JDK reports them. Thread-safe.
 */
public final class Liveness {

    /** The setting: how old a heartbeat from another PID namespace may be, in milliseconds. */
    public static final String TIMEOUT_SETTING = "livenessTimeoutMillis";

    private static final Logger LOG = LoggerFactory.getLogger(Liveness.class);
    private static final boolean PROC = Files.isReadable(Path.of("/proc/self/stat"));
    private static final long SELF = selfWord();
    private static final long PID_NS = pidNamespace();
    private static final long BOOT = bootId();
    private static final long TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(timeoutMillis());
    private static final long STAMP_MILLIS = Math.max(10, Math.min(1000, TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS) / 4));
    private static final List<Stamp> STAMPS = new ArrayList<>();
    private static Thread stamper;

    private Liveness() {
    }

    /** Writes one value of shared memory (a pool's header mapping, a queue's segment). */
    @FunctionalInterface
    public interface LongWriter {
        /**
         * @param off   byte offset
         * @param value the value, stored at least with release order
         */
        void put(long off, long value);
    }

    /** Reads one value of shared memory. */
    @FunctionalInterface
    public interface LongReader {
        /**
         * @param off byte offset
         * @return the value, volatile
         */
        long get(long off);
    }

    /** A heartbeat the stamping thread keeps running until {@link #cancel()}. */
    public static final class Stamp {
        private final Runnable action;
        private final long periodNanos;
        private long dueNanos;

        private Stamp(Runnable action, long periodNanos) {
            this.action = action;
            this.periodNanos = periodNanos;
            this.dueNanos = System.nanoTime() + periodNanos;
        }

        /**
         * Stops stamping; once this returns the thread never runs this stamp again, and when no
         * stamp is left the thread ends.
         */
        public void cancel() {
            synchronized (STAMPS) {
                STAMPS.remove(this);
                STAMPS.notifyAll();
            }
        }
    }

    /** @return this process's identity word, never 0 */
    public static long self() {
        return SELF;
    }

    /**
     * @param word an identity word
     * @return the pid in it, in its holder's PID namespace
     */
    public static long pid(long word) {
        return word & 0xFFFFFFFFL;
    }

    /**
     * @param word an identity word
     * @return "pid N" for messages
     */
    public static String describe(long word) {
        return "pid " + pid(word);
    }

    /**
     * Writes this process's liveness record: before claiming a slot (so the record is complete the
     * moment the claim is visible) and again after winning it (a racing claimant may have written
     * its own in between).
     *
     * @param memory where the slot is
     * @param record offset of the record
     */
    public static void writeRecord(LongWriter memory, long record) {
        memory.put(record + PID_NAMESPACE, PID_NS);
        memory.put(record + BOOT_ID, BOOT);
        memory.put(record + HEARTBEAT_NANOS, System.nanoTime());
        memory.put(record + OWNER, SELF);
    }

    /**
     * Rewrites a record, with a fresh heartbeat, every second (a quarter of the timeout if shorter)
     * from the stamping thread, until cancelled.
     *
     * @param memory where the slot is
     * @param record offset of the record
     * @return the stamp, to cancel before the memory goes away
     */
    public static Stamp keepStamping(LongWriter memory, long record) {
        // The whole record, not only the heartbeat: a claimant that lost the race for this slot
        // may have overwritten it just before this process won.
        return keepStamping(() -> writeRecord(memory, record), STAMP_MILLIS);
    }

    /**
     * Runs a heartbeat every {@code periodMillis} from the one stamping thread of this process
     * ({@code ferrite-liveness}, a daemon started by the first stamp and ended when the last is
     * cancelled), until cancelled. A stamp that throws is logged at debug level and run again at
     * its next period.
     *
     * @param action       what to write; quick, and must not block
     * @param periodMillis time between two runs, at least 1
     * @return the stamp, to cancel before the memory it writes goes away
     */
    public static Stamp keepStamping(Runnable action, long periodMillis) {
        Stamp s = new Stamp(action, TimeUnit.MILLISECONDS.toNanos(Math.max(1, periodMillis)));
        synchronized (STAMPS) {
            STAMPS.add(s);
            if (stamper == null) {
                stamper = new Thread(Liveness::stampWhileAnyLeft, "ferrite-liveness");
                stamper.setDaemon(true);
                stamper.start();
            }
            STAMPS.notifyAll();
        }
        return s;
    }

    /**
     * The stamping thread: runs each stamp when due, waits for the next, and ends once none is
     * left. An interrupt does not end it while stamps remain: they keep the process's claims
     * alive in other processes' eyes, and end with what they serve.
     */
    private static void stampWhileAnyLeft() {
        synchronized (STAMPS) {
            try {
                while (!STAMPS.isEmpty()) {
                    long now = System.nanoTime();
                    long next = Long.MAX_VALUE;
                    for (Stamp s : STAMPS) {
                        if (now - s.dueNanos >= 0) {
                            run(s);
                            s.dueNanos = now + s.periodNanos;
                        }
                        next = Math.min(next, s.dueNanos - now);
                    }
                    if (next > 0) {
                        try {
                            TimeUnit.NANOSECONDS.timedWait(STAMPS, next);
                        } catch (InterruptedException e) {
                            // stamps remain: go on (see above)
                        }
                    }
                }
            } finally {
                stamper = null; // a stamp added from now on starts a new thread
            }
        }
    }

    /** @return how many stamps run now */
    static int stamps() {
        synchronized (STAMPS) {
            return STAMPS.size();
        }
    }

    /** @return whether the stamping thread runs */
    static boolean stamperRuns() {
        synchronized (STAMPS) {
            return stamper != null;
        }
    }

    private static void run(Stamp s) {
        try {
            s.action.run();
        } catch (RuntimeException e) {
            LOG.debug("liveness heartbeat not stamped: {}", e.toString());
        }
    }

    /**
     * @param memory   where the slot is
     * @param identity offset of the slot's identity word
     * @param record   offset of its liveness record
     * @return whether the slot is free (false) or held by a process that may still run (true)
     */
    public static boolean isAlive(LongReader memory, long identity, long record) {
        return runs(memory.get(identity), memory, record);
    }

    /**
     * Judges the holder named by an identity word the caller has read, by the slot's record. A
     * caller that acts on the word it read (a CAS from it) must judge that word, not read the slot
     * again: a process that gives the slot back and takes it again in between has the same word.
     *
     * @param word   an identity word read from the slot
     * @param memory where the slot is
     * @param record offset of its liveness record
     * @return whether the process the word names may still run (false for 0)
     */
    public static boolean runs(long word, LongReader memory, long record) {
        return word != 0 && isAlive(word, memory.get(record + OWNER), memory.get(record + PID_NAMESPACE),
                memory.get(record + BOOT_ID), memory.get(record + HEARTBEAT_NANOS));
    }

    /**
     * As {@link #runs(long, LongReader, long)}, for a wait that has lasted longer than the liveness
     * timeout: a holder whose record does not name it is then judged dead. Such a record is normal
     * only for the microseconds of a claim; after the timeout it is damage (a corrupt or fuzzed
     * file), and trusting it would wait forever.
     */
    public static boolean runsAfterTimeout(long word, LongReader memory, long record) {
        return word != 0 && memory.get(record + OWNER) == word && runs(word, memory, record);
    }

    /** @return the liveness timeout, ns: a heartbeat older than this names a dead holder */
    static long timeoutNanos() {
        return TIMEOUT_NANOS;
    }

    /**
     * The decision, on values read from a slot.
     *
     * @param word      the slot's identity word
     * @param owner     the record's owner word
     * @param namespace the record's PID namespace
     * @param boot      the record's boot id
     * @param heartbeat the record's heartbeat, monotonic ns
     * @return whether the holder may still run
     */
    static boolean isAlive(long word, long owner, long namespace, long boot, long heartbeat) {
        if (word == 0) {
            return false;
        }
        if (owner != word) {
            // A record written before liveness records existed (all zero): judge by pid, as then.
            // Otherwise the holder is still writing its record: never call that dead.
            return (owner | namespace | boot | heartbeat) != 0 || processRuns(word);
        }
        if (boot != 0 && BOOT != 0 && boot != BOOT) {
            return false;
        }
        if (namespace != 0 && PID_NS != 0 && namespace != PID_NS) {
            return System.nanoTime() - heartbeat < TIMEOUT_NANOS;
        }
        return processRuns(word);
    }

    /** In the checker's own PID namespace: a process with that pid runs, not a zombie, started then. */
    private static boolean processRuns(long word) {
        if (word == SELF) {
            return true;
        }
        long pid = pid(word);
        if (pid == 0) {
            return false;
        }
        if (!PROC) {
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .map(h -> startSecondWord(h) == word).orElse(false);
        }
        String[] stat = stat(Long.toString(pid));
        if (stat == null || stat[0].equals("Z") || stat[0].equals("X")) {
            return false;
        }
        return (Long.parseLong(stat[19]) & 0xFFFFFFFFL) == word >>> 32;
    }

    /** @return the fields of /proc/PID/stat after the command name (field 3 first), or null */
    private static String[] stat(String pid) {
        try {
            String s = Files.readString(Path.of("/proc", pid, "stat"));
            String[] fields = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
            return fields.length > 19 ? fields : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long selfWord() {
        long pid = ProcessHandle.current().pid();
        if (PROC) {
            String[] stat = stat("self");
            if (stat != null) {
                return (Long.parseLong(stat[19]) & 0xFFFFFFFFL) << 32 | (pid & 0xFFFFFFFFL);
            }
        }
        return startSecondWord(ProcessHandle.current());
    }

    private static long startSecondWord(ProcessHandle process) {
        long start = process.info().startInstant().map(Instant::getEpochSecond).orElse(0L);
        return (start & 0xFFFFFFFFL) << 32 | (process.pid() & 0xFFFFFFFFL);
    }

    private static long pidNamespace() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
            return Long.parseLong(link.substring(link.indexOf('[') + 1, link.indexOf(']')));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long bootId() {
        try {
            UUID id = UUID.fromString(Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim());
            return id.getMostSignificantBits() ^ id.getLeastSignificantBits();
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long timeoutMillis() {
        String v = Settings.get(TIMEOUT_SETTING);
        try {
            return v == null ? 10_000 : Math.max(100, Long.parseLong(v.trim()));
        } catch (NumberFormatException e) {
            LOG.warn("ferrite.{} = '{}' is not a number of milliseconds; using 10000", TIMEOUT_SETTING, v);
            return 10_000;
        }
    }
}
