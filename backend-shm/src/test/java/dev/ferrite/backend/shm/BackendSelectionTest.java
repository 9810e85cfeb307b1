package dev.ferrite.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.BackendUnavailableException;
import dev.ferrite.Ferrite;
import dev.ferrite.backend.unsafe.UnsafeBackend;
import dev.ferrite.spi.MemoryBackend;
import dev.ferrite.testkit.BackendProbe;
import dev.ferrite.testkit.ChildJvm;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How a user picks a backend, with all three on the class path: discovery, the default rule,
 * {@code -Dferrite.backend}, {@code FERRITE_BACKEND}, the errors, and which JVM flags each needs,
 * checked in fresh JVMs started with nothing but the class path.
 */
class BackendSelectionTest {

    private static final boolean JDK24_PLUS = Runtime.version().feature() >= 24;

    private static List<String> warnings(String stderr) {
        return stderr.lines().filter(l -> l.contains("WARNING")).collect(Collectors.toList());
    }

    @Test
    void allThreeBackendsAreFoundAndAvailableHighestPriorityFirst() {
        List<String> names = Ferrite.backends().stream().map(MemoryBackend::name).collect(Collectors.toList());
        assertTrue(names.containsAll(List.of("unsafe", "bytebuffer", "shm")), names.toString());
        for (MemoryBackend b : Ferrite.backends()) {
            assertTrue(b.isAvailable(), b + ": " + b.unavailableReason());
        }
        for (int i = 1; i < Ferrite.backends().size(); i++) {
            assertTrue(Ferrite.backends().get(i - 1).priority() >= Ferrite.backends().get(i).priority());
        }
    }

    @Test
    void theDefaultIsTheFastestBackendThatRunsWithoutWarnings() {
        // The test JVM gets --sun-misc-unsafe-memory-access=allow on JDK 24+ (see the parent POM).
        assertFalse(UnsafeBackend.accessWarns());
        assertEquals("unsafe", Ferrite.backend().name());
    }

    @Test
    void theSystemPropertyOverridesTheDefault() {
        System.setProperty("ferrite.backend", "bytebuffer");
        try {
            assertEquals("bytebuffer", Ferrite.backend().name());
            System.setProperty("ferrite.backend", " SHM ");
            assertEquals("shm", Ferrite.backend().name());
            System.setProperty("ferrite.backend", "mmap");
            BackendUnavailableException e = assertThrows(BackendUnavailableException.class, Ferrite::backend);
            assertTrue(e.getMessage().contains("'mmap'") && e.getMessage().contains("unsafe")
                    && e.getMessage().contains("bytebuffer") && e.getMessage().contains("shm"), e.getMessage());
        } finally {
            System.clearProperty("ferrite.backend");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytebuffer", "shm"})
    void aUserSelectsAWarningFreeBackendWithNoOtherFlag(String name) throws Exception {
        ChildJvm.Result r = ChildJvm.run(List.of("-Dferrite.backend=" + name), Map.of(), BackendProbe.class);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("backend=" + name) && r.stdout().contains("value=42"), r.stdout());
        assertEquals(List.of(), warnings(r.stderr()), "no JVM warning for " + name);
    }

    @Test
    void aUserSelectsUnsafeWithTheFlagTheReadmeNamesForThisJdk() throws Exception {
        List<String> flags = JDK24_PLUS ? List.of("-Dferrite.backend=unsafe", "--sun-misc-unsafe-memory-access=allow")
                : List.of("-Dferrite.backend=unsafe");
        ChildJvm.Result r = ChildJvm.run(flags, Map.of(), BackendProbe.class);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("backend=unsafe") && r.stdout().contains("value=42"), r.stdout());
        assertEquals(List.of(), warnings(r.stderr()));
    }

    @Test
    void unsafeWithoutTheFlagWorksButTheJvmWarnsOnJdk24Plus() throws Exception {
        ChildJvm.Result r = ChildJvm.run(List.of("-Dferrite.backend=unsafe"), Map.of(), BackendProbe.class);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("value=42"), r.stdout());
        assertEquals(JDK24_PLUS, !warnings(r.stderr()).isEmpty(), r.stderr());
    }

    @Test
    void theDefaultNeedsNoFlagAndPrintsNoWarning() throws Exception {
        ChildJvm.Result r = ChildJvm.run(List.of(), Map.of(), BackendProbe.class);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("backend=" + (JDK24_PLUS ? "bytebuffer" : "unsafe")), r.stdout());
        assertEquals(List.of(), warnings(r.stderr()));
    }

    @Test
    void theEnvironmentVariableSelectsWhenThePropertyIsUnset() throws Exception {
        ChildJvm.Result r = ChildJvm.run(List.of(), Map.of("FERRITE_BACKEND", "shm"), BackendProbe.class);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("backend=shm"), r.stdout());
        ChildJvm.Result both = ChildJvm.run(List.of("-Dferrite.backend=bytebuffer"), Map.of("FERRITE_BACKEND", "shm"),
                BackendProbe.class);
        assertTrue(both.stdout().contains("backend=bytebuffer"), "the property wins: " + both.stdout());
    }

    @Test
    void anUnknownNameFailsTheProgramWithTheAvailableNames() throws Exception {
        ChildJvm.Result r = ChildJvm.run(List.of("-Dferrite.backend=nope"), Map.of(), BackendProbe.class);
        assertEquals(1, r.exitCode());
        assertTrue(r.stderr().contains("no backend named 'nope'") && r.stderr().contains("bytebuffer"), r.stderr());
    }
}
