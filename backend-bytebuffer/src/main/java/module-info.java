/** The {@code bytebuffer} backend: {@code MappedByteBuffer} and direct {@code ByteBuffer} extents. */
module dev.ferrite.backend.bytebuffer {
    requires dev.ferrite;

    exports dev.ferrite.backend.bytebuffer to dev.ferrite.backend.shm;

    provides dev.ferrite.spi.MemoryBackend with dev.ferrite.backend.bytebuffer.ByteBufferBackend;
}
