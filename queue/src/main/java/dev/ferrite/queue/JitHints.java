package dev.ferrite.queue;

import dev.ferrite.internal.Settings;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the user turns it on ({@code -Dferrite.queue.jitHints=true} or {@code
 * FERRITE_QUEUE_JITHINTS=true}; off by default, as it changes how the whole JVM compiles), asks
 * HotSpot's C2 compiler, once per JVM, to always inline the calls on the queue's per-message
 * paths ({@link #INLINED}) into the queue's methods it compiles, and never the producer's rare paths
 * ({@link #NOT_INLINED}), by adding a compiler directive through the JVM's own diagnostic command
 * ({@code jcmd PID Compiler.directives_add}).
 *
 * <p>Why: C2 decides from the profile whether to inline a call, and a JVM keeps the decision for
 * its life. Since JDK 18 (JDK-8272873) it inlines a callee of over 35 bytecodes only at a call
 * site that ran in at least a quarter of the caller's profiled invocations, and any callee only
 * where the site has a count at all. A producer that meets a full ring while its consumer warms up
 * runs {@code offer} many times per message, so the copy and the header store can look cold; a
 * consumer that finds the ring empty runs {@code poll} many times per message, so the record
 * check can; and the JDK's own small checks inside {@code Unsafe.copyMemory} carry a profile
 * shared by every caller in the JVM. A JVM that left one of those calls out of line (spilling
 * every register around it) ran slower per message for its life. The directive matches only compilations rooted in {@code dev/ferrite/queue} methods, so
 * it changes no other code's compilation, and the JVM's {@code -XX:CompileCommand} options still
 * apply; a directive of the user's own for those methods is shadowed (the newest directive that
 * matches a method wins).
 *
 * <p>On a JVM without the diagnostic command (not HotSpot, or without the {@code java.management} module)
 * it does nothing; a refusal is logged at debug level and never fails the caller. Thread-safe.
 */
final class JitHints {

    private static final Logger LOG = LoggerFactory.getLogger(JitHints.class);

    /**
     * Methods C2 must inline into the queue's compilations, as {@code package/Class.method} (every
     * overload); JitHintsTest checks that each exists, on the JDK that runs the tests.
     */
    static final String[] INLINED = {
        // the producer's payload copy and header store
        "dev/ferrite/queue/RingProducer.copyPayload", "dev/ferrite/queue/RingProducer.endRecord",
        // the consumer's check of each record header
        "dev/ferrite/queue/Ring.checkPublished",
        // the JDK's checks around the copy intrinsic, reached from the unsafe backend's copies and
        // from MemorySegment.copy; the same for the consumer's zeroing
        "jdk/internal/misc/Unsafe.copyMemory", "jdk/internal/misc/Unsafe.copyMemoryChecks",
        "jdk/internal/misc/Unsafe.setMemory", "jdk/internal/misc/Unsafe.setMemoryChecks",
        "jdk/internal/misc/Unsafe.checkSize", "jdk/internal/misc/Unsafe.checkPointer",
        "jdk/internal/misc/Unsafe.checkPrimitivePointer", "jdk/internal/misc/Unsafe.checkOffset",
        "jdk/internal/misc/Unsafe.checkNativeAddress", "jdk/internal/misc/Unsafe.checkPrimitiveArray",
    };

    /**
     * Methods C2 must leave out of line in the queue's compilations: the one-producer offer's rare
     * paths (a refresh of the freed position, the clearing of payload left a lap before, the TAIL
     * store once per lag). Inlined, each made the compiled {@code offer} differ with the moment it
     * was first taken while C2 profiled, and some JVMs kept a slower shape of the whole path for
     * their life; as calls they cost a call each time they run, which is rarely.
     */
    static final String[] NOT_INLINED = {
        "dev/ferrite/queue/OneToOneProducer.roomAfterReadingFreed", "dev/ferrite/queue/OneToOneProducer.leftPayload",
        "dev/ferrite/queue/OneToOneProducer.storeTail",
    };

    /** The setting that turns the directive on. */
    static final String SETTING = "queue.jitHints";

    private JitHints() {
    }

    /**
     * Adds the directive the first time it is called in this JVM, if the setting is true.
     *
     * @return whether the directive was added (by this or an earlier call)
     */
    static boolean install() {
        return Once.ADDED; // the first read initialises Once, which adds the directive
    }

    /** @return the directive, in HotSpot's JSON-like directive format */
    static String directive() {
        StringBuilder inline = new StringBuilder();
        for (String method : INLINED) {
            inline.append(inline.length() == 0 ? "" : ", ").append("\"+").append(method).append('"');
        }
        for (String method : NOT_INLINED) {
            inline.append(", \"-").append(method).append('"');
        }
        return "[{match: \"dev/ferrite/queue/*.*\", c2: {inline: [" + inline + "]}}]";
    }

    /** The holder idiom: the directive is added while this class initialises, once per JVM. */
    private static final class Once {
        static final boolean ADDED = add();

        private static boolean add() {
            if (!Settings.flag(SETTING, false)) {
                return false;
            }
            try {
                String output = addDirective(directive());
                boolean added = output.trim().startsWith("1 compiler directives added");
                if (!added) {
                    LOG.debug("compiler directive for the queue refused: {}", output.trim());
                }
                return added;
            } catch (Exception | LinkageError e) {
                LOG.debug("compiler directive for the queue not added", e);
                return false;
            }
        }
    }

    /**
     * Runs {@code Compiler.directives_add} on this JVM with a temporary file holding {@code directive}
     * (the command reads a file; it is deleted before this returns).
     *
     * @return the command's output
     * @throws Exception if the file cannot be written or the JVM has no such command
     */
    static String addDirective(String directive) throws Exception {
        Path file = Files.createTempFile("ferrite-queue-jit", ".json");
        try {
            Files.writeString(file, directive, StandardCharsets.US_ASCII);
            return diagnosticCommand("compilerDirectivesAdd", file.toString());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Runs one of this JVM's diagnostic commands ({@code jcmd PID ...}) in-process.
     *
     * @param operation the command's MBean operation, e.g. {@code compilerDirectivesPrint}
     * @param arguments its arguments
     * @return the command's output
     * @throws Exception if the JVM has no such command or it fails
     */
    static String diagnosticCommand(String operation, String... arguments) throws Exception {
        Object output = ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), operation,
                new Object[] {arguments}, new String[] {String[].class.getName()});
        return String.valueOf(output);
    }
}
