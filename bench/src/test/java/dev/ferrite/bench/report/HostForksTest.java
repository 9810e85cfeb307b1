package dev.ferrite.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The rule that tells a quiet host's forks from a moved host's, and the medians over them. */
class HostForksTest {

    @Test
    void aForkIsQuietOnlyWhenBothReadingsAreUnderTheFactorTimesTheFastest() {
        // Readings of the AMD EPYC VM: 45-90 ns quiet, 400-490 ns with the vCPUs moved apart.
        assertTrue(HostForks.quiet(51, 61, 45));
        assertTrue(HostForks.quiet(89, 112, 45)); // 112 < 2.5 * 45 = 112.5
        assertFalse(HostForks.quiet(89, 113, 45));
        assertFalse(HostForks.quiet(453, 60, 45), "slow before the fork");
        assertFalse(HostForks.quiet(60, 438, 45), "slow after the fork");
        assertFalse(HostForks.quiet(Double.NaN, 60, 45), "no reading is no evidence of a quiet host");
    }

    @Test
    void medianOfSortedSamples() {
        assertEquals(5.9, HostForks.median(new double[] {5.8, 5.9, 6.0}));
        assertEquals(6.0, HostForks.median(new double[] {5.8, 5.9, 6.1, 13.2}));
        assertTrue(Double.isNaN(HostForks.median(new double[0])));
    }
}
