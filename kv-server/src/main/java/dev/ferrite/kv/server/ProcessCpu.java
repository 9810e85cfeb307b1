package dev.ferrite.kv.server;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time this process has used, in user and system mode, for INFO's cpu section: from
 * {@code /proc/self/stat} on Linux (in clock ticks of 1/100 s), elsewhere all of it counted as user
 * time from the JVM. Stateless.
 */
final class ProcessCpu {

    /** Linux's USER_HZ on every platform the JDK runs on. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcessCpu() {
    }

    /** @return {user seconds, system seconds} */
    static double[] seconds() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // After the command name: state is field 3, utime field 14, stime field 15 (1-based).
            return new double[] {Long.parseLong(f[11]) / TICKS_PER_SECOND, Long.parseLong(f[12]) / TICKS_PER_SECOND};
        } catch (IOException | RuntimeException e) {
            java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            long nanos = os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
            return new double[] {Math.max(0, nanos) / 1e9, 0};
        }
    }
}
