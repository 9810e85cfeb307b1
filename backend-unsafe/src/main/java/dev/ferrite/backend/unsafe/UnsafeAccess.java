package dev.ferrite.backend.unsafe;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteOrder;
import sun.misc.Unsafe;

/**
 * The {@link Unsafe} instance, found once; if it cannot be had, {@link #UNSAFE} is null and
 * {@link #UNAVAILABLE_REASON} says why. Finding it calls no memory-access method, so merely
 * checking availability never makes JDK 24+ print its Unsafe warning.
 */
final class UnsafeAccess {

    /** The instance, or null when unavailable. */
    static final Unsafe UNSAFE;
    /** Why Unsafe cannot be used, or an empty string. */
    static final String UNAVAILABLE_REASON;

    static {
        Unsafe unsafe = null;
        String reason = "";
        try {
            if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
                throw new IllegalStateException("the platform is big-endian; Ferrite's formats are little-endian");
            }
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = (Unsafe) f.get(null);
        } catch (Throwable t) {
            unsafe = null;
            reason = "sun.misc.Unsafe is not usable: " + t;
        }
        UNSAFE = unsafe;
        UNAVAILABLE_REASON = reason;
    }

    private UnsafeAccess() {
    }

    /**
     * @param buffer a direct buffer
     * @return its native address
     */
    static long address(Buffer buffer) {
        return UNSAFE.getLong(buffer, BufferAddress.OFFSET);
    }

    /** Initialised on the first mapping, not on the availability check. */
    private static final class BufferAddress {
        static final long OFFSET;

        static {
            try {
                OFFSET = UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField("address"));
            } catch (NoSuchFieldException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }
}
