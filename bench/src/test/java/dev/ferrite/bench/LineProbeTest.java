package dev.ferrite.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** The cache-line round trip the report places each queue fork beside. */
class LineProbeTest {

    @Test
    void measuresARoundTripBetweenTwoCores() {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two CPUs");
        double ns = LineProbe.roundTripNanos();
        // With both cores taken by other work the probe's rounds run out of time: it says so with
        // NaN ("unavailable"), which is its contract, not a failure.
        assumeFalse(Double.isNaN(ns), "the probe found no two free cores now (the host is busy)");
        // A line goes from core to core and back in tens to hundreds of ns; a probe whose threads
        // shared one core would take a scheduler slice (milliseconds) per trip and run out of time.
        assertTrue(ns > 5 && ns < 100_000, "ns per round trip: " + ns);
    }
}
