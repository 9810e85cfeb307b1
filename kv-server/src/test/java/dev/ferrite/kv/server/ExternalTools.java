package dev.ferrite.kv.server;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

/**
 * Finds the Debian programs the server tests drive (redis-cli, redis-benchmark, nutcracker):
 * {@code .ci/run} installs them, so in CI a missing one fails the test; elsewhere it is skipped
 * with a message naming the package.
 */
final class ExternalTools {

    private ExternalTools() {
    }

    /** @return the program's path on PATH; fails (CI) or aborts (elsewhere) if it is missing */
    static String require(String name, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        if (System.getenv("CI") != null) {
            fail(name + " is not installed: .ci/run installs Debian's " + debianPackage);
        }
        abort(name + " is not installed (Debian package " + debianPackage + "); skipped outside CI");
        return null;
    }
}
