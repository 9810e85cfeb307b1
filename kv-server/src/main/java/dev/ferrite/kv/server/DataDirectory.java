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
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The server's data directory and the file moves that make its changes all-or-nothing across a
 * crash. Its files:
 * <ul>
 *   <li>{@code db<n>.ferrite}: database n, a map file; present only once fully made;</li>
 *   <li>{@code spare.ferrite}: an empty map, fully made, that the next new database becomes;</li>
 *   <li>{@code *.ferrite.new}: a map being made; a leftover of a crash, deleted at start;</li>
 *   <li>{@code flush.intent}: the files a {@code FLUSHALL} drops (name and file identity, one per
 *       line); at start, a leftover one is carried out and deleted;</li>
 *   <li>{@code ferrite.lock}: locked while a server uses the directory, holding its pid.</li>
 * </ul>
 * A file appears under its final name by an atomic rename, and every rename and deletion is made
 * durable by forcing the directory, so that after a crash each file is either whole or absent.
 * Files and the directory are made readable by the owner only. Thread-safe but for {@link #lock}
 * and {@link #close}, called once each.
 */
final class DataDirectory implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DataDirectory.class);
    static final String SUFFIX = ".ferrite";
    static final String IN_PROGRESS = ".new";
    private static final String INTENT = "flush.intent";
    private static final String LOCK = "ferrite.lock";

    private final Path dir;
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

    /** @return database {@code n}'s file */
    Path database(int n) {
        return dir.resolve("db" + n + SUFFIX);
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
     * Finishes or undoes what a crash interrupted: carries out a leftover {@code FLUSHALL} intent
     * and deletes maps whose making never finished (they hold no acknowledged write).
     */
    void recover() {
        Path intent = dir.resolve(INTENT);
        try {
            if (Files.exists(intent)) {
                for (String line : Files.readAllLines(intent, StandardCharsets.UTF_8)) {
                    int space = line.indexOf(' ');
                    if (space > 0) {
                        Path file = dir.resolve(line.substring(0, space));
                        if (identity(file).equals(line.substring(space + 1))) {
                            Files.delete(file);
                            LOG.info("finished an interrupted FLUSHALL: deleted {}", file);
                        }
                    }
                }
                Files.delete(intent);
                sync();
            }
            try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(dir, "*" + IN_PROGRESS)) {
                for (Path p : leftovers) {
                    Files.delete(p);
                    LOG.info("deleted {}: its making was interrupted, it held nothing", p);
                }
            }
            sync();
        } catch (IOException e) {
            throw new FerriteException("cannot recover the data directory " + dir + ": " + e, e);
        }
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

    /** Deletes a database's file durably; the data is gone once this returns. */
    void drop(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new FerriteException("cannot delete " + file + ": " + e, e);
        }
        sync();
    }

    /**
     * Drops several files as one step across a crash: the list is written first (by an atomic
     * rename, forced), then the files deleted, then the list; a start after a crash in between
     * deletes what the list names and still has the listed identity (a file made since is kept).
     *
     * @param files the files, each with its {@link #identity}
     */
    void dropAll(Map<Path, String> files) {
        Path intent = dir.resolve(INTENT);
        Path writing = inProgress(intent);
        try {
            StringBuilder b = new StringBuilder();
            files.forEach((file, id) -> b.append(file.getFileName()).append(' ').append(id).append('\n'));
            try (FileChannel ch = FileChannel.open(writing, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            Files.move(writing, intent, StandardCopyOption.ATOMIC_MOVE);
            sync();
            for (Path file : files.keySet()) {
                Files.deleteIfExists(file);
            }
            sync();
            Files.delete(intent);
            sync(); // before a deleted file's inode can be reused by a new database
        } catch (IOException e) {
            throw new FerriteException("cannot flush the databases in " + dir + ": " + e, e);
        }
    }

    /** @return the file's identity (device and inode where the system has them), or "" if it is gone */
    static String identity(Path file) {
        try {
            Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            return key == null ? file.getFileName() + "@" + Files.getLastModifiedTime(file).toMillis() : key.toString();
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            throw new FerriteException("cannot read the attributes of " + file + ": " + e, e);
        }
    }

    /** @return the names of the directory's files, for tests and messages */
    List<String> names() {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(dir)) {
            all.forEach(p -> out.add(p.getFileName().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
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
