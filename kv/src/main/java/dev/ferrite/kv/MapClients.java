package dev.ferrite.kv;

import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import dev.ferrite.internal.pool.Liveness;
import dev.ferrite.internal.pool.ProcessSlot;

import static dev.ferrite.kv.MapLayout.CLIENT_COUNT;
import static dev.ferrite.kv.MapLayout.CLIENT_GENERATION;
import static dev.ferrite.kv.MapLayout.CLIENT_IDENTITY;
import static dev.ferrite.kv.MapLayout.CLIENT_LIVENESS;

/**
 * The client slots of a map header: a writable open takes one (CAS of its identity word from 0,
 * or from a dead holder's), bumps its generation and keeps its liveness record stamped; section
 * locks name the slot and generation, so whether a lock holder still runs is the shared liveness
 * rule applied to its slot. Thread-safe.
 */
final class MapClients {

    private MapClients() {
    }

    /** A client slot this process holds. */
    static final class Held {
        final int slot;
        final long lockValue;
        /** Whether the slot was taken from a process that died with the map open. */
        final boolean fromDead;
        private final Liveness.Stamp stamp;

        private Held(int slot, long lockValue, boolean fromDead, Liveness.Stamp stamp) {
            this.slot = slot;
            this.lockValue = lockValue;
            this.fromDead = fromDead;
            this.stamp = stamp;
        }
    }

    /**
     * Takes a free client slot, or one whose holder is dead.
     *
     * @param header the map's header segment
     * @param map    the map's description, for the error
     * @return the held slot
     * @throws FerriteException if every slot is held by a running process
     */
    static Held take(Segment header, String map) {
        ProcessSlot.Memory memory = ProcessSlot.of(header);
        for (int slot = 0; slot < CLIENT_COUNT; slot++) {
            long at = MapLayout.client(slot);
            long was = ProcessSlot.claimIfFreeOrDead(memory, at + CLIENT_IDENTITY, at + CLIENT_LIVENESS);
            if (was == -1) {
                continue; // a running process holds it, or another claimant just won it
            }
            long generation = header.getAndAddLong(at + CLIENT_GENERATION, 1) + 1;
            Liveness.Stamp stamp = Liveness.keepStamping(memory, at + CLIENT_LIVENESS);
            return new Held(slot, MapLayout.lockValue(slot, generation), was != 0, stamp);
        }
        throw new FerriteException("map " + map + ": all " + CLIENT_COUNT
                + " client slots are held by running processes (the most that may have it open for writing at once)");
    }

    /**
     * Finds the client slots whose holders died with the map open, and frees them if asked (each by
     * a CAS from the dead holder's identity word, so a slot another opener claims meanwhile stays its).
     *
     * @param header the map's header segment
     * @param free   whether to free them (a writable open) or only count them (a read-only one)
     * @return slots found (freed, if asked): processes that did not close the map
     */
    static int deadSlots(Segment header, boolean free) {
        ProcessSlot.Memory memory = ProcessSlot.of(header);
        int found = 0;
        for (int slot = 0; slot < CLIENT_COUNT; slot++) {
            long at = MapLayout.client(slot);
            long holder = header.getLongVolatile(at + CLIENT_IDENTITY);
            if (holder != 0 && !ProcessSlot.runs(memory, holder, at + CLIENT_LIVENESS)
                    && (!free || header.compareAndSetLong(at + CLIENT_IDENTITY, holder, 0))) {
                found++;
            }
        }
        return found;
    }

    /** Gives a slot back: stops stamping and frees it (if the header can still be reached). */
    static void release(Segment header, Held held) {
        held.stamp.cancel();
        if (!header.isClosed() && !header.pool().isClosed()) {
            ProcessSlot.release(ProcessSlot.of(header), MapLayout.client(held.slot) + CLIENT_IDENTITY);
        }
    }

    /**
     * @param header the map's header segment
     * @param lock   a non-zero lock word
     * @return whether the process that wrote the lock word may still run: its slot still holds the
     *         generation the word names and the liveness rule says its holder runs
     */
    static boolean lockHolderRuns(Segment header, long lock) {
        int slot = MapLayout.lockSlot(lock);
        if (slot < 0 || slot >= CLIENT_COUNT) {
            return false; // no slot: a damaged word, nobody to wait for
        }
        long at = MapLayout.client(slot);
        if (header.getLongVolatile(at + CLIENT_GENERATION) != MapLayout.lockGeneration(lock)) {
            return false; // the slot was given back (and maybe taken again) since
        }
        return holderRuns(header, slot);
    }

    /**
     * @return the pid a lock word's holder had, 0 if unknown: a damaged word, or a slot given back
     *         (and maybe taken by another process, whose pid it now holds) since the lock was taken
     */
    static long lockHolderPid(Segment header, long lock) {
        int slot = MapLayout.lockSlot(lock);
        if (slot < 0 || slot >= CLIENT_COUNT) {
            return 0;
        }
        long at = MapLayout.client(slot);
        long pid = Liveness.pid(header.getLongVolatile(at + CLIENT_IDENTITY));
        return header.getLongVolatile(at + CLIENT_GENERATION) == MapLayout.lockGeneration(lock) ? pid : 0;
    }

    private static boolean holderRuns(Segment header, int slot) {
        long at = MapLayout.client(slot);
        return ProcessSlot.holderRuns(ProcessSlot.of(header), at + CLIENT_IDENTITY, at + CLIENT_LIVENESS);
    }
}
