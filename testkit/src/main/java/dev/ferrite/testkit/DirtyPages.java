package dev.ferrite.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Reads how much of a file this process's mappings hold dirty, from Linux's {@code /proc/self/smaps}:
 * what {@code force()} has not written to the file yet. Stateless.
 */
public final class DirtyPages {

    private static final Path SMAPS = Path.of("/proc/self/smaps");
    /** A mapping's first line: {@code start-end perms offset dev inode path}. */
    private static final Pattern MAPPING = Pattern.compile("^[0-9a-f]+-[0-9a-f]+ .*");

    private DirtyPages() {
    }

    /** @return whether this system tells (Linux's {@code /proc/self/smaps} is readable) */
    public static boolean readable() {
        return Files.isReadable(SMAPS);
    }

    /**
     * @param file the mapped file's real path
     * @return kilobytes of the file's pages that this process's mappings hold dirty (shared and private)
     * @throws IOException if smaps cannot be read
     */
    public static long kilobytes(String file) throws IOException {
        long kb = 0;
        boolean inFile = false;
        for (String line : Files.readAllLines(SMAPS)) {
            if (MAPPING.matcher(line).matches()) {
                inFile = line.endsWith(" " + file);
            } else if (inFile && (line.startsWith("Shared_Dirty:") || line.startsWith("Private_Dirty:"))) {
                kb += Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return kb;
    }
}
