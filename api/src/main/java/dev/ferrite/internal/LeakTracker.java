package dev.ferrite.internal;

import java.lang.ref.Cleaner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opt-in leak detection ({@code -Dferrite.leakDetection=true}): every handle records where it was
 * made, and a handle that the garbage collector finds unclosed is logged at WARN with that stack
 * under the logger {@code dev.ferrite.leak}. Costs a stack trace per handle, so it is off by default.
 */
public final class LeakTracker {

    /** The setting that turns it on: {@code ferrite.leakDetection} / {@code FERRITE_LEAKDETECTION}. */
    public static final String SETTING = "leakDetection";

    private static final Logger LOG = LoggerFactory.getLogger("dev.ferrite.leak");
    private static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "ferrite-leak-detector");
        t.setDaemon(true);
        return t;
    });

    private LeakTracker() {
    }

    /** @return whether leak detection is configured on */
    public static boolean enabled() {
        return Settings.flag(SETTING, false);
    }

    /**
     * Starts watching a handle.
     *
     * @param handle      the handle
     * @param description what it is, for the report
     * @return the record to {@link Tracked#closed() close} when the handle is closed
     */
    static Tracked track(Object handle, String description) {
        Report report = new Report(description, new Throwable("allocated here"));
        return new Tracked(report, CLEANER.register(handle, report));
    }

    /** The watch on one handle. */
    static final class Tracked {
        private final Report report;
        private final Cleaner.Cleanable cleanable;

        private Tracked(Report report, Cleaner.Cleanable cleanable) {
            this.report = report;
            this.cleanable = cleanable;
        }

        void closed() {
            report.closed = true;
            cleanable.clean();
        }
    }

    // Must not refer to the handle, or the handle could never become unreachable.
    private static final class Report implements Runnable {
        private final String description;
        private final Throwable site;
        private volatile boolean closed;

        private Report(String description, Throwable site) {
            this.description = description;
            this.site = site;
        }

        @Override
        public void run() {
            if (!closed) {
                LOG.warn("LEAK: a handle on {} was garbage-collected without close(); its chunks stay allocated",
                        description, site);
            }
        }
    }
}
