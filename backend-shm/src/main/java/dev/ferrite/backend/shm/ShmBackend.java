package dev.ferrite.backend.shm;

import dev.ferrite.PoolSpec;
import dev.ferrite.backend.bytebuffer.ByteBufferMemoryAccess;
import dev.ferrite.backend.unsafe.UnsafeBackend;
import dev.ferrite.backend.unsafe.UnsafeMemoryAccess;
import dev.ferrite.internal.AbstractMemoryBackend;
import dev.ferrite.internal.MemoryAccess;

/**
 * The {@code shm} backend: pools that live in RAM as named files in {@code /dev/shm} (created with
 * permissions 0600, owner only), so other processes can map the same memory by name; anonymous
 * pools use an unlinked {@code /dev/shm} file. Access is the {@code unsafe} backend's where Unsafe
 * runs without a JVM warning, else the {@code bytebuffer} backend's. File pools are not its job:
 * use {@code unsafe} or {@code bytebuffer} for those. Unavailable where {@code /dev/shm} is
 * missing. Thread-safe.
 */
public final class ShmBackend extends AbstractMemoryBackend {

    /** The name to select it by. */
    public static final String NAME = "shm";
    /** Below the general-purpose backends: it is chosen for where its memory lives, not by default. */
    static final int PRIORITY = 50;

    /** Creates the backend; discovery calls this. Never fails. */
    public ShmBackend() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isAvailable() {
        return shmUnavailableReason().isEmpty();
    }

    @Override
    public String unavailableReason() {
        return shmUnavailableReason();
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public boolean supports(PoolSpec.Kind kind) {
        return kind != PoolSpec.Kind.FILE;
    }

    @Override
    protected MemoryAccess access() {
        return UnsafeMemoryAccess.isUsable() && !UnsafeBackend.accessWarns()
                ? UnsafeMemoryAccess.INSTANCE : ByteBufferMemoryAccess.INSTANCE;
    }
}
