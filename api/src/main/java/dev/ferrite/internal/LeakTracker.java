package dev.ferrite.internal;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opt-in leak detection ({@code -Dferrite.leakDetection=true}): every handle records where it was
 * made, and a handle that the garbage collector finds unclosed is logged at WARN with that stack
 * under the logger {@code dev.ferrite.leak}. Costs a stack trace per handle, so it is off by default.
 *
 * <p>Runs no thread of its own: collected handles are reported by the next handle tracked and when
 * a pool closes (as Netty's leak detector reports at the next allocation). Thread-safe.
 */
public final class LeakTracker {

    /** The setting that turns it on: {@code ferrite.leakDetection} / {@code FERRITE_LEAKDETECTION}. */
    public static final String SETTING = "leakDetection";

    private static final Logger LOG = LoggerFactory.getLogger("dev.ferrite.leak");
    /** Where the collector puts the records of handles it found unreachable. */
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();
    /** The records of handles not closed yet; keeps each record reachable until it is reported or closed. */
    private static final Set<Tracked> OPEN = ConcurrentHashMap.newKeySet();

    private LeakTracker() {
    }

    /** @return whether leak detection is configured on */
    public static boolean enabled() {
        return Settings.flag(SETTING, false);
    }

    /**
     * Reports the handles collected unclosed since the last call, then starts watching a handle.
     *
     * @param handle      the handle
     * @param description what it is, for the report
     * @return the record to {@link Tracked#closed() close} when the handle is closed
     */
    static Tracked track(Object handle, String description) {
        reportCollected();
        Tracked tracked = new Tracked(handle, description, new Throwable("allocated here"));
        OPEN.add(tracked);
        return tracked;
    }

    /** Logs every handle the collector found unclosed since the last call; cheap when there is none. */
    static void reportCollected() {
        for (Reference<?> r; (r = COLLECTED.poll()) != null; ) {
            Tracked t = (Tracked) r;
            if (OPEN.remove(t)) {
                LOG.warn("LEAK: a handle on {} was garbage-collected without close(); its chunks stay allocated",
                        t.description, t.site);
            }
        }
    }

    /** The watch on one handle; must not refer to the handle, or it could never become unreachable. */
    static final class Tracked extends PhantomReference<Object> {
        private final String description;
        private final Throwable site;

        private Tracked(Object handle, String description, Throwable site) {
            super(handle, COLLECTED);
            this.description = description;
            this.site = site;
        }

        /** The handle was closed: it is not a leak. */
        void closed() {
            OPEN.remove(this);
            clear();
        }
    }
}
