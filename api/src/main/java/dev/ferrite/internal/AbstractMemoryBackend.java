package dev.ferrite.internal;

import dev.ferrite.BackendUnavailableException;
import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.PoolSpec;
import dev.ferrite.spi.MemoryBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What backends share: making pools from specs, where shm pools live, deleting pool files. A
 * backend supplies its name, availability, priority and {@link MemoryAccess}.
 */
public abstract class AbstractMemoryBackend implements MemoryBackend {

    /** Where shm pools live. */
    public static final Path SHM_DIR = PoolSpec.SHM_DIRECTORY;

    /** @return how this backend reaches memory; called only when available */
    protected abstract MemoryAccess access();

    /**
     * @param name a validated shm name
     * @return the file of the shm pool of that name
     */
    public static Path shmPath(String name) {
        return SHM_DIR.resolve(name);
    }

    @Override
    public boolean isChecked() {
        return isAvailable() && Checks.ENABLED;
    }

    @Override
    public ChunkPool createPool(PoolSpec spec) {
        requireUsable(spec);
        if (spec.readOnly()) {
            throw new FerriteException("cannot create " + spec.describe() + " read-only; readOnly is for openPool");
        }
        PoolFile file;
        switch (spec.kind()) {
            case FILE:
                file = PoolFile.create(spec.path(), spec.overwrite(), false);
                break;
            case SHM:
                requireShmDir();
                file = PoolFile.create(shmPath(spec.shmName()), spec.overwrite(), true);
                break;
            default:
                file = PoolFile.anonymous();
        }
        return MappedChunkPool.create(spec, this, access(), file);
    }

    @Override
    public ChunkPool openPool(PoolSpec spec) {
        requireUsable(spec);
        PoolFile file;
        switch (spec.kind()) {
            case FILE:
                file = PoolFile.open(spec.path(), spec.readOnly());
                break;
            case SHM:
                requireShmDir();
                file = PoolFile.open(shmPath(spec.shmName()), spec.readOnly());
                break;
            default:
                throw new FerriteException("an anonymous pool cannot be opened, only created; use createPool");
        }
        return MappedChunkPool.open(spec, this, access(), file);
    }

    @Override
    public boolean deletePool(PoolSpec spec) {
        Path path;
        switch (spec.kind()) {
            case FILE:
                path = spec.path();
                break;
            case SHM:
                path = shmPath(spec.shmName());
                break;
            default:
                return false;
        }
        try {
            return Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new FerriteException("cannot delete " + spec.describe() + " at " + path + ": " + e, e);
        }
    }

    private void requireUsable(PoolSpec spec) {
        if (!isAvailable()) {
            throw new BackendUnavailableException("backend '" + name() + "' is unavailable: " + unavailableReason());
        }
        if (!supports(spec.kind())) {
            throw new FerriteException("backend '" + name() + "' cannot make a " + spec.describe()
                    + "; it supports " + supportedKinds());
        }
    }

    private String supportedKinds() {
        StringBuilder sb = new StringBuilder();
        for (PoolSpec.Kind k : PoolSpec.Kind.values()) {
            if (supports(k)) {
                sb.append(sb.length() == 0 ? "" : ", ").append(k.name().toLowerCase(java.util.Locale.ROOT));
            }
        }
        return sb + " pools";
    }

    /** @throws FerriteException if {@code /dev/shm} is not a writable directory */
    protected static void requireShmDir() {
        String reason = shmUnavailableReason();
        if (!reason.isEmpty()) {
            throw new FerriteException("shm pools need " + SHM_DIR + ": " + reason);
        }
    }

    /** @return why {@code /dev/shm} cannot hold pools, or an empty string if it can */
    public static String shmUnavailableReason() {
        if (!Files.isDirectory(SHM_DIR)) {
            return SHM_DIR + " does not exist (not Linux, or no tmpfs mounted there)";
        }
        if (!Files.isWritable(SHM_DIR)) {
            return SHM_DIR + " is not writable by this user";
        }
        return "";
    }

    @Override
    public String toString() {
        return "MemoryBackend[" + name() + (isAvailable() ? "" : ", unavailable: " + unavailableReason()) + "]";
    }
}
