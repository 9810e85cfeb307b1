package dev.ferrite.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.backend.shm.probe.ModulePathProbe;
import dev.ferrite.testkit.ChildJvm;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Ferrite on the module path of a user's JVM: each jar resolves as its named module (this module's
 * own classes as an exploded one) and discovery finds the backends as services. Runs where the
 * build made jars ({@code mvn verify}); a {@code mvn test} run on class directories skips it with
 * the reason.
 */
class ModulePathTest {

    private static final List<String> MODULES = List.of("dev.ferrite", "dev.ferrite.backend.unsafe",
            "dev.ferrite.backend.bytebuffer", "dev.ferrite.backend.shm");

    @Test
    void ferriteJarsResolveAsNamedModulesAndFindTheirBackends() throws Exception {
        String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
        List<String> modulePath = new ArrayList<>();
        List<String> classPath = new ArrayList<>();
        for (String e : entries) {
            String name = new File(e).getName();
            boolean ferriteJar = name.startsWith("ferrite-") && name.endsWith(".jar") && !name.startsWith("ferrite-testkit");
            boolean slf4j = name.startsWith("slf4j-api");
            // this module's classes, a directory with its module-info.class: an exploded module
            boolean shm = e.replace('\\', '/').matches(".*/backend-shm/target/classes/?");
            (ferriteJar || slf4j || shm ? modulePath : classPath).add(e);
        }
        assumeTrue(modulePath.stream().filter(e -> new File(e).getName().startsWith("ferrite-")).count() >= 3,
                "the Ferrite modules are class directories here, not jars (run mvn verify): " + Arrays.toString(entries));
        String previous = System.getProperty("java.class.path");
        System.setProperty("java.class.path", String.join(File.pathSeparator, classPath));
        try {
            List<String> flags = new ArrayList<>(ChildJvm.ferriteFlags());
            flags.addAll(List.of("--module-path", String.join(File.pathSeparator, modulePath),
                    "--add-modules", "ALL-MODULE-PATH"));
            ChildJvm.Result r = ChildJvm.run(flags, Map.of(), ModulePathProbe.class, MODULES.toArray(new String[0]));
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            assertTrue(r.stdout().contains("api module: dev.ferrite"), r.stdout());
            assertTrue(r.stdout().contains("backends: [bytebuffer, shm, unsafe]") || r.stdout().contains(
                    "backends: [bytebuffer, ffm, shm, unsafe]"), r.stdout());
            assertTrue(r.stdout().contains("value=42"), r.stdout());
        } finally {
            System.setProperty("java.class.path", previous);
        }
    }
}
