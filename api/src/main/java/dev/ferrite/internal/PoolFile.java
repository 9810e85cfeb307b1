package dev.ferrite.internal;

import dev.ferrite.FerriteException;
import dev.ferrite.PoolExhaustedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * A file that a pool maps extent by extent. Mapping past the end grows the file sparsely, so only
 * touched pages cost memory or disk. An anonymous pool uses a file that is unlinked as soon as it
 * is open: memory that is lazily populated, never zeroed eagerly, and gone with the last mapping.
 * Thread-safe.
 */
public final class PoolFile implements AutoCloseable {

    /** Where anonymous pools' unlinked files go when {@code /dev/shm} is missing: {@code java.io.tmpdir}. */
    private static final Path SHM_DIR = Path.of("/dev/shm");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    /** Reservations on RAM file systems are written in blocks of this many zero bytes. */
    private static final int RESERVE_BLOCK = 1 << 20;
    private static final Set<String> RAM_FILE_SYSTEMS = Set.of("tmpfs", "ramfs");

    private final Path path;
    private final FileChannel channel;
    private final boolean readOnly;
    /** The file system holding the file, or null if it cannot be told. */
    private final FileStore fileStore;

    private PoolFile(Path path, FileChannel channel, boolean readOnly, FileStore fileStore) {
        this.path = path;
        this.channel = channel;
        this.readOnly = readOnly;
        this.fileStore = fileStore;
    }

    private static FileStore fileStoreOf(Path path) {
        try {
            return Files.getFileStore(path);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Creates a new pool file.
     *
     * @param path      the file; its directory must exist
     * @param overwrite whether an existing file is replaced
     * @param ownerOnly whether the file gets permissions 0600 whatever the umask
     * @return the open file, empty
     * @throws FerriteException if it exists and overwrite is false, or it cannot be created
     */
    public static PoolFile create(Path path, boolean overwrite, boolean ownerOnly) {
        try {
            if (overwrite) {
                Files.deleteIfExists(path);
            }
            FileAttribute<?>[] attrs = ownerOnly && supportsPosix(path)
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                    : new FileAttribute<?>[0];
            FileChannel ch = FileChannel.open(path, EnumSet.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ, StandardOpenOption.WRITE), attrs);
            return new PoolFile(path, ch, false, fileStoreOf(path));
        } catch (FileAlreadyExistsException e) {
            throw new FerriteException("pool file " + path + " already exists; open it, or create with overwrite(true)", e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new FerriteException("cannot create pool file " + path + ": " + e, e);
        }
    }

    /**
     * Opens an existing pool file.
     *
     * @param path     the file
     * @param readOnly whether to open it for reading only
     * @return the open file
     * @throws FerriteException if it does not exist or cannot be opened
     */
    public static PoolFile open(Path path, boolean readOnly) {
        try {
            FileChannel ch = readOnly ? FileChannel.open(path, StandardOpenOption.READ)
                    : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            return new PoolFile(path, ch, readOnly, fileStoreOf(path));
        } catch (NoSuchFileException e) {
            throw new FerriteException("pool file " + path + " does not exist", e);
        } catch (java.nio.file.AccessDeniedException e) {
            throw new FerriteException("pool file " + path + " cannot be opened "
                    + (readOnly ? "for reading: permission denied" : "for writing: permission denied; open it with "
                    + "PoolSpec readOnly(true) to read it"), e);
        } catch (IOException e) {
            throw new FerriteException("cannot open pool file " + path + (readOnly ? " for reading" : " for writing")
                    + ": " + e, e);
        }
    }

    /**
     * Creates an unlinked file for an anonymous pool, in {@code /dev/shm} when present (RAM), else
     * in {@code java.io.tmpdir}.
     *
     * @return the open file, already without a name
     * @throws FerriteException if no such file can be made
     */
    public static PoolFile anonymous() {
        Path dir = Files.isDirectory(SHM_DIR) && Files.isWritable(SHM_DIR) ? SHM_DIR
                : Path.of(System.getProperty("java.io.tmpdir"));
        try {
            Path tmp = supportsPosix(dir)
                    ? Files.createTempFile(dir, "ferrite-anon-", ".pool", PosixFilePermissions.asFileAttribute(OWNER_ONLY))
                    : Files.createTempFile(dir, "ferrite-anon-", ".pool");
            FileChannel ch;
            FileStore fileStore = fileStoreOf(tmp);
            try {
                ch = FileChannel.open(tmp, StandardOpenOption.READ, StandardOpenOption.WRITE);
            } finally {
                // Unlinked at once: the mappings keep the memory alive; nothing lingers after a crash.
                Files.deleteIfExists(tmp);
            }
            return new PoolFile(null, ch, false, fileStore);
        } catch (IOException e) {
            throw new FerriteException("cannot create memory for an anonymous pool in " + dir + ": " + e, e);
        }
    }

    private static boolean supportsPosix(Path path) {
        Path dir = path.toAbsolutePath().getParent();
        return Files.getFileAttributeView(dir == null ? path : dir,
                java.nio.file.attribute.PosixFileAttributeView.class) != null;
    }

    /** @return the path, or null for an anonymous pool's unlinked file */
    public Path path() {
        return path;
    }

    /** @return the open channel, for backends that map the file themselves; not to be closed */
    public FileChannel channel() {
        return channel;
    }

    /** @return whether the file is open for reading only */
    public boolean isReadOnly() {
        return readOnly;
    }

    /**
     * @return the file's length in bytes
     * @throws FerriteException if it cannot be read
     */
    public long length() {
        try {
            return channel.size();
        } catch (IOException e) {
            throw new FerriteException("cannot read the length of " + describe() + ": " + e, e);
        }
    }

    /**
     * Grows the file to at least {@code length} bytes, sparsely; never shrinks it.
     *
     * @param length the least length in bytes
     * @throws FerriteException if the file cannot grow
     */
    public void ensureLength(long length) {
        try {
            if (channel.size() < length) {
                channel.write(ByteBuffer.allocate(1), length - 1);
            }
        } catch (IOException e) {
            throw new FerriteException("cannot grow " + describe() + " to " + length + " bytes: " + e, e);
        }
    }

    /**
     * Makes sure the file system can hold {@code [offset, offset + bytes)} before anything touches
     * it through a mapping, where a full file system would be a SIGBUS instead of an exception.
     * On a RAM file system (tmpfs, where {@code /dev/shm} and anonymous pools live) the range is
     * written with zeros through the channel, which reserves its pages: a full file system fails
     * the write, and what was added to the file is cut off again. Elsewhere the file stays sparse
     * (writing would cost the disk I/O sparse files exist to avoid, and Java 17 has no
     * {@code fallocate}): the file system's usable space must cover the range. Call only for a
     * range nothing uses yet.
     *
     * @param offset first byte
     * @param bytes  bytes, at least 0
     * @param what   what the range is for, for the message
     * @throws PoolExhaustedException naming the file system and the bytes it lacks
     */
    public void reserve(long offset, long bytes, String what) {
        if (readOnly || bytes <= 0 || fileStore == null) {
            return;
        }
        if (RAM_FILE_SYSTEMS.contains(fileStore.type())) {
            writeZeros(offset, bytes, what);
            return;
        }
        long usable;
        try {
            usable = fileStore.getUsableSpace();
        } catch (IOException e) {
            return;
        }
        if (usable < bytes) {
            throw new PoolExhaustedException(what + " of " + describe() + " needs " + bytes + " bytes, but the file system "
                    + describeStore() + " has " + usable + " usable; it lacks " + (bytes - usable) + " bytes");
        }
    }

    private void writeZeros(long offset, long bytes, String what) {
        long lengthBefore = length();
        ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(RESERVE_BLOCK, bytes));
        long done = 0;
        try {
            while (done < bytes) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - done));
                done += channel.write(zeros, offset + done);
            }
        } catch (IOException e) {
            try {
                if (channel.size() > lengthBefore) {
                    channel.truncate(lengthBefore);
                }
            } catch (IOException ignored) {
                // The write already failed; that is what the caller hears about.
            }
            throw new PoolExhaustedException(what + " of " + describe() + " needs " + bytes + " bytes of RAM, but the "
                    + "file system " + describeStore() + " is full after " + done + " of them; it lacks "
                    + (bytes - done) + " bytes (" + e.getMessage() + ")", e);
        }
    }

    private String describeStore() {
        long total;
        try {
            total = fileStore.getTotalSpace();
        } catch (IOException e) {
            total = -1;
        }
        return fileStore + " (" + fileStore.type() + ", " + total + " bytes)";
    }

    /**
     * Reads from the file into a buffer, as much as it has room for or the file holds.
     *
     * @param dst    destination; filled from its position
     * @param offset file offset
     * @throws FerriteException if reading fails
     */
    public void read(ByteBuffer dst, long offset) {
        try {
            while (dst.hasRemaining()) {
                int n = channel.read(dst, offset);
                if (n < 0) {
                    return;
                }
                offset += n;
            }
        } catch (IOException e) {
            throw new FerriteException("cannot read " + describe() + ": " + e, e);
        }
    }

    /**
     * Maps {@code [offset, offset + bytes)}, growing the file sparsely if it is shorter.
     *
     * @param offset file offset in bytes
     * @param bytes  at most {@link Integer#MAX_VALUE}
     * @return a little-endian mapping
     * @throws FerriteException if the mapping fails
     */
    public MappedByteBuffer map(long offset, long bytes) {
        try {
            MappedByteBuffer b = channel.map(readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE,
                    offset, bytes);
            b.order(ByteOrder.LITTLE_ENDIAN);
            return b;
        } catch (IOException | OutOfMemoryError e) {
            throw new FerriteException("cannot map " + bytes + " bytes at offset " + offset + " of " + describe()
                    + ": " + e, e);
        }
    }

    /** Closes the channel and deletes the file (for a pool that could not be created). */
    public void closeAndDelete() {
        close();
        if (path != null) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                throw new FerriteException("cannot delete " + describe() + ": " + e, e);
            }
        }
    }

    /** Closes the channel; mappings stay valid until unmapped. */
    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new FerriteException("cannot close " + describe() + ": " + e, e);
        }
    }

    private String describe() {
        return path == null ? "anonymous pool memory" : "pool file " + path;
    }
}
