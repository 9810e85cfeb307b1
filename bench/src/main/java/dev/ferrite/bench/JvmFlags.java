package dev.ferrite.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags every forked benchmark JVM gets, for the running JDK: a heap of a fixed size for
 * the largest experiment, all of it touched at start (a heap that grew during a measurement would
 * touch its new pages in a collection pause: seconds, inside one iteration); what Chronicle Bytes,
 * Chronicle Map and Agrona need to reach JDK internals; on JDK 24+ the flags that let
 * {@code sun.misc.Unsafe} (the {@code unsafe} backend, Agrona, Chronicle) and Chronicle's native
 * calls run without warnings. {@code -Dchronicle.analytics.disable=true} keeps Chronicle from
 * sending telemetry.
 */
public final class JvmFlags {

    /**
     * The heap's pages touched at start: otherwise what a benchmark allocates lands in pages touched
     * for the first time, and a page fault per 4 KiB costs more than the operation (a 100-byte array
     * and a key fetch: 65 ns pre-touched, 360 ns not).
     */
    public static final String PRE_TOUCH = "-XX:+AlwaysPreTouch";

    private JvmFlags() {
    }

    /**
     * @return the command that starts a JVM like a forked benchmark's, up to its class path: this
     *         JDK's {@code java} and {@link #forks()}; a new list, for the caller to complete
     */
    public static List<String> forkCommand() {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(forks());
        return cmd;
    }

    /** @return the flags for a forked benchmark JVM (or a peer process it starts) on this JDK; a new list */
    public static List<String> forks() {
        List<String> flags = new ArrayList<>(List.of(
                "-Xms4g", "-Xmx4g", PRE_TOUCH, "-XX:MaxDirectMemorySize=8g",
                "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
                "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                // Chronicle Map compiles classes at run time, and reads JDK internals
                "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
                "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
                "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED",
                "-Dchronicle.analytics.disable=true",
                "-Dchronicle.disk.monitor.disable=true"));
        if (Runtime.version().feature() >= 24) {
            flags.add("--sun-misc-unsafe-memory-access=allow");
            flags.add("--enable-native-access=ALL-UNNAMED");
        }
        return flags;
    }
}
