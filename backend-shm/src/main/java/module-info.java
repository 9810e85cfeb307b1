/** The {@code shm} backend: pools in {@code /dev/shm}, with the {@code unsafe} or {@code bytebuffer} backend's access. */
module dev.ferrite.backend.shm {
    requires dev.ferrite;
    requires dev.ferrite.backend.unsafe;
    requires dev.ferrite.backend.bytebuffer;

    provides dev.ferrite.spi.MemoryBackend with dev.ferrite.backend.shm.ShmBackend;
}
