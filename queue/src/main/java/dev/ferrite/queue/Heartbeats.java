package dev.ferrite.queue;

import dev.ferrite.FerriteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * One daemon thread per process that stamps the heartbeat of every open producer and consumer,
 * so the hot paths never read the clock. It stamps four times per shortest liveness timeout
 * (at most every 250 ms, at least every 5 ms).
 */
final class Heartbeats {

    private static final Logger LOG = LoggerFactory.getLogger(Heartbeats.class);
    private static final List<EndpointSlot> SLOTS = new ArrayList<>();
    private static Thread thread;

    private Heartbeats() {
    }

    static synchronized void register(EndpointSlot slot) {
        SLOTS.add(slot);
        if (thread == null) {
            thread = new Thread(Heartbeats::run, "ferrite-queue-heartbeat");
            thread.setDaemon(true);
            thread.start();
        }
        Heartbeats.class.notifyAll();
    }

    /** After this returns the thread never touches the slot's memory again. */
    static synchronized void unregister(EndpointSlot slot) {
        SLOTS.remove(slot);
    }

    private static void run() {
        while (true) {
            long interval;
            synchronized (Heartbeats.class) {
                long now = System.currentTimeMillis();
                interval = 250;
                for (EndpointSlot slot : SLOTS) {
                    try {
                        slot.stamp(now);
                    } catch (FerriteException e) {
                        LOG.debug("heartbeat of {} not stamped: {}", slot.ring, e.toString());
                    }
                    interval = Math.min(interval, Math.max(5, slot.livenessMillis / 4));
                }
                try {
                    Heartbeats.class.wait(interval);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
