package dev.ferrite.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.testkit.BackendProbe;
import dev.ferrite.testkit.ChildJvm;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code ffm} jar (built on JDK 22+) on the class path of a JVM older than 22: discovery lists
 * {@code ffm} as unavailable with the reason, and everything else works, with no warning. Runs
 * when the jar has been built (CI builds on JDK 25 first, then tests on JDK 17).
 */
class FfmJarOnOlderJdkTest {

    @Test
    void ffmIsListedUnavailableWithTheReasonAndTheRestWorks() throws Exception {
        assumeTrue(Runtime.version().feature() < 22, "only meaningful below Java 22");
        Path jar = Path.of("..", "backend-ffm", "target", "ferrite-backend-ffm-0.1.0-SNAPSHOT.jar").toAbsolutePath();
        assumeTrue(Files.exists(jar), "the ffm jar is built on JDK 22+ only: " + jar);
        String cp = System.getProperty("java.class.path") + File.pathSeparator + jar;
        String previous = System.getProperty("java.class.path");
        System.setProperty("java.class.path", cp);
        try {
            ChildJvm.Result r = ChildJvm.run(List.of(), Map.of(), BackendProbe.class);
            assertEquals(0, r.exitCode(), r.stderr());
            assertTrue(r.stdout().contains("backend=unsafe") && r.stdout().contains("value=42"), r.stdout());
            assertTrue(r.stdout().contains("found ffm unavailable: needs Java 22 or later"), r.stdout());
            assertTrue(r.stdout().contains("found bytebuffer available"), r.stdout());
            assertTrue(r.stderr().lines().noneMatch(l -> l.contains("WARNING")), r.stderr());
        } finally {
            System.setProperty("java.class.path", previous);
        }
    }
}
