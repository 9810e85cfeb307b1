package dev.ferrite.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Measures how long one cache line takes to go from one core to another and back: two threads
 * bounce a counter, each waiting for the other's increment. On a quiet machine this is the
 * hardware's core-to-core latency (about 50 ns on the AMD EPYC VM the report was written on); when
 * a VM's host moves its vCPUs apart, it jumps (there to 400-530 ns, for minutes), and every
 * benchmark whose threads or processes share memory across cores slows with it, whatever it
 * measures. The Java twin of {@code bench/tools/c2c.c}, which pins its threads; these are not pinned,
 * so on a machine with one CPU the threads would take turns and the probe reports nothing.
 *
 * <p>Keeps no state between calls, but two probes at once (or any other busy thread) share the
 * cores and read each other: run it while the machine is otherwise idle.
 */
public final class LineProbe {

    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);
    /** The counter's index: 128 bytes of the array on each side, so no neighbour shares its lines. */
    private static final int AT = 16;
    private static final int WARM_UP_TRIPS = 100_000;
    private static final int TRIPS = 40_000;
    private static final int ROUNDS = 5;
    /** A probe gives up after this long (a machine so slow the number would mean nothing). */
    private static final long TIME_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private LineProbe() {
    }

    /**
     * Runs the probe: a warm-up, then five rounds of 40,000 round trips. Takes 15-150 ms on a
     * machine with two free cores. The fastest round counts: another thread of this JVM (its JIT
     * compiler, a stream drainer) that takes one probe thread's core for a moment slows some
     * rounds (an unpinned probe read 108 and 388 ns among rounds of 45-58), while a host that has
     * moved the cores apart slows all of them.
     *
     * @return the fastest round's nanoseconds per round trip, or {@code NaN} if this machine has
     *         fewer than two CPUs or a round ran over its 2 s limit
     */
    public static double roundTripNanos() {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            return Double.NaN;
        }
        if (Double.isNaN(measure(WARM_UP_TRIPS))) {
            return Double.NaN;
        }
        double[] rounds = new double[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            rounds[i] = measure(TRIPS);
            if (Double.isNaN(rounds[i])) {
                return Double.NaN;
            }
        }
        return Arrays.stream(rounds).min().orElseThrow();
    }

    /** @return nanoseconds per round trip over {@code trips}, or NaN past the time limit */
    private static double measure(int trips) {
        long[] words = new long[2 * AT + 1];
        Thread answerer = new Thread(() -> answer(words, trips), "line-probe");
        answerer.setDaemon(true);
        answerer.start();
        long start = System.nanoTime();
        long deadline = start + TIME_LIMIT_NANOS;
        boolean late = false;
        for (long i = 1; i <= trips && !late; i++) {
            WORD.setRelease(words, AT, 2 * i - 1);
            for (int spins = 1; (long) WORD.getAcquire(words, AT) != 2 * i; spins++) {
                if ((spins & 1023) == 0 && System.nanoTime() - deadline > 0) {
                    late = true;
                    break;
                }
                Thread.onSpinWait();
            }
        }
        long elapsed = System.nanoTime() - start;
        if (late) {
            WORD.setRelease(words, AT, -1L); // tells the answerer to stop
        }
        try {
            answerer.join(TimeUnit.NANOSECONDS.toMillis(TIME_LIMIT_NANOS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
        return late ? Double.NaN : (double) elapsed / trips;
    }

    private static void answer(long[] words, int trips) {
        for (long i = 1; i <= trips; i++) {
            long seen;
            while ((seen = (long) WORD.getAcquire(words, AT)) != 2 * i - 1) {
                if (seen < 0) {
                    return;
                }
                Thread.onSpinWait();
            }
            WORD.setRelease(words, AT, 2 * i);
        }
    }
}
