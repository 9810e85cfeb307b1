package dev.ferrite.internal;

import java.util.Arrays;

/**
 * The chunk ids that are obtained but owned by no segment: a LIFO stack that grows with the
 * obtained extents, so its heap cost is 4 bytes per obtained chunk, not per chunk of capacity.
 * Not thread-safe: the pool guards it.
 */
final class FreeList {

    private int[] ids = new int[64];
    private int size;

    int size() {
        return size;
    }

    /** Pushes ids {@code [first, first + count)} so that they pop in ascending order. */
    void pushRange(int first, int count) {
        ensure(size + count);
        for (int i = count - 1; i >= 0; i--) {
            ids[size++] = first + i;
        }
    }

    /** Pushes ids so that they pop in the order given: the chunks of a freed segment, reused in order. */
    void pushAll(int[] chunks) {
        ensure(size + chunks.length);
        for (int i = chunks.length - 1; i >= 0; i--) {
            ids[size++] = chunks[i];
        }
    }

    void push(int id) {
        ensure(size + 1);
        ids[size++] = id;
    }

    /** Pops {@code count} ids; the caller has checked that {@code count <= size()}. */
    int[] pop(int count) {
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = ids[--size];
        }
        return out;
    }

    /** @return a copy of the ids, for consistency checks */
    int[] snapshot() {
        return Arrays.copyOf(ids, size);
    }

    /** Takes over the content of another list, which must not be used afterwards. */
    void replaceWith(FreeList other) {
        ids = other.ids;
        size = other.size;
    }

    private void ensure(int needed) {
        if (needed > ids.length) {
            ids = Arrays.copyOf(ids, Math.max(needed, ids.length * 2));
        }
    }
}
