package dev.ferrite.queue;

import dev.ferrite.ChunkPool;
import dev.ferrite.PoolSpec;
import dev.ferrite.internal.pool.Liveness;
import dev.ferrite.internal.pool.LivenessLayout;
import dev.ferrite.internal.pool.ProcessSlot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.ferrite.queue.QueueLayout.SLOT_GENERATION;
import static dev.ferrite.queue.QueueLayout.SLOT_HEARTBEAT;
import static dev.ferrite.queue.QueueLayout.SLOT_IDENTITY;

/**
 * One side's place in the queue header: who holds it (pid and start time), when it last proved
 * alive, and how many times it has been taken. A slot is taken by CAS of the identity word, so two
 * processes never hold one; a slot whose holder died is taken over.
 */
final class EndpointSlot {

    /**
     * Slots held by this process: the identity word alone cannot tell two endpoints of one process
     * apart. Keyed by where the queue is, not by how it was named: the pool file's device and
     * inode (so {@code /d/q.pool} and {@code /d/./q.pool} are one queue), or the pool object of an
     * anonymous pool (two anonymous pools are two queues), then the segment and the slot.
     */
    private static final Set<Object> HELD = ConcurrentHashMap.newKeySet();

    final Ring ring;
    final int offset;
    final long generation;
    final long livenessMillis;
    private final Object key;
    private final long previousHolder;
    /** The heartbeat, stamped by the process's liveness thread from the claim to the release. */
    private volatile Liveness.Stamp heartbeat;

    private EndpointSlot(Ring ring, int offset, long generation, long livenessMillis, Object key,
                         long previousHolder) {
        this.ring = ring;
        this.offset = offset;
        this.generation = generation;
        this.livenessMillis = livenessMillis;
        this.key = key;
        this.previousHolder = previousHolder;
    }

    /**
     * Takes the slot at an offset if it is free or its holder is dead.
     *
     * @return the slot, or null if a live endpoint holds it
     */
    static EndpointSlot tryTake(Ring ring, int offset, long livenessMillis) {
        Object key = heldKey(ring, offset);
        ProcessSlot.Memory memory = ProcessSlot.of(ring.segment);
        long identity = offset + SLOT_IDENTITY;
        long record = offset + LivenessLayout.SLOT_OFFSET;
        while (true) {
            long holder = memory.get(identity);
            // This process's own word in a slot no endpoint of its holds (HELD says) is taken again.
            if (holder != 0 && holder != Liveness.self() && ProcessSlot.runs(memory, holder, record)) {
                return null;
            }
            if (!HELD.add(key)) {
                return null;
            }
            if (ProcessSlot.claim(memory, identity, record, holder)) {
                long generation = ring.segment.getAndAddLong(offset + SLOT_GENERATION, 1) + 1;
                EndpointSlot slot = new EndpointSlot(ring, offset, generation, livenessMillis, key, holder);
                slot.stamp(System.currentTimeMillis());
                // four stamps per liveness timeout, at most every 250 ms, at least every 5 ms
                slot.heartbeat = Liveness.keepStamping(slot::stampNow, Math.max(5, Math.min(250, livenessMillis / 4)));
                return slot;
            }
            HELD.remove(key);
        }
    }

    private static Object heldKey(Ring ring, int offset) {
        ChunkPool pool = ring.segment.pool();
        PoolSpec spec = pool.spec();
        Path file = spec.backingFile();
        Object where = pool;
        if (file != null) {
            try {
                where = Files.getAttribute(file, "unix:dev") + ":" + Files.getAttribute(file, "unix:ino");
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                where = file.toAbsolutePath().normalize().toString();
            }
        }
        return List.of(where, String.valueOf(ring.segment.name()), offset);
    }

    /** @return the identity word of the process that held the slot before, 0 if it was free */
    long previousHolder() {
        return previousHolder;
    }

    private void stampNow() {
        stamp(System.currentTimeMillis());
    }

    /** Writes the heartbeat, and the liveness record that others judge this process by. */
    void stamp(long nowMillis) {
        ring.segment.putLongOrdered(offset + SLOT_HEARTBEAT, nowMillis);
        Liveness.writeRecord(ring.segment::putLongVolatile, offset + LivenessLayout.SLOT_OFFSET);
    }

    /** @return whether the process in the slot at an offset may still run (the shared liveness rule) */
    private static boolean holderRuns(Ring ring, int offset) {
        return ProcessSlot.holderRuns(ProcessSlot.of(ring.segment), offset + SLOT_IDENTITY,
                offset + LivenessLayout.SLOT_OFFSET);
    }

    /** @return whether the process a word read from the slot at an offset names may still run */
    private static boolean runs(Ring ring, int offset, long holder) {
        return ProcessSlot.runs(ProcessSlot.of(ring.segment), holder, offset + LivenessLayout.SLOT_OFFSET);
    }

    /** Stops the heartbeat and gives the slot back. */
    void release() {
        heartbeat.cancel();
        ProcessSlot.release(ProcessSlot.of(ring.segment), offset + SLOT_IDENTITY);
        HELD.remove(key);
    }

    /**
     * @return whether the slot at an offset is held by a running process whose heartbeat is at
     *         most {@code livenessMillis} old, on the monotonic clock (a wall-clock step moves
     *         neither side's judgement)
     */
    static boolean isAlive(Ring ring, int offset, long livenessMillis) {
        long holder = ring.segment.getLongVolatile(offset + SLOT_IDENTITY);
        if (holder == 0) {
            return false;
        }
        long stamped = ring.segment.getLongVolatile(offset + LivenessLayout.SLOT_OFFSET + LivenessLayout.HEARTBEAT_NANOS);
        long ageMillis = (System.nanoTime() - stamped) / 1_000_000;
        return ageMillis <= livenessMillis && runs(ring, offset, holder);
    }

    /**
     * Whether the writer that stamped an in-progress record can still finish it: its slot is held
     * by the same running process with the same generation. Used only to decide whether a record
     * may be skipped, so it asks whether the process exists, not whether its heartbeat is fresh: a
     * paused process may resume and finish its record.
     */
    static boolean writerMayFinish(Ring ring, int slot, int generationBits) {
        int offset = QueueLayout.producerSlot(slot);
        long holder = ring.segment.getLongVolatile(offset + SLOT_IDENTITY);
        long generation = ring.segment.getLongVolatile(offset + SLOT_GENERATION);
        int current = RecordLayout.inProgressOwner(slot, generation) >> RecordLayout.OWNER_SLOT_BITS;
        return holder != 0 && current == generationBits && runs(ring, offset, holder);
    }

    /** @return the pid of the process holding the producer slot, 0 if free */
    static long holderPid(Ring ring, int slot) {
        return Liveness.pid(ring.segment.getLongVolatile(QueueLayout.producerSlot(slot) + SLOT_IDENTITY));
    }

    /**
     * @return whether the slot at an offset is held by a process that may still run (its
     *         heartbeat's age aside: a paused process may resume)
     */
    static boolean holderMayRun(Ring ring, int offset) {
        return holderRuns(ring, offset);
    }
}
