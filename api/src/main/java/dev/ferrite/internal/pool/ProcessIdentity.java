package dev.ferrite.internal.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Who a process is, as an owner word that fits one CAS: {@code startSecond << 32 | pid}. The
 * start time tells a live process from a dead one whose pid was reused. A process is judged alive
 * only if a process with that pid exists and started in that second.
 */
public final class ProcessIdentity {

    private static final long SELF = wordOf(ProcessHandle.current());

    private ProcessIdentity() {
    }

    /** @return this process's owner word, never 0 */
    public static long self() {
        return SELF;
    }

    private static long wordOf(ProcessHandle process) {
        long start = process.info().startInstant().map(Instant::getEpochSecond).orElse(0L);
        return (start & 0xFFFFFFFFL) << 32 | (process.pid() & 0xFFFFFFFFL);
    }

    /**
     * @param word an owner word
     * @return the pid in it
     */
    public static long pid(long word) {
        return word & 0xFFFFFFFFL;
    }

    /**
     * @param word an owner word read from a file, possibly garbage
     * @return whether that process is running
     */
    public static boolean isAlive(long word) {
        if (word == 0) {
            return false;
        }
        if (word == SELF) {
            return true;
        }
        long pid = pid(word);
        if (pid == 0) {
            return false;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive() || isZombie(pid)) {
            return false;
        }
        return wordOf(handle.get()) == word;
    }

    // A process killed but not yet reaped by its parent still has a pid; it will never run again.
    private static boolean isZombie(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        try {
            String s = Files.readString(stat);
            int close = s.lastIndexOf(')');
            return close > 0 && close + 2 < s.length() && (s.charAt(close + 2) == 'Z' || s.charAt(close + 2) == 'X');
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * @param word an owner word
     * @return "pid N" for messages
     */
    public static String describe(long word) {
        return "pid " + pid(word);
    }
}
