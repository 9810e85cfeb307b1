package dev.ferrite.backend.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.Ferrite;
import dev.ferrite.testkit.BackendProbe;
import dev.ferrite.testkit.ChildJvm;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** With the ffm jar present on JDK 22+: how a user's program finds and picks it. */
class FfmDefaultTest {

    @Test
    void ffmIsAvailableAndRanksAboveByteBuffer() {
        assertTrue(Ferrite.backend("ffm").isAvailable());
        assertTrue(Ferrite.backend("ffm").priority() > Ferrite.backend("bytebuffer").priority());
    }

    @Test
    void aProgramOnTheDefaultBackendNeedsNoFlagAndPrintsNoWarning() throws Exception {
        ChildJvm.Result r = ChildJvm.run(List.of(), Map.of(), BackendProbe.class);
        assertEquals(0, r.exitCode(), r.stderr());
        // Without --sun-misc-unsafe-memory-access=allow, Unsafe would warn on JDK 24+: ffm is the default.
        String expected = Runtime.version().feature() >= 24 ? "ffm" : "unsafe";
        assertTrue(r.stdout().contains("backend=" + expected) && r.stdout().contains("value=42"), r.stdout());
        assertTrue(r.stderr().lines().noneMatch(l -> l.contains("WARNING")), r.stderr());
    }

    @Test
    void withTheUnsafeFlagUnsafeIsTheDefaultAndThePropertyStillOverrides() throws Exception {
        ChildJvm.Result r = ChildJvm.run(ChildJvm.ferriteFlags(), Map.of(), BackendProbe.class);
        assertTrue(r.stdout().contains("backend=unsafe"), r.stdout());
        ChildJvm.Result ffm = ChildJvm.run(List.of("-Dferrite.backend=ffm"), Map.of(), BackendProbe.class);
        assertTrue(ffm.stdout().contains("backend=ffm"), ffm.stdout());
        assertTrue(ffm.stderr().lines().noneMatch(l -> l.contains("WARNING")), ffm.stderr());
    }
}
