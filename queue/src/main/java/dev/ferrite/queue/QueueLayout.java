package dev.ferrite.queue;

/**
 * Byte layout of a queue: a header region, then the ring. Offsets are from the start of the
 * queue's segment; every value is little-endian. {@code docs/FORMAT.md} ("Queue") describes the
 * same bytes for readers in other languages.
 *
 * <pre>
 *   0 +--------------------------------------------------------------+
 *     | magic "FERRITEQ" | version | flags | ring capacity | max msg |  geometry, CRC-32C protected
 *     | alignment | ring offset | producer slots | created | ... crc |
 * 128 +--------------------------------------------------------------+
 *     | head: bytes ever consumed | head pending: being zeroed to    |  one 128-byte line each:
 *     | freed: zeroed up to (at most the head)                       |
 * 256 | head cache: a recent freed position, for producers           |  no line is written by
 * 384 | tail: bytes ever claimed (written by producers)              |  both sides
 * 512 | tail cache: a recent tail, for the consumer                  |
 * 640 | consumer slot: identity | heartbeat | generation            |
 * 768 | producer slot 0 .. 63, 64 bytes each: identity | heartbeat |  |
 *     |   generation | liveness record | claim                         |
 *8192 +--------------------------------------------------------------+
 *     | ring: capacity bytes of records (see {@link RecordLayout})    |
 *     +--------------------------------------------------------------+
 * </pre>
 *
 * <p>Positions (head, tail) count bytes since the queue was created and never wrap; a record's
 * place in the ring is {@code position & (capacity - 1)}.
 */
public final class QueueLayout {

    /** "FERRITEQ" read as a little-endian long. */
    public static final long MAGIC = 0x5145544952524546L;
    /** Format version this code writes and reads. */
    public static final int VERSION = 5;

    /** Offset of the magic (long). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the format version (int). */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the flags (int): bit 0 set when many producers may write. */
    public static final int FLAGS_OFFSET = 12;
    /** Offset of the ring capacity in bytes (long, a power of two). */
    public static final int CAPACITY_OFFSET = 16;
    /** Offset of the maximum message length in bytes (int). */
    public static final int MAX_MESSAGE_OFFSET = 24;
    /** Offset of the record alignment in bytes (int, always {@link RecordLayout#ALIGNMENT}). */
    public static final int ALIGNMENT_OFFSET = 28;
    /** Offset of the ring's start within the segment (int, always {@link #RING_OFFSET}). */
    public static final int RING_OFFSET_OFFSET = 32;
    /** Offset of the number of producer slots (int, always {@link #PRODUCER_SLOTS}). */
    public static final int PRODUCER_SLOTS_OFFSET = 36;
    /** Offset of the creation time in milliseconds since the epoch (long). */
    public static final int CREATED_OFFSET = 40;
    /** Offset of the CRC-32C (int) of the bytes before it. */
    public static final int GEOMETRY_CRC_OFFSET = 60;
    /** Bytes covered by the geometry CRC. */
    public static final int GEOMETRY_BYTES = 60;

    /** Flag bit: producers claim space by CAS on the tail (many-to-one). */
    public static final int FLAG_MANY_PRODUCERS = 1;

    /** Offset of the head position (long), written only by the consumer. */
    public static final int HEAD_OFFSET = 128;
    /**
     * Offset of the pending head (long), written only by the consumer: the position it is zeroing
     * the ring up to (every consumed byte, but with one producer only the first
     * {@link #CONSUMER_ZEROES} bytes of each {@link #LONG_RECORD long} record) before it publishes
     * that position as the head. A consumer that finds it ahead of the head knows its predecessor
     * died while zeroing and zeroes every byte between.
     */
    public static final int HEAD_PENDING_OFFSET = 136;
    /**
     * Offset of the freed position (long), written only by the consumer: every ring byte before it
     * that the consumer zeroes (see {@link #HEAD_PENDING_OFFSET}) is zero. Between polls at most
     * the head (the consumer stores it just before the head), with one producer up to
     * {@link #CONSUMER_LAG} bytes behind it. Producers measure their room from it, never from the
     * head.
     */
    public static final int FREED_OFFSET = 144;
    /** Offset of the head cache (long), written by producers when they re-read the freed position. */
    public static final int HEAD_CACHE_OFFSET = 256;
    /**
     * Offset of the tail position (long), written only by producers. With one producer it is the
     * tail as last stored, less than {@link #tailLag(long)} bytes behind the true one (see there).
     */
    public static final int TAIL_OFFSET = 384;
    /** Offset of the tail cache (long), written by the consumer when it re-reads the tail. */
    public static final int TAIL_CACHE_OFFSET = 512;

    /** Offset of the consumer's endpoint slot. */
    public static final int CONSUMER_SLOT_OFFSET = 640;
    /** Offset of producer slot 0; slot {@code i} is at {@code PRODUCER_SLOTS_START + i * SLOT_BYTES}. */
    public static final int PRODUCER_SLOTS_START = 768;
    /** Number of producer slots: at most this many producers are open at once. */
    public static final int PRODUCER_SLOTS = 64;
    /** Bytes per endpoint slot. */
    public static final int SLOT_BYTES = 64;

    /**
     * Within a slot: the owner's identity word ({@code startTicks << 32 | pid}, see
     * {@code Liveness}), 0 when free (long).
     */
    public static final int SLOT_IDENTITY = 0;
    /**
     * Within a slot: the owner's last heartbeat, milliseconds since the epoch (long), for people
     * reading the file; liveness is judged by the monotonic heartbeat of the record at
     * {@link #SLOT_LIVENESS}.
     */
    public static final int SLOT_HEARTBEAT = 8;
    /** Within a slot: how many times the slot has been taken (long); stamped into in-progress records. */
    public static final int SLOT_GENERATION = 16;
    /** Within a slot: the owner's liveness record ({@code LivenessLayout}, 32 bytes). */
    public static final int SLOT_LIVENESS = dev.ferrite.internal.pool.LivenessLayout.SLOT_OFFSET;
    /**
     * Within a producer slot of a many-producer queue: the position the holder last tried to
     * claim from (long), stored before its CAS on the tail and kept until its next claim; -1 when
     * it holds no claim attempt. Unused (0) with one producer and in the consumer slot.
     */
    public static final int SLOT_CLAIM = 56;

    /** Where the ring starts in the segment. */
    public static final int RING_OFFSET = 8192;

    /** Smallest ring capacity in bytes. */
    public static final long MIN_CAPACITY = 4096;
    /** Largest ring capacity in bytes. */
    public static final long MAX_CAPACITY = 1L << 30;

    /**
     * Records (padding too) longer than this many bytes, rounded up to 8, are <em>long</em>: of a
     * long record the consumer of a one-producer queue zeroes only the first
     * {@link #CONSUMER_ZEROES} bytes once it has consumed it, and the rest stays in the ring (its
     * producer makes sure no header is read there, see {@code OneToOneProducer}); a shorter record
     * it zeroes whole.
     */
    public static final int LONG_RECORD = 256;
    /** Bytes from the start of a consumed long record ({@link #LONG_RECORD}) that its consumer zeroes. */
    public static final int CONSUMER_ZEROES = 64;
    /**
     * With one producer, the most consumed bytes a consumer leaves unzeroed before the head until
     * its next poll (the freed position lags the head by at most this): the records in the cache
     * line the producer is still writing into, which the consumer would otherwise write, taking
     * the line from the producer in the middle of its next record.
     */
    public static final int CONSUMER_LAG = 256;

    /** The most ring bytes a single producer's stored TAIL lags its true tail by, in large rings. */
    public static final long MAX_TAIL_LAG = 4096;

    private QueueLayout() {
    }

    /**
     * How far a single producer lets TAIL lag: it stores TAIL (ordered, after the header that
     * publishes the record) once its tail is this many bytes or more past the stored value, when
     * it finds the ring full and when it closes. The consumer never needs TAIL (a header of 0 at
     * HEAD means empty), so storing it once per {@value #MAX_TAIL_LAG} ring bytes instead of once
     * per record keeps the store off the producer's hot path; the true tail is found by following
     * headers from {@code max(TAIL, HEAD)}. An eighth of small rings, so that HEAD and TAIL stay
     * far less than the capacity apart.
     *
     * @param capacity the ring's capacity in bytes, a power of two from {@link #MIN_CAPACITY}
     * @return the lag in bytes: {@code min(MAX_TAIL_LAG, capacity / 8)}
     */
    public static long tailLag(long capacity) {
        return Math.min(MAX_TAIL_LAG, capacity >>> 3);
    }

    /**
     * @param slot producer slot index, 0 to {@link #PRODUCER_SLOTS} - 1
     * @return the slot's offset in the segment
     */
    public static int producerSlot(int slot) {
        return PRODUCER_SLOTS_START + slot * SLOT_BYTES;
    }

    /**
     * @param capacity ring capacity in bytes
     * @return the segment size a queue of that capacity needs
     */
    public static long segmentSize(long capacity) {
        return RING_OFFSET + capacity;
    }

    /**
     * @param capacity ring capacity in bytes
     * @return the largest record a ring of that capacity takes, so that any record fits once the
     *         ring is empty wherever the head stands: half the ring
     */
    public static long maxRecordBytes(long capacity) {
        return capacity / 2;
    }
}
