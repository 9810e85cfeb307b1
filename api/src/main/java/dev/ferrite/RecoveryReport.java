package dev.ferrite;

import java.util.List;

/**
 * What {@link ChunkPool#recover()} found and did: how many chunks were owned, free and leaked
 * (owned by no segment and missing from the free list), how many it gave back, and notes in plain
 * words. Immutable.
 *
 * @param ownedChunks    chunks held by live or named segments
 * @param freeChunks     chunks on the free list after recovery, up to capacity
 * @param leakedChunks   chunks found owned by nothing and not free
 * @param reclaimedChunks chunks given back to the free list
 * @param notes          what was found, one line each; empty when the pool was consistent
 */
public record RecoveryReport(long ownedChunks, long freeChunks, long leakedChunks, long reclaimedChunks,
                             List<String> notes) {

    /**
     * Copies the notes so the report stays immutable.
     *
     * @param ownedChunks     chunks held by live or named segments
     * @param freeChunks      chunks on the free list after recovery, up to capacity
     * @param leakedChunks    chunks found owned by nothing and not free
     * @param reclaimedChunks chunks given back to the free list
     * @param notes           what was found, one line each
     */
    public RecoveryReport {
        notes = List.copyOf(notes);
    }

    /** @return whether recovery found nothing to repair */
    public boolean wasClean() {
        return leakedChunks == 0 && notes.isEmpty();
    }
}
