package dev.ferrite.backend.unsafe;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteOrder;
import sun.misc.Unsafe;

/**
 * The {@link Unsafe} instance and the one field offset the backend needs, found once. If either
 * cannot be had, {@link #UNSAFE} is null and {@link #UNAVAILABLE_REASON} says why.
 */
final class UnsafeAccess {

    /** The instance, or null when unavailable. */
    static final Unsafe UNSAFE;
    /** Offset of {@code java.nio.Buffer.address}, to read a mapping's native address. */
    static final long BUFFER_ADDRESS;
    /** Why Unsafe cannot be used, or an empty string. */
    static final String UNAVAILABLE_REASON;

    static {
        Unsafe unsafe = null;
        long address = -1;
        String reason = "";
        try {
            if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
                throw new IllegalStateException("the platform is big-endian; Ferrite's formats are little-endian");
            }
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = (Unsafe) f.get(null);
            address = unsafe.objectFieldOffset(Buffer.class.getDeclaredField("address"));
        } catch (Throwable t) {
            unsafe = null;
            reason = "sun.misc.Unsafe is not usable: " + t;
        }
        UNSAFE = unsafe;
        BUFFER_ADDRESS = address;
        UNAVAILABLE_REASON = reason;
    }

    private UnsafeAccess() {
    }

    /**
     * @param buffer a direct buffer
     * @return its native address
     */
    static long address(Buffer buffer) {
        return UNSAFE.getLong(buffer, BUFFER_ADDRESS);
    }
}
