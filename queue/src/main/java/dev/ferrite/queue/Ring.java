package dev.ferrite.queue;

import dev.ferrite.CorruptFileException;
import dev.ferrite.Segment;

import java.util.zip.CRC32C;

import static dev.ferrite.queue.QueueLayout.*;

/**
 * A queue's segment with its geometry, read once from the header and checked: everything the
 * producers and the consumer compute from it stays inside the segment, so a corrupt file can
 * make them throw but never read or write outside the ring.
 */
final class Ring {

    /**
     * Up to this many bytes are zeroed with word stores rather than a fill: the one or two small
     * records a caught-up consumer frees per poll (on JDK 25, {@code unsafe}: 16 bytes in 1.7 ns
     * with stores against 4.0 with one {@code Segment.fill}; 256 bytes 24 against 6.7).
     */
    private static final int SMALL_ZERO = 48;

    final Segment segment;
    final String name;
    final long capacity;
    final long mask;
    final int maxMessage;
    /** Largest claim in bytes (a record or a batch of records): half the ring. */
    final long maxClaim;
    /** Largest message record in bytes, header included. */
    final int maxRecord;
    final boolean manyProducers;

    private Ring(Segment segment, String name, long capacity, int maxMessage, boolean manyProducers) {
        this.segment = segment;
        this.name = name;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxMessage = maxMessage;
        this.maxClaim = maxRecordBytes(capacity);
        this.maxRecord = RecordLayout.HEADER_BYTES + maxMessage;
        this.manyProducers = manyProducers;
    }

    /** Writes a new header into a segment whose ring bytes are zero, magic last. */
    static Ring format(Segment segment, String name, QueueSpec spec) {
        segment.fill(0, segmentSize(spec.capacity()), (byte) 0);
        segment.putInt(VERSION_OFFSET, VERSION);
        segment.putInt(FLAGS_OFFSET, spec.manyProducers() ? FLAG_MANY_PRODUCERS : 0);
        segment.putLong(CAPACITY_OFFSET, spec.capacity());
        segment.putInt(MAX_MESSAGE_OFFSET, spec.maxMessageLength());
        segment.putInt(ALIGNMENT_OFFSET, RecordLayout.ALIGNMENT);
        segment.putInt(RING_OFFSET_OFFSET, RING_OFFSET);
        segment.putInt(PRODUCER_SLOTS_OFFSET, PRODUCER_SLOTS);
        segment.putLong(CREATED_OFFSET, System.currentTimeMillis());
        // The CRC covers the magic, which goes last, as in pool files: an opener that sees the
        // magic sees a complete header.
        segment.putIntVolatile(GEOMETRY_CRC_OFFSET, geometryCrc(segment, MAGIC));
        segment.putLongVolatile(MAGIC_OFFSET, MAGIC);
        return attach(segment, name);
    }

    /**
     * Reads and checks a queue header.
     *
     * @throws CorruptFileException naming the field, its value and the limit it breaks
     */
    static Ring attach(Segment segment, String name) {
        if (segment.size() < RING_OFFSET + MIN_CAPACITY) {
            throw corrupt(name, "segment size " + segment.size() + " is below the smallest queue, "
                    + (RING_OFFSET + MIN_CAPACITY) + " bytes");
        }
        long magic = segment.getLong(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw corrupt(name, "magic 0x" + Long.toHexString(magic) + " is not 0x" + Long.toHexString(MAGIC)
                    + " (\"FERRITEQ\"): not a Ferrite queue");
        }
        int version = segment.getInt(VERSION_OFFSET);
        if (version != VERSION) {
            throw corrupt(name, "format version " + version + " is not the supported version " + VERSION);
        }
        int crc = segment.getIntVolatile(GEOMETRY_CRC_OFFSET);
        int expected = geometryCrc(segment, magic);
        if (crc != expected) {
            throw corrupt(name, "header CRC-32C 0x" + Integer.toHexString(crc) + " does not match its bytes (0x"
                    + Integer.toHexString(expected) + ")");
        }
        long capacity = segment.getLong(CAPACITY_OFFSET);
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Long.bitCount(capacity) != 1
                || segmentSize(capacity) > segment.size()) {
            throw corrupt(name, "ring capacity " + capacity + " must be a power of two from " + MIN_CAPACITY
                    + " to " + Math.min(MAX_CAPACITY, segment.size() - RING_OFFSET));
        }
        int maxMessage = segment.getInt(MAX_MESSAGE_OFFSET);
        if (maxMessage < 1 || maxMessage > maxRecordBytes(capacity) - RecordLayout.HEADER_BYTES) {
            throw corrupt(name, "max message length " + maxMessage + " must be from 1 to "
                    + (maxRecordBytes(capacity) - RecordLayout.HEADER_BYTES));
        }
        checkConstant(segment, name, ALIGNMENT_OFFSET, RecordLayout.ALIGNMENT, "record alignment");
        checkConstant(segment, name, RING_OFFSET_OFFSET, RING_OFFSET, "ring offset");
        checkConstant(segment, name, PRODUCER_SLOTS_OFFSET, PRODUCER_SLOTS, "producer slot count");
        int flags = segment.getInt(FLAGS_OFFSET);
        if ((flags & ~FLAG_MANY_PRODUCERS) != 0) {
            throw corrupt(name, "flags 0x" + Integer.toHexString(flags) + " has unknown bits (known: 0x1)");
        }
        Ring ring = new Ring(segment, name, capacity, maxMessage, flags != 0);
        ring.checkPositions();
        return ring;
    }

    private static void checkConstant(Segment segment, String name, int offset, int expected, String what) {
        int value = segment.getInt(offset);
        if (value != expected) {
            throw corrupt(name, what + " " + value + " is not " + expected);
        }
    }

    /** CRC-32C of the geometry bytes, with {@code magic} in the magic's place. */
    private static int geometryCrc(Segment segment, long magic) {
        CRC32C crc = new CRC32C();
        byte[] bytes = new byte[GEOMETRY_BYTES];
        segment.copyTo(0, bytes, 0, GEOMETRY_BYTES);
        java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(MAGIC_OFFSET, magic);
        crc.update(bytes);
        return (int) crc.getValue();
    }

    /**
     * Checks that the positions describe a ring: head, freed position and tail non-negative and
     * aligned, and the tail at most the capacity from the freed position either way. Producers'
     * room ends a capacity past the freed position, so the tail never passes it by more; and
     * the freed position, at most the head between polls, may run ahead of a single producer's
     * stored tail by less than the tail lag (the producer stores its tail after the header that
     * publishes a record, and the consumer may consume the record in between, or the producer
     * may die there). The head is not compared: the consumer stores it after the freed
     * position, and checks the two when it opens.
     */
    void checkPositions() {
        // A running queue moves while it is read: the pair counts only if FREED did not move
        // while TAIL was read. Both only grow, so a pair read across a move could look too far
        // apart; one that never holds still is checked field by field only.
        long freed = freed();
        long tail = tail();
        boolean still = false;
        for (int i = 0; i < STABLE_READS && !still; i++) {
            long before = freed;
            tail = tail();
            freed = freed();
            still = freed == before;
        }
        long head = head();
        if (head < 0 || freed < 0 || tail < 0 || (still && Math.abs(tail - freed) > capacity)
                || ((head | freed | tail) & (RecordLayout.ALIGNMENT - 1)) != 0) {
            throw corrupt(name, "head " + head + ", freed position " + freed + " and tail " + tail
                    + " must be non-negative and aligned to " + RecordLayout.ALIGNMENT
                    + ", the tail at most the capacity " + capacity + " from the freed position");
        }
    }

    /** How many times {@link #checkPositions} reads the pair before it gives up on a still one. */
    private static final int STABLE_READS = 10_000;

    static CorruptFileException corrupt(String name, String what) {
        return new CorruptFileException("queue " + name + ": " + what);
    }

    long head() {
        return segment.getLongVolatile(HEAD_OFFSET);
    }

    long tail() {
        return segment.getLongVolatile(TAIL_OFFSET);
    }

    /** @return the freed position: producers' room ends a capacity past it */
    long freed() {
        return segment.getLongVolatile(FREED_OFFSET);
    }

    /**
     * Follows record headers from {@code from} while they are published or in progress, not past
     * {@code limit}: a single producer's true tail, which TAIL may lag (see
     * {@link QueueLayout#tailLag}). Never throws: a header that cannot begin a record (damage, or
     * bytes overwritten while they were read) ends the walk there.
     *
     * @return the position past the last record found, {@code from} if none
     */
    long claimedEnd(long from, long limit) {
        long p = from;
        while (p < limit) {
            long h = segment.getLongVolatile(offsetOf(p));
            int length = RecordLayout.length(h);
            long bytes = length > 0 ? length : -(long) length;
            if (h == 0 || bytes < RecordLayout.HEADER_BYTES || bytes > maxClaim
                    || (p & mask) + RecordLayout.aligned((int) bytes) > capacity) {
                break;
            }
            p += RecordLayout.aligned((int) bytes);
        }
        return p;
    }

    /** @return the segment offset of the record at a queue position */
    long offsetOf(long position) {
        return RING_OFFSET + (position & mask);
    }

    /** Zeroes the ring bytes of positions [from, to), which may wrap; {@code to - from <= capacity}. */
    void zero(long from, long to) {
        long length = to - from;
        if (length <= 0) {
            return;
        }
        if (length > capacity) {
            // Only positions read from a file another process damaged can ask for this.
            throw corrupt(name, "cannot free " + length + " bytes from position " + from
                    + ": more than the ring's capacity " + capacity + " (head or tail damaged)");
        }
        if (length <= SMALL_ZERO) {
            // A small record or two: word stores beat a fill call (positions are 8-aligned).
            for (long p = from; p < to; p += RecordLayout.ALIGNMENT) {
                segment.putLong(offsetOf(p), 0L);
            }
            return;
        }
        long index = from & mask;
        long first = Math.min(length, capacity - index);
        segment.fill(RING_OFFSET + index, first, (byte) 0);
        if (first < length) {
            segment.fill(RING_OFFSET, length - first, (byte) 0);
        }
    }

    /**
     * Checks a published header before anything is read through it. Runs once per record a
     * consumer reads: {@link JitHints} names it, so that C2 inlines it into {@code poll} however
     * many empty polls the profile holds (JitHintsTest keeps the name in step).
     *
     * @param header   the header word at {@code position}, length positive
     * @param position its queue position
     * @return the aligned record length
     * @throws CorruptFileException if the record would leave the ring or break the limits
     */
    int checkPublished(long header, long position) {
        // Small enough to inline into the consumer's loop: the message is built out of line.
        int length = RecordLayout.length(header);
        int type = RecordLayout.type(header);
        long end = (position & mask) + RecordLayout.aligned(length);
        if (type >= 0 ? length > RecordLayout.HEADER_BYTES && length <= maxRecord
                : type == RecordLayout.PADDING_TYPE && length >= RecordLayout.HEADER_BYTES && length <= maxClaim) {
            if (end <= capacity) {
                return RecordLayout.aligned(length);
            }
        }
        throw badRecord(length, type, position);
    }

    private CorruptFileException badRecord(int length, int type, long position) {
        long index = position & mask;
        int min = type == RecordLayout.PADDING_TYPE ? RecordLayout.HEADER_BYTES : RecordLayout.HEADER_BYTES + 1;
        long max = type == RecordLayout.PADDING_TYPE ? maxClaim : maxRecord;
        return corrupt(name, "record at position " + position + " has length " + length + " and type " + type
                + "; a record must be " + min + " to " + max + " bytes long, end inside the ring (capacity "
                + capacity + ", it starts at " + index + ") and have a type >= " + RecordLayout.PADDING_TYPE);
    }

    /**
     * Checks an in-progress header's reserved length.
     *
     * @return the aligned number of reserved bytes
     */
    int checkInProgress(long header, long position) {
        long reserved = -(long) RecordLayout.length(header);
        long index = position & mask;
        if (reserved < RecordLayout.HEADER_BYTES || reserved > maxClaim
                || index + RecordLayout.aligned((int) reserved) > capacity) {
            throw corrupt(name, "in-progress record at position " + position + " reserves " + reserved
                    + " bytes; a claim must be 8 to " + maxClaim + " bytes and end inside the ring (capacity "
                    + capacity + ", it starts at " + index + ")");
        }
        return RecordLayout.aligned((int) reserved);
    }

    @Override
    public String toString() {
        return "queue " + name;
    }
}
