package dev.ferrite.kv;

/**
 * Byte layout of a section's undo record ({@link SectionLayout#UNDO}): what the bytes of one bucket
 * (or one heap entry's value) were before the lock holder changes them in place. It means something
 * only while the bucket it names has the odd word that follows {@link #WORD}: readers then take the
 * entry from here, and a lock holder after a writer that died puts it back. Mirrored in
 * {@code docs/FORMAT.md} ("Map, version 4").
 *
 * <pre>
 *   0       4        8        16     24      32         36     40
 *   | CHECK | LENGTH | BUCKET | WORD | ENTRY | CHECKSUM | MODE | SAVED (LENGTH bytes) |
 * </pre>
 *
 * <p>{@link #MODE} says what SAVED holds: {@link #INLINE_BYTES}, the bucket's bytes from its
 * checksum on ({@code 4 + K + V}) of an inline entry; {@link #OUTSIDE_KEPT}, nothing (the bucket
 * held the outside entry at ENTRY, which stays as it is while the bucket changes);
 * {@link #OUTSIDE_VALUE}, the value bytes of the outside entry at ENTRY, whose value is being
 * changed where it lies (CHECKSUM: its checksum before).
 */
final class UndoLayout {

    /** int: low 32 bits of XXH64 (seed 0) of bytes [4, 40 + LENGTH). */
    static final int CHECK = 0;
    /** int: bytes saved, at most {@link #MAX_SAVED}. */
    static final int LENGTH = 4;
    /** long: offset of the bucket being changed. */
    static final int BUCKET = 8;
    /** long: the bucket's word before the change (settled: even). */
    static final int WORD = 16;
    /** long: offset of the outside entry the bucket held before the change; 0 for an inline one. */
    static final int ENTRY = 24;
    /** int: the outside entry's checksum before the change ({@link #OUTSIDE_VALUE}); else 0. */
    static final int CHECKSUM = 32;
    /** int: what SAVED holds. */
    static final int MODE = 36;
    /** Mode: SAVED holds an inline entry's bucket bytes from its checksum on. */
    static final int INLINE_BYTES = 0;
    /** Mode: the bucket held an outside entry, which stays as it is; SAVED is empty. */
    static final int OUTSIDE_KEPT = 1;
    /** Mode: SAVED holds the value of the outside entry, changed where it lies. */
    static final int OUTSIDE_VALUE = 2;
    /** Offset of the saved bytes. */
    static final int SAVED = 40;
    /** Most bytes the record saves. */
    static final int MAX_SAVED = SectionLayout.UNDO_SIZE - SAVED;
    /** The longest value of an outside entry that is changed in place; longer ones are copied to new space. */
    static final int MAX_VALUE = 232;

    private UndoLayout() {
    }

    /** @return the bytes the check covers, from {@link #LENGTH} */
    static long checkedLength(int savedLength) {
        return SAVED - LENGTH + (long) savedLength;
    }
}
