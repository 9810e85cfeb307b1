package dev.ferrite.testkit;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes the shm pools that test JVMs which did not finish left in {@code /dev/shm}: a test's
 * pool is deleted when the test ends, but a JVM killed mid-test (a timeout, {@code kill -9}, a
 * session stopped) leaves its {@code ferrite-test-<pid>-<n>} files, which hold RAM until the
 * machine restarts (3 GiB in one such file here). A file is removed only when no process of its
 * pid runs; a live test JVM's files are left alone. Thread-safe; at most one sweep per JVM through
 * {@link #sweepOnce()}.
 */
public final class ShmLeftovers {

    /** The names {@link BackendFixture} gives shm pools: prefix, pid, counter. */
    static final Pattern TEST_POOL = Pattern.compile("ferrite-test-(\\d+)-\\d+");

    private static final AtomicBoolean SWEPT = new AtomicBoolean();

    private ShmLeftovers() {
    }

    /** Sweeps {@code /dev/shm} the first time it is called in this JVM; later calls do nothing. */
    public static void sweepOnce() {
        if (SWEPT.compareAndSet(false, true)) {
            sweep(Path.of("/dev/shm"));
        }
    }

    /**
     * @param dir the directory of shm files
     * @return the files removed: those named as a test's pool whose process has ended
     */
    public static List<Path> sweep(Path dir) {
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return removed;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "ferrite-test-*")) {
            for (Path f : files) {
                Matcher m = TEST_POOL.matcher(f.getFileName().toString());
                if (m.matches() && !running(m.group(1)) && Files.deleteIfExists(f)) {
                    removed.add(f);
                }
            }
        } catch (IOException e) {
            // Best effort: a directory we cannot list or a file we may not delete stays.
        }
        return removed;
    }

    private static boolean running(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
        } catch (NumberFormatException e) {
            return true; // not a pid we can check: keep the file
        }
    }
}
