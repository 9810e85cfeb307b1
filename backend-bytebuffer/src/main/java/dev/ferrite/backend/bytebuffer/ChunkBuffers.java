package dev.ferrite.backend.bytebuffer;

import java.nio.ByteBuffer;

/**
 * A segment's chunk table for the bytebuffer backend: one little-endian slice per chunk, and, when
 * the chunks lie end to end in one extent, one slice over the whole segment.
 *
 * @param chunks one slice per chunk, in segment order
 * @param whole  a slice over the whole segment, or null if its chunks are not contiguous
 */
record ChunkBuffers(ByteBuffer[] chunks, ByteBuffer whole) {
}
