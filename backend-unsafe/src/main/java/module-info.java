/** The {@code unsafe} backend: {@code sun.misc.Unsafe} on raw addresses, checked unless told not to. */
module dev.ferrite.backend.unsafe {
    requires dev.ferrite;
    requires jdk.unsupported;

    exports dev.ferrite.backend.unsafe to dev.ferrite.backend.shm;

    provides dev.ferrite.spi.MemoryBackend with dev.ferrite.backend.unsafe.UnsafeBackend;
}
