package dev.ferrite.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.Ferrite;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import dev.ferrite.spi.MemoryBackend;
import dev.ferrite.testkit.ChildJvm;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The jars on the module path of a user's JVM: each resolves under its {@code Automatic-Module-Name}
 * and discovery finds the backends through their service files. Runs where the build made jars
 * ({@code mvn verify}); a {@code mvn test} run on class directories skips it with the reason.
 */
class ModulePathTest {

    // This module's own classes are a directory during its tests, so shm stays on the class path.
    private static final List<String> MODULES = List.of("dev.ferrite", "dev.ferrite.backend.unsafe",
            "dev.ferrite.backend.bytebuffer");

    @Test
    void ferriteJarsResolveAsNamedModulesAndFindTheirBackends() throws Exception {
        String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
        List<String> modulePath = new ArrayList<>();
        List<String> classPath = new ArrayList<>();
        for (String e : entries) {
            String name = new File(e).getName();
            boolean ferriteJar = name.startsWith("ferrite-") && name.endsWith(".jar") && !name.startsWith("ferrite-testkit");
            boolean slf4j = name.startsWith("slf4j-api");
            (ferriteJar || slf4j ? modulePath : classPath).add(e);
        }
        assumeTrue(modulePath.stream().filter(e -> new File(e).getName().startsWith("ferrite-")).count() >= 3,
                "the Ferrite modules are class directories here, not jars (run mvn verify): " + Arrays.toString(entries));
        String previous = System.getProperty("java.class.path");
        System.setProperty("java.class.path", String.join(File.pathSeparator, classPath));
        try {
            List<String> flags = new ArrayList<>(ChildJvm.ferriteFlags());
            flags.addAll(List.of("--module-path", String.join(File.pathSeparator, modulePath),
                    "--add-modules", "ALL-MODULE-PATH"));
            ChildJvm.Result r = ChildJvm.run(flags, Map.of(), Probe.class);
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            assertTrue(r.stdout().contains("api module: dev.ferrite"), r.stdout());
            assertTrue(r.stdout().contains("backends: [bytebuffer, shm, unsafe]") || r.stdout().contains(
                    "backends: [bytebuffer, ffm, shm, unsafe]"), r.stdout());
            assertTrue(r.stdout().contains("value=42"), r.stdout());
        } finally {
            System.setProperty("java.class.path", previous);
        }
    }

    /** Runs in the child JVM, on the class path, using Ferrite from the module path. */
    public static final class Probe {
        private Probe() {
        }

        /**
         * @param args unused
         */
        public static void main(String[] args) {
            System.out.println("api module: " + Ferrite.class.getModule().getName());
            for (String m : MODULES) {
                if (ModuleLayer.boot().findModule(m).isEmpty()) {
                    System.out.println("missing module " + m);
                    System.exit(2);
                }
            }
            System.out.println("backends: " + Ferrite.backends().stream().filter(MemoryBackend::isAvailable)
                    .map(MemoryBackend::name).sorted().collect(Collectors.toList()));
            try (ChunkPool pool = Ferrite.backend().createPool(PoolSpec.anonymous().capacity(1 << 20).build());
                 Segment s = pool.allocate(64)) {
                s.putLong(8, 42);
                System.out.println("value=" + s.getLong(8));
            }
        }
    }
}
