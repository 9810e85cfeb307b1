package dev.ferrite.kv;

/**
 * Byte layout of a bucket of a section's table ({@link SectionLayout}), {@code BUCKET_SIZE} bytes.
 * Little-endian. Mirrored in {@code docs/FORMAT.md} ("Map, version 4").
 *
 * <pre>
 *   0                                                        8          12                  12 + K             BUCKET_SIZE
 *   | word: version(24) tag(16) vlen(8) klen(8) reach(6) kind(2) | checksum | key bytes (K)      | value bytes (V) | zero |   inline
 *   | word                                                   | offset of the entry in the heap (8)              | zero |   outside
 * </pre>
 *
 * <p>The word says what the bucket holds ({@link #kind}): nothing (the word is 0; a probe ends
 * there), a tombstone (a removed entry; probing goes on), an entry inline (key and value in the
 * bucket: {@code 12 + K + V <= BUCKET_SIZE}) or an entry outside (in the heap, {@link EntryLayout}).
 * Its version is even while the bucket's bytes are settled and odd while the lock holder changes
 * them (the undo record, {@link UndoLayout}, then holds what they were); each change of the bucket
 * adds 2. A reader reads the word, the bytes, then the word again: the same even word means the
 * bytes it read were whole.
 *
 * <p>The word's reach belongs to the bucket as the home of keys, not to the entry it holds: every
 * entry whose key's home is this bucket lies at most {@code reach} buckets after it (wrapping), or
 * anywhere up to the next empty bucket if the reach is {@value #REACH_UNBOUNDED}. So a probe reads
 * the home bucket's word and stops after its reach. A writer raises a home's reach before it
 * publishes an entry beyond it, every other change of a word keeps it, and only a rebuild (a new
 * table) lowers it. Only maps of version 4 keep reaches; in a version-3 map the bits are 0 and a
 * probe goes on to an empty bucket.
 */
final class BucketLayout {

    /** long: the bucket's word. */
    static final int WORD = 0;
    /** int, inline: the entry's checksum ({@link #checksum}). */
    static final int CHECKSUM = 8;
    /** Offset of an inline entry's key bytes; its value bytes follow them. */
    static final int KEY = 12;
    /** long, outside: offset of the entry in the section's heap. */
    static final int ENTRY = 8;

    /** Kind: no entry; the word is 0. */
    static final int EMPTY = 0;
    /** Kind: a removed entry. */
    static final int TOMBSTONE = 1;
    /** Kind: key and value in the bucket. */
    static final int INLINE = 2;
    /** Kind: the entry in the heap. */
    static final int OUTSIDE = 3;

    /** The word's lowest version bit: set while the bucket is being changed. */
    static final long ODD = 1L << 40;
    /** The step of the version between two settled states of a bucket. */
    static final long VERSION_STEP = 2L << 40;
    /** The word's version bits. */
    static final long VERSION_MASK = -1L << 40;

    /** The lowest bit of the word's reach. */
    static final int REACH_SHIFT = 2;
    /** The word's reach bits. */
    static final long REACH_BITS = 0x3FL << REACH_SHIFT;
    /**
     * The reach that bounds nothing: a probe from that home goes on to an empty bucket. Below
     * {@link SectionLayout#MIN_BUCKETS}, so a bounded probe ends within the table whatever a word holds.
     */
    static final int REACH_UNBOUNDED = 63;

    /** Smallest bucket. */
    static final int MIN_SIZE = 16;
    /** Largest bucket. */
    static final int MAX_SIZE = 256;

    private BucketLayout() {
    }

    /** @return the kind of a bucket word */
    static int kind(long word) {
        return (int) word & 3;
    }

    /** @return an inline entry's key length */
    static int keyLength(long word) {
        return (int) (word >>> 8) & 0xFF;
    }

    /** @return an inline entry's value length */
    static int valueLength(long word) {
        return (int) (word >>> 16) & 0xFF;
    }

    /** The word's tag bits ({@code tag << 24}). */
    static final long TAG_BITS = 0xFFFFL << 24;

    /** @return the tag of a bucket word: 16 bits of its key's hash */
    static long wordTag(long word) {
        return (word >>> 24) & 0xFFFF;
    }

    /** @return the 16-bit tag of a key hash */
    static long tag(long hash) {
        return (hash >>> 32) & 0xFFFF;
    }

    /** @return a key hash's tag where a word holds it (the bits of {@link #TAG_BITS}) */
    static long tagBits(long hash) {
        return tag(hash) << 24;
    }

    /** @return the word's bits a key is compared on first: kind, key length and tag (mask with {@link #INLINE_MATCH} or {@link #OUTSIDE_MATCH}) */
    static long matchBits(long hash, int kind, int keyLength) {
        return tagBits(hash) | (long) keyLength << 8 | kind;
    }

    /** @return a word's reach: how many buckets after it the entries whose home it is may lie, {@link #REACH_UNBOUNDED} for any */
    static int reach(long word) {
        return (int) (word >>> REACH_SHIFT) & REACH_UNBOUNDED;
    }

    /**
     * @param distance buckets from a home to an entry of its keys, 0 or more
     * @return the word with its reach raised to cover that distance ({@link #REACH_UNBOUNDED} if it is that far or more)
     */
    static long reaching(long word, long distance) {
        long reach = Math.min(distance, REACH_UNBOUNDED);
        return reach <= reach(word) ? word : (word & ~REACH_BITS) | reach << REACH_SHIFT;
    }

    /** The word's bits an inline entry's {@link #matchBits} are compared on: kind, key length and tag. */
    static final long INLINE_MATCH = 0xFF_FF00_FF03L;
    /** The word's bits an outside entry's {@link #matchBits} are compared on: kind and tag. */
    static final long OUTSIDE_MATCH = 0xFF_FF00_0003L;

    /** @return a settled word holding an entry, reach 0; {@code version} from a previous word of the bucket (its version bits) */
    static long word(long version, long hash, int kind, int keyLength, int valueLength) {
        return (version & VERSION_MASK) | tagBits(hash) | (long) valueLength << 16 | (long) keyLength << 8 | kind;
    }

    /** @return the version bits a bucket settles with after its change from {@code word} (settled or odd): the settled version + 2 */
    static long nextVersion(long word) {
        return ((word & VERSION_MASK) | ODD) + ODD;
    }

    /** @return the settled word after {@code word}'s next change, with new contents and its reach */
    static long next(long word, long hash, int kind, int keyLength, int valueLength) {
        return BucketLayout.word(nextVersion(word), hash, kind, keyLength, valueLength) | word & REACH_BITS;
    }

    /** @return the tombstone that follows {@code word}, with its reach */
    static long tombstoneAfter(long word) {
        return nextVersion(word) | word & REACH_BITS | TOMBSTONE;
    }

    /** @return whether key and value of those lengths fit a bucket of that size inline */
    static boolean fitsInline(int bucketSize, long keyLength, long valueLength) {
        return KEY + keyLength + valueLength <= bucketSize;
    }

    /**
     * @param exact whether every entry has those sizes (both codecs of a fixed size), else they are averages
     * @return the bucket size a new map gets for entries of those sizes: an exact inline entry
     *         rounded up to a multiple of 16 (as a rebuild measures them), an average one rounded up
     *         to a cache line (64 to 256 bytes: room for entries longer than the average); or
     *         {@link #MIN_SIZE} (every entry outside) if it does not fit 256
     */
    static int sizeFor(int key, int value, boolean exact) {
        long need = KEY + (long) key + value;
        int step = exact ? 16 : 64;
        return need > MAX_SIZE ? MIN_SIZE : (int) Math.max(step, (need + step - 1) & -step);
    }

    /** @return whether a bucket size is one a section may have */
    static boolean validSize(int size) {
        return size >= MIN_SIZE && size <= MAX_SIZE && size % 16 == 0;
    }

    /**
     * @param bytesHash XXH64 (seed 0) of the key bytes then the value bytes
     * @return an inline entry's checksum: the hash's low 32 bits mixed with the two lengths
     */
    static int checksum(long bytesHash, int keyLength, int valueLength) {
        return (int) bytesHash ^ (keyLength | valueLength << 8) * 0x9E3779B1;
    }
}
