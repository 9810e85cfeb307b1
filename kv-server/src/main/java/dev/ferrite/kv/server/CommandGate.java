package dev.ferrite.kv.server;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Lets a command run alone: while an {@link #exclusive} command runs, no other thread runs a
 * command through this gate, so what it changes across several keys or databases (MSET, RENAME,
 * MOVE, SWAPDB, EXEC) is seen whole or not at all. Every other command passes {@link #enter} and
 * {@link #exit}: a volatile store and load on a line of its thread's own, no lock. An exclusive
 * command waits for the commands running when it starts to end; commands that start meanwhile wait
 * for it. A thread running the exclusive command may run commands inside it (EXEC). Thread-safe.
 */
final class CommandGate {

    /** One per thread that runs commands: whether it is inside one now. */
    static final class Lane {
        /** Padding: lanes of two event loops on one cache line would make them share it. */
        long p1, p2, p3, p4, p5, p6, p7;
        volatile boolean running;
        long q1, q2, q3, q4, q5, q6, q7;
    }

    private final List<Lane> lanes = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Lane> mine = ThreadLocal.withInitial(() -> {
        Lane lane = new Lane();
        lanes.add(lane);
        return lane;
    });
    /** The thread running an exclusive command, or null. */
    private volatile Thread exclusive;
    private final ReentrantLock exclusiveLock = new ReentrantLock();

    /**
     * Marks the calling thread as running a command, once no exclusive command of another thread runs.
     *
     * @return the lane to give to {@link #exit}
     */
    Lane enter() {
        Lane lane = mine.get();
        Thread self = Thread.currentThread();
        for (int spins = 0; ; spins++) {
            lane.running = true; // a volatile store, then a load: no exclusive command misses it
            Thread owner = exclusive;
            if (owner == null || owner == self) {
                return lane;
            }
            lane.running = false;
            pause(spins);
        }
    }

    /** Marks the end of the command {@link #enter} began. */
    void exit(Lane lane) {
        lane.running = false;
    }

    /**
     * Runs {@code body} with no other command running. Call outside {@link #enter}/{@link #exit},
     * or inside an exclusive command of this thread.
     *
     * @return what {@code body} returns
     */
    <T> T exclusive(Supplier<T> body) {
        Thread self = Thread.currentThread();
        if (exclusive == self) {
            return body.get(); // inside this thread's own exclusive command
        }
        Lane own = mine.get();
        exclusiveLock.lock();
        try {
            exclusive = self;
            for (Lane lane : lanes) {
                for (int spins = 0; lane != own && lane.running; spins++) {
                    pause(spins);
                }
            }
            own.running = true;
            try {
                return body.get();
            } finally {
                own.running = false;
            }
        } finally {
            exclusive = null;
            exclusiveLock.unlock();
        }
    }

    private static void pause(int spins) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else if (spins < 200) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(20_000);
        }
    }
}
