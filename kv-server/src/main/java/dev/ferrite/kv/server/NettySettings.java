package dev.ferrite.kv.server;

import java.lang.management.ManagementFactory;

/**
 * Netty settings the runnable server ({@link Main}) applies to its own process before Netty's first
 * use; an embedded {@link KvServer} changes nothing in its host's JVM. On JDK 24+ Netty 4.1's use of
 * {@code sun.misc.Unsafe} makes the JVM print deprecation warnings unless it runs with
 * {@code --sun-misc-unsafe-memory-access=allow}; without that flag the server tells Netty not to use
 * Unsafe ({@code io.netty.noUnsafe=true}), which it supports fully. A setting the user made wins.
 */
final class NettySettings {

    private static final String NO_UNSAFE = "io.netty.noUnsafe";
    private static final String ALLOW_FLAG = "--sun-misc-unsafe-memory-access=allow";

    private NettySettings() {
    }

    /** Applies the settings; call before any Netty class is used. Idempotent. */
    static void apply() {
        if (Runtime.version().feature() >= 24 && System.getProperty(NO_UNSAFE) == null
                && !ManagementFactory.getRuntimeMXBean().getInputArguments().contains(ALLOW_FLAG)) {
            System.setProperty(NO_UNSAFE, "true");
        }
    }
}
