package dev.ferrite.kv;

/**
 * Byte layout of a section's undo record, at {@link SectionLayout#UNDO} of its data segment: the
 * old value of the one entry whose value the lock holder is changing in place. Little-endian.
 * Mirrored in {@code docs/FORMAT.md} ("Map, version 2").
 *
 * <pre>
 *   0        4         8          16          20       24                      24 + LENGTH
 *   +--------+---------+----------+-----------+--------+-----------------------+
 *   | CHECK  | LENGTH  | ENTRY    | CHECKSUM  | (zero) | the old value bytes   |
 *   +--------+---------+----------+-----------+--------+-----------------------+
 * </pre>
 *
 * <p>The record means something only while the section's stamp is odd (an in-place update under
 * way, or cut short by the death of its writer): readers then take the value of entry
 * {@code ENTRY} from here, and the next lock holder writes it back. {@code CHECK} is the low 32
 * bits of XXH64 (seed 0) of bytes [4, 24 + LENGTH): a record that fails it is never used.
 */
final class UndoLayout {

    /** int: the check of the record's other bytes. */
    static final int CHECK = 0;
    /** int: length of the saved value in bytes, at most {@link #MAX_VALUE}. */
    static final int LENGTH = 4;
    /** long: offset of the entry in the section's segment. */
    static final int ENTRY = 8;
    /** int: the entry's checksum before the update. */
    static final int CHECKSUM = 16;
    /** int: zero (reserved). */
    static final int RESERVED = 20;
    /** Offset of the saved value bytes. */
    static final int VALUE = 24;
    /** The longest value that is updated in place; longer ones are copied to new space. */
    static final int MAX_VALUE = SectionLayout.UNDO_SIZE - VALUE;

    private UndoLayout() {
    }

    /** @return the bytes the check covers, from {@link #LENGTH} */
    static long checkedLength(int valueLength) {
        return VALUE - LENGTH + (long) valueLength;
    }
}
