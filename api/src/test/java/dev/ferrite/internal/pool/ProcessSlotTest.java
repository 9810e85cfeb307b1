package dev.ferrite.internal.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * The invariants of {@link ProcessSlot}, the one claim protocol of pool owner slots, queue endpoint
 * slots and map client slots, on a slot in memory of the test's own; and the liveness thread that
 * stamps every heartbeat of the process, which ends when the last stamp is cancelled.
 */
class ProcessSlotTest {

    private static final long IDENTITY = 0;
    private static final long RECORD = LivenessLayout.SLOT_OFFSET;
    /** A pid no Linux process has (pid_max is at most 2^22), so its holder is dead. */
    private static final long DEAD = 1L << 32 | 0x7FFF_FFF0L;

    private final AtomicLongArray words = new AtomicLongArray(16);
    private final ProcessSlot.Memory memory = new ProcessSlot.Memory() {
        @Override
        public long get(long off) {
            return words.get((int) (off / 8));
        }

        @Override
        public void put(long off, long value) {
            words.set((int) (off / 8), value);
        }

        @Override
        public boolean compareAndSet(long off, long expect, long update) {
            return words.compareAndSet((int) (off / 8), expect, update);
        }
    };

    private long owner() {
        return memory.get(RECORD + LivenessLayout.OWNER);
    }

    @Test
    void aClaimOfAFreeSlotLeavesThisProcessAndItsRecordThere() {
        assertEquals(0, ProcessSlot.claimIfFreeOrDead(memory, IDENTITY, RECORD));
        assertEquals(Liveness.self(), memory.get(IDENTITY));
        assertEquals(Liveness.self(), owner(), "the record names the holder");
        assertTrue(ProcessSlot.holderRuns(memory, IDENTITY, RECORD));
        assertEquals(ProcessHandle.current().pid(), ProcessSlot.holderPid(memory, IDENTITY));
    }

    @Test
    void aRunningHolderIsNeverTakenFromThisProcessIncluded() {
        assertTrue(ProcessSlot.claim(memory, IDENTITY, RECORD, 0));
        assertEquals(-1, ProcessSlot.claimIfFreeOrDead(memory, IDENTITY, RECORD));
        assertEquals(Liveness.self(), memory.get(IDENTITY));
    }

    @Test
    void aDeadHoldersSlotIsTakenOverAndItsWordReturned() {
        assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "judged by /proc here");
        memory.put(IDENTITY, DEAD);
        Liveness.writeRecord(memory, RECORD);
        memory.put(RECORD + LivenessLayout.OWNER, DEAD); // the dead holder's own, complete record
        assertFalse(ProcessSlot.holderRuns(memory, IDENTITY, RECORD));
        assertEquals(DEAD, ProcessSlot.claimIfFreeOrDead(memory, IDENTITY, RECORD));
        assertEquals(Liveness.self(), memory.get(IDENTITY));
        assertEquals(Liveness.self(), owner());
    }

    @Test
    void aClaimOfASlotThatChangedMeanwhileFailsAndTakesNothing() {
        memory.put(IDENTITY, DEAD);
        assertFalse(ProcessSlot.claim(memory, IDENTITY, RECORD, 0), "the claimant saw it free");
        assertEquals(DEAD, memory.get(IDENTITY));
    }

    @Test
    void aHolderWhoseRecordDoesNotNameItRunsUntilTheWaiterHasWaitedPastTheTimeout() {
        memory.put(IDENTITY, DEAD);
        Liveness.writeRecord(memory, RECORD); // names this process: a claim in progress, or damage
        assertTrue(ProcessSlot.holderRuns(memory, IDENTITY, RECORD), "a claim in progress is never dead");
        assertFalse(ProcessSlot.runsAfterTimeout(memory, DEAD, RECORD), "after the timeout it is damage");
    }

    /**
     * A holder that gives its slot back and takes it again (a process closing and reopening a pool)
     * between a claimant's reading of the word and its judging of the holder: the word is the same,
     * so the claimant must judge the word it read, not the slot's word of the moment, or its CAS from
     * that word takes the slot from the living (the storm of opens and closes in the multi-process
     * contract hit this now and then).
     */
    @Test
    void aHolderThatLeavesAndReturnsBetweenTwoReadsIsNeitherJudgedDeadNorTakenOver() {
        long holder = Liveness.self(); // a running process; the slot word is all that tells holders apart
        assertTrue(ProcessSlot.claim(memory, IDENTITY, RECORD, 0));
        AtomicInteger reads = new AtomicInteger();
        ProcessSlot.Memory flickering = new ProcessSlot.Memory() {
            @Override
            public long get(long off) {
                // The second read of the word falls between the holder's release and its new claim.
                return off == IDENTITY && reads.incrementAndGet() == 2 ? 0 : memory.get(off);
            }

            @Override
            public void put(long off, long value) {
                memory.put(off, value);
            }

            @Override
            public boolean compareAndSet(long off, long expect, long update) {
                return memory.compareAndSet(off, expect, update);
            }
        };
        assertTrue(ProcessSlot.runs(flickering, holder, RECORD), "the word read names a running process");
        reads.set(0);
        assertEquals(-1, ProcessSlot.claimIfFreeOrDead(flickering, IDENTITY, RECORD));
        assertEquals(holder, memory.get(IDENTITY));
        memory.put(IDENTITY, DEAD);
        memory.put(RECORD + LivenessLayout.OWNER, DEAD);
        assertFalse(ProcessSlot.runs(memory, DEAD, RECORD));
        memory.put(IDENTITY, 0);
        assertFalse(ProcessSlot.runs(memory, DEAD, RECORD), "judged by the word given, whatever the slot holds now");
    }

    @Test
    void onlyTheHolderReleasesAndATakenOverSlotStaysWithItsNewHolder() {
        assertTrue(ProcessSlot.claim(memory, IDENTITY, RECORD, 0));
        assertTrue(ProcessSlot.release(memory, IDENTITY));
        assertEquals(0, memory.get(IDENTITY));
        assertFalse(ProcessSlot.release(memory, IDENTITY), "released twice");
        memory.put(IDENTITY, DEAD);
        assertFalse(ProcessSlot.release(memory, IDENTITY));
        assertEquals(DEAD, memory.get(IDENTITY));
    }

    @Test
    void ofClaimantsRacingForAFreeSlotExactlyOneWins() throws Exception {
        for (int round = 0; round < 200; round++) {
            memory.put(IDENTITY, 0);
            int threads = 4;
            CountDownLatch start = new CountDownLatch(1);
            AtomicInteger won = new AtomicInteger();
            List<Thread> racers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread r = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (ProcessSlot.claim(memory, IDENTITY, RECORD, 0)) {
                        won.incrementAndGet();
                    }
                });
                r.start();
                racers.add(r);
            }
            start.countDown();
            for (Thread r : racers) {
                r.join();
            }
            assertEquals(1, won.get(), "round " + round);
            assertEquals(Liveness.self(), owner(), "the winner's record is complete after its claim");
        }
    }

    @Test
    void theLivenessThreadRunsEachStampAtItsPeriodAndEndsWithTheLastOne() throws Exception {
        AtomicInteger fast = new AtomicInteger();
        AtomicInteger slow = new AtomicInteger();
        Liveness.Stamp a = Liveness.keepStamping(fast::incrementAndGet, 5);
        Liveness.Stamp b = Liveness.keepStamping(slow::incrementAndGet, 200);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (slow.get() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        a.cancel();
        b.cancel();
        int fastRuns = fast.get();
        int slowRuns = slow.get();
        assertTrue(slowRuns >= 2, "a 200 ms stamp ran " + slowRuns + " times in 30 s");
        // 400 ms or more have passed: the 5 ms stamp ran at every wake-up of the thread, the 200 ms
        // one at one in 40 of them
        assertTrue(fastRuns >= 4 * slowRuns, "the 5 ms stamp ran " + fastRuns + " times, the 200 ms one " + slowRuns);
        Thread.sleep(50);
        assertEquals(fastRuns, fast.get(), "a cancelled stamp never runs again");
        if (Liveness.stamps() == 0) { // no pool of another test is open in this JVM
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (Liveness.stamperRuns() && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertFalse(Liveness.stamperRuns(), "the thread ends when no stamp is left");
        }
    }
}
