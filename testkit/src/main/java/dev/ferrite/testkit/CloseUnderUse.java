package dev.ferrite.testkit;

import dev.ferrite.FerriteException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The race of the close-under-use tests: a daemon thread makes calls on a structure until one
 * throws while this thread closes it at a random instant, and what the calls met is tallied. A
 * {@link FerriteException} is an expected end (counted by its class); any other throwable, or a
 * thread still calling 10 s after the close, is wrong. Meant for a child JVM's {@code main} (see
 * {@link ChildJvm#runCrashReportingTo}), so that a crash is a failed test. Thread-safe.
 */
public final class CloseUnderUse {

    /** A call on the structure; the loop passes how many ran before it. */
    @FunctionalInterface
    public interface Step {
        /**
         * @param n calls made before this one
         * @throws Exception anything the structure throws
         */
        void run(long n) throws Exception;
    }

    /** The close, run once per race. */
    @FunctionalInterface
    public interface Close {
        /** @throws Exception anything the close throws: it ends the race and the test */
        void run() throws Exception;
    }

    private final Map<String, Integer> met = new TreeMap<>();
    private final List<String> wrong = Collections.synchronizedList(new ArrayList<>());

    /**
     * Runs {@code step} again and again in a daemon thread, closes after a random spin once the
     * thread has begun, and waits up to 10 s for the thread to end.
     *
     * @throws Exception what {@code close} throws, or an interrupt
     */
    public void race(Step step, Close close) throws Exception {
        AtomicBoolean started = new AtomicBoolean();
        Thread user = new Thread(() -> {
            started.set(true);
            try {
                for (long n = 0; ; n++) {
                    step.run(n);
                }
            } catch (FerriteException e) {
                count(e.getClass().getSimpleName());
            } catch (Throwable e) {
                wrong.add(e.toString());
            }
        }, "close-under-use");
        user.setDaemon(true);
        user.start();
        while (!started.get()) {
            Thread.onSpinWait();
        }
        for (int spin = ThreadLocalRandom.current().nextInt(20_000); spin > 0; spin--) {
            Thread.onSpinWait();
        }
        close.run();
        user.join(10_000);
        if (user.isAlive()) {
            wrong.add("the structure's user still ran 10 s after the close");
        }
    }

    /** Tallies an outcome the caller met itself (a close that had to be tried again, say). */
    public synchronized void count(String what) {
        met.merge(what, 1, Integer::sum);
    }

    /**
     * Prints what the calls met, then "wrong [...]" if anything was, else "done".
     *
     * @return the exit status for the child JVM: 0, or 1 if anything was wrong
     */
    public synchronized int report() {
        System.out.println("met " + met);
        if (!wrong.isEmpty()) {
            System.out.println("wrong " + wrong);
            return 1;
        }
        System.out.println("done");
        return 0;
    }
}
