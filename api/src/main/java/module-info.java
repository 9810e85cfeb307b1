/**
 * Ferrite's storage API: pools of chunks, segments of any size, the backend SPI and the errors.
 * Only {@code dev.ferrite} and {@code dev.ferrite.spi} are public; the machinery the backends,
 * the queue and the map share is exported to those modules alone.
 */
module dev.ferrite {
    requires transitive org.slf4j;

    exports dev.ferrite;
    exports dev.ferrite.spi;
    exports dev.ferrite.internal to dev.ferrite.testkit, dev.ferrite.backend.unsafe, dev.ferrite.backend.bytebuffer, dev.ferrite.backend.shm, dev.ferrite.backend.ffm, dev.ferrite.queue, dev.ferrite.kv;
    exports dev.ferrite.internal.pool to dev.ferrite.testkit, dev.ferrite.backend.unsafe, dev.ferrite.backend.bytebuffer, dev.ferrite.backend.shm, dev.ferrite.backend.ffm, dev.ferrite.queue, dev.ferrite.kv;

    uses dev.ferrite.spi.MemoryBackend;
}
