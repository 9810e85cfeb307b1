package dev.ferrite.backend.ffm;

import dev.ferrite.PoolSpec;
import dev.ferrite.internal.AbstractMemoryBackend;
import dev.ferrite.internal.MemoryAccess;

/**
 * The {@code ffm} backend: {@code java.lang.foreign.MemorySegment} access (JDK 22+). A pool's whole
 * data region is mapped as one segment in a shared arena that lives as long as the pool, and a
 * segment's chunks are offsets into it: an access is one table load and one bounds-checked
 * access, with no 2 GiB limit, no {@code sun.misc.Unsafe}, no JVM flag and no warning.
 *
 * <p>The data region is mapped at its full capacity when the pool is opened, so the file's
 * length is the capacity from then on; the file is sparse, so only touched pages take disk or RAM.
 *
 * <p>This class is compiled for Java 17, so that on an older JVM it still loads and reports the
 * backend unavailable with the reason; the implementation is compiled for Java 22. Thread-safe.
 */
public final class FfmBackend extends AbstractMemoryBackend {

    /** The name to select it by. */
    public static final String NAME = "ffm";
    /** Below Unsafe without warnings, above ByteBuffer: see the README's measured table. */
    static final int PRIORITY = 200;
    private static final int MIN_FEATURE = 22;
    private static final String IMPLEMENTATION = "dev.ferrite.backend.ffm.impl.FfmMemoryAccess";

    private static final class Loaded {
        static final MemoryAccess ACCESS;
        static final String REASON;

        static {
            MemoryAccess access = null;
            String reason = "";
            int feature = Runtime.version().feature();
            if (feature < MIN_FEATURE) {
                reason = "needs Java " + MIN_FEATURE + " or later (the final Foreign Function & Memory API); "
                        + "this JVM is Java " + feature;
            } else {
                try {
                    access = (MemoryAccess) Class.forName(IMPLEMENTATION).getField("INSTANCE").get(null);
                } catch (ReflectiveOperationException | LinkageError e) {
                    reason = "its implementation cannot load: " + e;
                }
            }
            ACCESS = access;
            REASON = reason;
        }
    }

    /** Creates the backend; discovery calls this. Never fails, on any JDK. */
    public FfmBackend() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isAvailable() {
        return Loaded.ACCESS != null;
    }

    @Override
    public String unavailableReason() {
        return Loaded.REASON;
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
        return Loaded.ACCESS;
    }
}
