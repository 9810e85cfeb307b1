package dev.ferrite.backend.bytebuffer;

import dev.ferrite.PoolSpec;
import dev.ferrite.internal.AbstractMemoryBackend;
import dev.ferrite.internal.MemoryAccess;

/**
 * The {@code bytebuffer} backend: absolute get/put on little-endian {@link java.nio.MappedByteBuffer}
 * slices of mapped extents, atomics through {@link java.lang.invoke.VarHandle}s. Every access is
 * bounds-checked, by Ferrite and by the JDK; no {@code sun.misc.Unsafe}, no JVM flag, no warning
 * on any JDK. Extents are unmapped by the garbage collector after their pool closes (the JDK offers
 * no other way without Unsafe). Thread-safe.
 */
public final class ByteBufferBackend extends AbstractMemoryBackend {

    /** The name to select it by. */
    public static final String NAME = "bytebuffer";
    /** Ranks below an Unsafe backend that runs without warnings, above everything that warns. */
    static final int PRIORITY = 100;

    /** Creates the backend; discovery calls this. Never fails. */
    public ByteBufferBackend() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public String unavailableReason() {
        return "";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public boolean supports(PoolSpec.Kind kind) {
        return true;
    }

    @Override
    protected MemoryAccess access() {
        return ByteBufferMemoryAccess.INSTANCE;
    }
}
