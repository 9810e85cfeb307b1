package dev.ferrite.internal.pool;

import static dev.ferrite.internal.pool.ChunkTableLayout.NIL;
import static dev.ferrite.internal.pool.ChunkTableLayout.OWNER_FREE;
import static dev.ferrite.internal.pool.DirectoryLayout.STATE_DELETING;
import static dev.ferrite.internal.pool.DirectoryLayout.STATE_EMPTY;
import static dev.ferrite.internal.pool.DirectoryLayout.STATE_LIVE;
import static dev.ferrite.internal.pool.DirectoryLayout.STATE_RESERVED;
import static dev.ferrite.internal.pool.PoolHeaderLayout.FREE_HEAD_OFFSET;
import static dev.ferrite.internal.pool.PoolHeaderLayout.MAX_OWNERS;

import dev.ferrite.RecoveryReport;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Checks a pool's bookkeeping and repairs what a crash can leave, while every other process keeps
 * running: the caller holds the meta lock and has every allocator held out (so the free stack and
 * the owner codes are still), but segments stay readable and writable throughout.
 *
 * <p>What a crash can leave, and what is done with it: chunks owned by a dead process (its unnamed
 * segments, or chunks it was moving) go back to the free list; a free chunk on no stack (a
 * process died between taking it off or putting it on) goes back; a directory slot left RESERVED
 * (a named segment half made or half deleted) has its chunks given back and is emptied; dead
 * processes' bits leave the open masks, and a deleted segment nobody holds any more is freed; the
 * used-chunk counter is recounted; dead processes' owner slots are freed. What a crash cannot
 * leave (an id out of range, a cycle, a chunk in two places, a bad CRC) is corruption:
 * {@link dev.ferrite.CorruptFileException} naming the field and the value, and nothing is changed.
 */
final class PoolRecovery {

    private final MetaRegion meta;
    private final PoolLayout layout;
    private final OwnerTable owners;
    private final ChunkLedger ledger;
    private final Directory directory;
    private final int mySlot;
    private final String where;

    PoolRecovery(MetaRegion meta, PoolLayout layout, OwnerTable owners, ChunkLedger ledger, Directory directory,
                 int mySlot, String where) {
        this.meta = meta;
        this.layout = layout;
        this.owners = owners;
        this.ledger = ledger;
        this.directory = directory;
        this.mySlot = mySlot;
        this.where = where;
    }

    /**
     * Runs the check and, unless it finds corruption, the repair.
     *
     * @param lockTakenOver whether the meta lock was taken over from a dead process
     * @param slotInherited whether this process's owner slot was taken over from a dead process,
     *                      so that whatever the slot still holds is the dead process's
     * @return what was found and done
     */
    RecoveryReport run(boolean lockTakenOver, boolean slotInherited) {
        List<String> notes = new ArrayList<>();
        if (lockTakenOver) {
            notes.add("the pool's meta lock was taken over from a process that died holding it");
        }
        int obtained = ledger.obtainedChunks();
        long total = layout.geometry().totalChunks;

        // 1. Which owner slots hold live processes.
        boolean[] live = new boolean[MAX_OWNERS];
        long[] deadWords = new long[MAX_OWNERS];
        for (int s = 0; s < MAX_OWNERS; s++) {
            long word = owners.word(s);
            if (word == 0) {
                continue;
            }
            if (s == mySlot) {
                live[s] = !slotInherited;
                if (slotInherited) {
                    notes.add("owner slot " + s + " was taken over from a dead process (every slot was taken)");
                }
            } else if (owners.runs(s, word)) {
                live[s] = true;
            } else if (owners.word(s) != word) {
                // Given back since it was read (by the dead process's last act, or a recovery of
                // another process): nothing of it is left to recover here.
                continue;
            } else {
                deadWords[s] = word;
                notes.add(Liveness.describe(word) + " (owner slot " + s + ") died with the pool open");
            }
        }
        long liveMask = 0;
        for (int s = 0; s < MAX_OWNERS; s++) {
            if (live[s]) {
                liveMask |= 1L << s;
            }
        }

        // 2. The directory: which slots keep their chunks, which are to be torn down.
        int slots = directory.slots();
        boolean[] keep = new boolean[slots];
        boolean[] teardown = new boolean[slots];
        BitSet inChain = new BitSet(obtained);
        for (int d = 0; d < slots; d++) {
            int state = directory.state(d);
            switch (state) {
                case STATE_EMPTY:
                    break;
                case STATE_RESERVED:
                    teardown[d] = true;
                    notes.add("named segment '" + safeName(d) + "' (directory slot " + d
                            + ") was being made or deleted when its process died; its chunks go back");
                    break;
                case STATE_LIVE:
                case STATE_DELETING:
                    directory.check(d, obtained, layout.geometry().chunkSize);
                    walkChain(d, obtained, inChain);
                    long mask = directory.openMask(d);
                    long stillOpen = mask & liveMask;
                    if (stillOpen != mask) {
                        notes.add("named segment '" + directory.name(d) + "': dead processes' handles dropped");
                    }
                    if (state == STATE_DELETING && stillOpen == 0) {
                        teardown[d] = true;
                        notes.add("deleted segment '" + directory.name(d)
                                + "' was held only by dead processes; its chunks go back");
                    } else {
                        keep[d] = true;
                    }
                    break;
                default:
                    throw PoolLayout.corrupt(where, "directory slot " + d + " state", state, "0 to 3");
            }
        }

        // 3. Every obtained chunk's owner: kept, or to be reclaimed.
        BitSet reclaim = new BitSet(obtained);
        BitSet free = new BitSet(obtained);
        long deadProcessChunks = 0;
        long orphanChunks = 0;
        for (int c = 0; c < obtained; c++) {
            int owner = meta.owner(c);
            if (owner == OWNER_FREE) {
                free.set(c);
            } else if (owner > 0) {
                if (owner > MAX_OWNERS) {
                    throw PoolLayout.corrupt(where, "chunk " + c + " owner", owner, "0, an owner slot in [1, "
                            + MAX_OWNERS + "], or a directory slot in [-" + slots + ", -1]");
                }
                if (!live[owner - 1]) {
                    reclaim.set(c);
                    deadProcessChunks++;
                }
            } else {
                int d = -owner - 1;
                if (d >= slots) {
                    throw PoolLayout.corrupt(where, "chunk " + c + " owner", owner, "0, an owner slot in [1, "
                            + MAX_OWNERS + "], or a directory slot in [-" + slots + ", -1]");
                }
                if (!keep[d] || !inChain.get(c)) {
                    reclaim.set(c);
                    orphanChunks++;
                }
            }
        }

        // 4. The free stack: every chunk on it in range, free, and met once.
        BitSet reachable = new BitSet(obtained);
        int id = (int) meta.getLongVolatile(FREE_HEAD_OFFSET);
        int steps = 0;
        while (id != NIL) {
            if (id < 0 || id >= obtained) {
                throw PoolLayout.corrupt(where, "free stack link after " + steps + " chunks", id, "-1 or a chunk in [0, "
                        + obtained + ")");
            }
            if (reachable.get(id)) {
                throw PoolLayout.corrupt(where, "free stack", "a cycle through chunk " + id, "a list that ends with -1");
            }
            if (!free.get(id)) {
                throw PoolLayout.corrupt(where, "owner of chunk " + id + " on the free stack", meta.owner(id),
                        OWNER_FREE + " (free)");
            }
            reachable.set(id);
            steps++;
            id = meta.next(id);
        }
        BitSet lost = (BitSet) free.clone();
        lost.andNot(reachable);

        // 5. Repair: give back reclaimed and lost chunks in one chain, empty torn-down slots.
        BitSet back = (BitSet) reclaim.clone();
        back.or(lost);
        if (deadProcessChunks > 0) {
            notes.add(deadProcessChunks + " chunks held by dead processes go back to the free list");
        }
        if (orphanChunks > 0) {
            notes.add(orphanChunks + " chunks of unfinished or deleted named segments go back to the free list");
        }
        if (!lost.isEmpty()) {
            notes.add(lost.cardinality() + " free chunks were on no free list (a process died moving them); put back");
        }
        int first = NIL;
        int prev = NIL;
        for (int c = back.nextSetBit(0); c >= 0; c = back.nextSetBit(c + 1)) {
            meta.setOwner(c, OWNER_FREE);
            if (prev == NIL) {
                first = c;
            } else {
                meta.setNext(prev, c);
            }
            prev = c;
        }
        if (first != NIL) {
            meta.setNext(prev, NIL);
            ledger.pushChain(first, prev);
        }
        for (int d = 0; d < slots; d++) {
            if (teardown[d]) {
                directory.empty(d);
            } else if (keep[d]) {
                long mask = directory.openMask(d);
                if ((mask & liveMask) != mask) {
                    directory.setOpenMask(d, mask & liveMask);
                }
            }
        }

        // 6. Recount, and free the dead processes' owner slots.
        long owned = obtained - free.cardinality() - reclaim.cardinality();
        long counted = ledger.used();
        if (counted != owned) {
            notes.add("used-chunk counter said " + counted + "; recounted " + owned);
            ledger.setUsed(owned);
        }
        for (int s = 0; s < MAX_OWNERS; s++) {
            if (deadWords[s] != 0) {
                owners.clearDead(s, deadWords[s]);
            }
        }
        long leaked = back.cardinality();
        return new RecoveryReport(owned, total - owned, leaked, leaked, notes);
    }

    private void walkChain(int d, int obtained, BitSet inChain) {
        int count = directory.chunkCount(d);
        int owner = ChunkTableLayout.directoryOwner(d);
        int c = directory.firstChunk(d);
        for (int i = 0; i < count; i++) {
            if (c < 0 || c >= obtained) {
                throw PoolLayout.corrupt(where, "chain of directory slot " + d + " at link " + i, c, "a chunk in [0, "
                        + obtained + ")");
            }
            if (inChain.get(c)) {
                throw PoolLayout.corrupt(where, "chain of directory slot " + d, "chunk " + c + " twice (a cycle, or "
                        + "shared with another segment)", "each chunk once");
            }
            if (meta.owner(c) != owner) {
                throw PoolLayout.corrupt(where, "owner of chunk " + c + " in the chain of directory slot " + d,
                        meta.owner(c), String.valueOf(owner));
            }
            inChain.set(c);
            c = meta.next(c);
        }
        if (c != NIL) {
            throw PoolLayout.corrupt(where, "end of the chain of directory slot " + d + " after " + count + " chunks", c,
                    "-1");
        }
    }

    private String safeName(int d) {
        try {
            return directory.name(d);
        } catch (RuntimeException e) {
            return "?";
        }
    }
}
