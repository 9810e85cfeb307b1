package dev.ferrite.internal.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The one liveness rule, on records written the way holders write them. */
class LivenessTest {

    private static final int IDENTITY = 0;
    private static final int RECORD = LivenessLayout.SLOT_OFFSET;

    private final ByteBuffer slot = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);

    private boolean judged() {
        return Liveness.isAlive(off -> slot.getLong((int) off), IDENTITY, RECORD);
    }

    private void claimAsSelf() {
        Liveness.writeRecord((off, v) -> slot.putLong((int) off, v), RECORD);
        slot.putLong(IDENTITY, Liveness.self());
    }

    private static String[] stat(String pid) throws Exception {
        String s = Files.readString(Path.of("/proc", pid, "stat"));
        return s.substring(s.lastIndexOf(')') + 2).split(" ");
    }

    @Test
    void theIdentityIsPidAndStartTicksNotTheWallClock() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "no /proc here");
        long ticks = Long.parseLong(stat("self")[19]);
        assertEquals(ProcessHandle.current().pid(), Liveness.pid(Liveness.self()));
        assertEquals(ticks & 0xFFFFFFFFL, Liveness.self() >>> 32, "start time in clock ticks since boot");
    }

    @Test
    void aFreeSlotIsNotAliveAndThisProcessIs() {
        assertFalse(judged());
        claimAsSelf();
        assertTrue(judged());
    }

    @Test
    void aProcessInTheSameNamespaceIsJudgedByPidAndStartTicks() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "no /proc here");
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            long ticks = Long.parseLong(stat(Long.toString(sleeper.pid()))[19]);
            long word = (ticks & 0xFFFFFFFFL) << 32 | sleeper.pid();
            claimAsSelf();
            slot.putLong(RECORD + LivenessLayout.OWNER, word);
            slot.putLong(IDENTITY, word);
            assertTrue(judged(), "running, started at those ticks");
            slot.putLong(IDENTITY, word + (1L << 32));
            slot.putLong(RECORD + LivenessLayout.OWNER, word + (1L << 32));
            assertFalse(judged(), "same pid, other start: the pid was reused");
            slot.putLong(IDENTITY, word);
            slot.putLong(RECORD + LivenessLayout.OWNER, word);
            sleeper.destroyForcibly().waitFor();
            assertFalse(judged(), "gone");
        } finally {
            sleeper.destroyForcibly();
        }
    }

    @Test
    void aProcessInAnotherPidNamespaceIsJudgedByItsHeartbeat() {
        claimAsSelf();
        // Pid 1 of another namespace: the pid means nothing here, only the heartbeat does.
        long word = 5L << 32 | 1;
        slot.putLong(IDENTITY, word);
        slot.putLong(RECORD + LivenessLayout.OWNER, word);
        slot.putLong(RECORD + LivenessLayout.PID_NAMESPACE, 12345);
        slot.putLong(RECORD + LivenessLayout.HEARTBEAT_NANOS, System.nanoTime());
        assertTrue(judged(), "fresh heartbeat");
        slot.putLong(RECORD + LivenessLayout.HEARTBEAT_NANOS, System.nanoTime() - TimeUnit.SECONDS.toNanos(60));
        assertFalse(judged(), "heartbeat a minute old");
    }

    @Test
    void aRecordFromAnEarlierBootIsDead() {
        claimAsSelf();
        slot.putLong(RECORD + LivenessLayout.BOOT_ID, slot.getLong(RECORD + LivenessLayout.BOOT_ID) ^ 1);
        assumeTrue(slot.getLong(RECORD + LivenessLayout.BOOT_ID) != 1, "no boot id here");
        assertFalse(judged());
    }

    @Test
    void aRecordStillBeingWrittenIsNeverCalledDead() {
        claimAsSelf();
        long word = 5L << 32 | 1;
        slot.putLong(IDENTITY, word);
        // OWNER still names the claimant that lost the race (here: this process), not the holder.
        assertTrue(judged());
    }

    @Test
    void aSlotFromBeforeLivenessRecordsIsJudgedByPid() {
        long deadWord = 7L << 32 | 0x3FFFFF;
        slot.putLong(IDENTITY, deadWord);
        assertFalse(judged(), "all-zero record: by pid, and that pid does not run");
        slot.putLong(IDENTITY, Liveness.self());
        assertTrue(judged());
    }
}
