package dev.ferrite.backend.unsafe;

import dev.ferrite.PoolSpec;
import dev.ferrite.internal.AbstractMemoryBackend;
import dev.ferrite.internal.MemoryAccess;

/**
 * The {@code unsafe} backend: {@code sun.misc.Unsafe} on raw addresses of mapped extents (a file,
 * a {@code /dev/shm} file, or an unlinked RAM file for anonymous pools), through a per-segment
 * table of chunk base addresses. Checked like every backend; with {@code -Dferrite.checks=false}
 * single accesses are not, and then an offset outside a segment or an access after its pool
 * closed may corrupt memory or crash the JVM (writes to a read-only pool are refused either way).
 *
 * <p>On JDK 24 and later the JVM warns on the first Unsafe memory access unless started with
 * {@code --sun-misc-unsafe-memory-access=allow}; without that flag this backend ranks below the
 * warning-free ones, so it is never the default there. Thread-safe.
 */
public final class UnsafeBackend extends AbstractMemoryBackend {

    /** The name to select it by. */
    public static final String NAME = "unsafe";

    /** Priority when Unsafe runs without a JVM warning: the fastest choice. */
    static final int PRIORITY = 300;
    /** Priority when the JVM would warn: below every warning-free backend. */
    static final int PRIORITY_WARNS = 10;

    /** Creates the backend; discovery calls this. Never fails. */
    public UnsafeBackend() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isAvailable() {
        return UnsafeMemoryAccess.isUsable();
    }

    @Override
    public String unavailableReason() {
        return UnsafeMemoryAccess.unusableReason();
    }

    @Override
    public int priority() {
        return accessWarns() ? PRIORITY_WARNS : PRIORITY;
    }

    /**
     * @return whether this JVM prints a warning on the first {@code sun.misc.Unsafe} memory
     *         access: JDK 24+ unless {@code --sun-misc-unsafe-memory-access=allow} was given
     */
    public static boolean accessWarns() {
        return Runtime.version().feature() >= 24
                && !"allow".equals(System.getProperty("sun.misc.unsafe.memory.access"));
    }

    @Override
    public boolean supports(PoolSpec.Kind kind) {
        return true;
    }

    @Override
    protected MemoryAccess access() {
        return UnsafeMemoryAccess.INSTANCE;
    }
}
