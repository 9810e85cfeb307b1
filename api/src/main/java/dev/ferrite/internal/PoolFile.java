package dev.ferrite.internal;

import dev.ferrite.FerriteException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
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

    private final Path path;
    private final FileChannel channel;
    private final boolean readOnly;

    private PoolFile(Path path, FileChannel channel, boolean readOnly) {
        this.path = path;
        this.channel = channel;
        this.readOnly = readOnly;
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
            return new PoolFile(path, ch, false);
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
            return new PoolFile(path, ch, readOnly);
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
            try {
                ch = FileChannel.open(tmp, StandardOpenOption.READ, StandardOpenOption.WRITE);
            } finally {
                // Unlinked at once: the mappings keep the memory alive; nothing lingers after a crash.
                Files.deleteIfExists(tmp);
            }
            return new PoolFile(null, ch, false);
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
