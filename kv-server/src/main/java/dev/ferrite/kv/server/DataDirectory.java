package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/**
 * The server's data directory and the file moves that make its changes all-or-nothing across a
 * crash. Its files:
 * <ul>
 *   <li>{@code databases}: the manifest, one line per database that exists, {@code <index> <file>};
 *       replaced whole by an atomic rename, so every change of which file is which database
 *       (a new database, FLUSHDB, FLUSHALL, SWAPDB) is one step;</li>
 *   <li>{@code map-<n>.ferrite} (and {@code db<n>.ferrite}, from servers before the manifest): a
 *       database's map file, named in the manifest; one the manifest does not name is a leftover
 *       of a crash and deleted at start;</li>
 *   <li>{@code spare.ferrite}: an empty map, fully made, that the next new database becomes;</li>
 *   <li>{@code journal.ferrite}: the {@link UndoJournal} of multi-entry commands;</li>
 *   <li>{@code *.new}: a file being made; a leftover of a crash, deleted at start;</li>
 *   <li>{@code ferrite.lock}: locked while a server uses the directory, holding its pid.</li>
 * </ul>
 * Every rename and deletion is made durable by forcing the directory. Files and the directory are
 * made readable by the owner only. Thread-safe but for {@link #lock}, {@link #recover} and
 * {@link #close}, called once each; {@link #writeManifest} callers serialize themselves.
 */
final class DataDirectory implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DataDirectory.class);
    static final String SUFFIX = ".ferrite";
    static final String IN_PROGRESS = ".new";
    private static final String MANIFEST = "databases";
    private static final String LOCK = "ferrite.lock";
    private static final java.util.regex.Pattern LEGACY = java.util.regex.Pattern.compile("db([0-9]{1,2})\\.ferrite");
    private static final java.util.regex.Pattern NUMBERED = java.util.regex.Pattern.compile("map-([0-9]{1,18})\\.ferrite");

    private final Path dir;
    /** The number of the next database file. */
    private final java.util.concurrent.atomic.AtomicLong nextFile = new java.util.concurrent.atomic.AtomicLong(1);
    private FileChannel lockChannel;
    private FileLock lock;

    /** @param dir the directory, created (owner-only) if missing */
    DataDirectory(Path dir) {
        this.dir = dir;
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                ownerOnly(dir, "rwx------");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + dir, e);
        }
    }

    /** @return the directory */
    Path path() {
        return dir;
    }

    /** @return the file a database with that name (from the manifest) lives in */
    Path file(String name) {
        return dir.resolve(name);
    }

    /**
     * @return a name no database file in this directory has, made or being made, for a new
     *         database; callers that may race another process for one hold the collection store's lock
     */
    String newDatabaseName() {
        try (DirectoryStream<Path> all = Files.newDirectoryStream(dir, "map-*")) {
            for (Path p : all) {
                String name = p.getFileName().toString();
                java.util.regex.Matcher numbered = NUMBERED.matcher(name.endsWith(IN_PROGRESS)
                        ? name.substring(0, name.length() - IN_PROGRESS.length()) : name);
                if (numbered.matches()) {
                    nextFile.accumulateAndGet(Long.parseLong(numbered.group(1)) + 1, Math::max);
                }
            }
        } catch (IOException e) {
            throw new FerriteException("cannot list the data directory " + dir + ": " + e, e);
        }
        return "map-" + nextFile.getAndIncrement() + SUFFIX;
    }

    /** @return the spare map's file */
    Path spare() {
        return dir.resolve("spare" + SUFFIX);
    }

    /** @return where a map is made before it is renamed to {@code target} */
    static Path inProgress(Path target) {
        return target.resolveSibling(target.getFileName() + IN_PROGRESS);
    }

    /**
     * Takes the directory for this server: a second server on it would write the same maps.
     *
     * @throws FerriteException naming the pid of the server that has it
     */
    void lock() {
        Path file = dir.resolve(LOCK);
        try {
            lockChannel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            ownerOnly(file, "rw-------");
            try {
                lock = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // held by this process: another server in this JVM
            }
            if (lock == null) {
                String holder = Files.readString(file, StandardCharsets.US_ASCII).strip();
                lockChannel.close();
                throw new FerriteException("the data directory " + dir + " is in use by another server (pid "
                        + (holder.isEmpty() ? "unknown" : holder) + ", holding " + file + "): stop it, or give this"
                        + " server another --data directory");
            }
            lockChannel.truncate(0);
            lockChannel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        } catch (IOException e) {
            throw new FerriteException("cannot lock the data directory " + dir + " (" + file + "): " + e, e);
        }
    }

    /**
     * Reads the manifest and deletes what a crash left: files being made, and database files the
     * manifest does not name (made but never added, or dropped but not yet deleted: they hold no
     * acknowledged write). A directory of a server from before the manifest has its
     * {@code db<n>.ferrite} files adopted into a new manifest.
     *
     * @return the database file names by index
     */
    Map<Integer, String> recover() {
        Path manifest = dir.resolve(MANIFEST);
        try {
            Map<Integer, String> databases = new java.util.TreeMap<>();
            if (Files.exists(manifest)) {
                databases.putAll(readManifest());
            } else {
                try (DirectoryStream<Path> legacy = Files.newDirectoryStream(dir, "db*" + SUFFIX)) {
                    for (Path p : legacy) {
                        java.util.regex.Matcher m = LEGACY.matcher(p.getFileName().toString());
                        if (m.matches()) {
                            databases.put(Integer.parseInt(m.group(1)), p.getFileName().toString());
                        }
                    }
                }
                writeManifest(databases);
            }
            try (DirectoryStream<Path> all = Files.newDirectoryStream(dir)) {
                for (Path p : all) {
                    String name = p.getFileName().toString();
                    java.util.regex.Matcher numbered = NUMBERED.matcher(name);
                    if (numbered.matches()) {
                        nextFile.accumulateAndGet(Long.parseLong(numbered.group(1)) + 1, Math::max);
                    }
                    boolean orphan = (numbered.matches() || LEGACY.matcher(name).matches())
                            && !databases.containsValue(name);
                    if (orphan || name.endsWith(IN_PROGRESS)) {
                        Files.delete(p);
                        LOG.info("deleted {}: a crash left it {}, it held no acknowledged write", p,
                                orphan ? "outside the databases" : "unfinished");
                    }
                }
            }
            sync();
            return databases;
        } catch (IOException e) {
            throw new FerriteException("cannot recover the data directory " + dir + ": " + e, e);
        }
    }

    /**
     * Reads the manifest as it is now (it is replaced whole, so a read sees one version of it).
     *
     * @return the database file names by index; none if there is no manifest
     * @throws dev.ferrite.CorruptFileException if a line is not {@code <index> <file name>}
     */
    Map<Integer, String> readManifest() {
        Path manifest = dir.resolve(MANIFEST);
        Map<Integer, String> databases = new java.util.TreeMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(manifest, StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException e) {
            return databases;
        } catch (IOException e) {
            throw new FerriteException("cannot read the manifest " + manifest + ": " + e, e);
        }
        for (int n = 0; n < lines.size(); n++) {
            String[] f = lines.get(n).strip().split(" ");
            if (f.length != 2 || !f[0].matches("[0-9]{1,2}") || Integer.parseInt(f[0]) >= Databases.COUNT
                    || !(NUMBERED.matcher(f[1]).matches() || LEGACY.matcher(f[1]).matches())
                    || databases.put(Integer.parseInt(f[0]), f[1]) != null) {
                throw new dev.ferrite.CorruptFileException("line " + (n + 1) + " of " + manifest + " is '"
                        + lines.get(n) + "', not '<database index below " + Databases.COUNT
                        + "> <file name>' once per index");
            }
        }
        return databases;
    }

    /**
     * Replaces the manifest in one step: written whole under a temporary name, forced, renamed.
     *
     * @param databases the database file names by index
     */
    void writeManifest(Map<Integer, String> databases) {
        Path manifest = dir.resolve(MANIFEST);
        Path writing = inProgress(manifest);
        StringBuilder b = new StringBuilder();
        new java.util.TreeMap<>(databases).forEach((index, name) -> b.append(index).append(' ').append(name).append('\n'));
        try {
            try (FileChannel ch = FileChannel.open(writing, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            ownerOnly(writing, "rw-------");
            Files.move(writing, manifest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new FerriteException("cannot write the manifest " + manifest + ": " + e, e);
        }
        sync();
    }

    /** Makes a new map file owner-only, then gives it its final name, durably. */
    void publish(Path made, Path target) {
        try {
            ownerOnly(made, "rw-------");
            Files.move(made, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            throw new FerriteException("the data directory " + dir + " cannot rename files atomically: " + e, e);
        } catch (IOException e) {
            throw new FerriteException("cannot rename " + made + " to " + target + ": " + e, e);
        }
        sync();
    }

    /** Deletes a file that no database uses any more, durably. */
    void drop(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new FerriteException("cannot delete " + file + ": " + e, e);
        }
        sync();
    }

    /** Forces the directory, so that its renames and deletions survive a crash of the machine. */
    void sync() {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some systems cannot open or force a directory; the renames are still atomic there.
            LOG.debug("cannot force the directory {}: {}", dir, e.toString());
        }
    }

    private static void ownerOnly(Path p, String permissions) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class);
        if (view != null) {
            view.setPermissions(PosixFilePermissions.fromString(permissions));
        }
    }

    /** Gives the directory up (the lock file stays, unlocked). */
    @Override
    public void close() {
        try {
            if (lock != null) {
                lock.release();
            }
            if (lockChannel != null) {
                lockChannel.close();
            }
        } catch (IOException e) {
            LOG.debug("releasing the lock of {}: {}", dir, e.toString());
        }
        lock = null;
        lockChannel = null;
    }
}
