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
 * Asks HotSpot's C2 compiler, once per JVM, to always inline the producer's payload copy and
 * header store ({@link #INLINED}) into the queue's methods it compiles, by adding a compiler
 * directive through the JVM's own diagnostic command ({@code jcmd PID Compiler.directives_add}).
 *
 * <p>Why: C2 inlines a callee of over 35 bytecodes only at a call site that ran in at least a
 * quarter of the caller's profiled invocations (JDK 18 and later, JDK-8272873; JDK 17 also
 * inlined a site that ran often in absolute terms). A producer that meets a full
 * ring while its consumer is still warming up runs {@code offer} many times per message it sends,
 * so the copy and the header store can look cold in the profile C2 compiles from, and the JVM then
 * keeps a slower compiled producer for its life (docs/PERFORMANCE.md, Queue). The directive
 * matches only {@code dev/ferrite/queue} methods, so it changes no other code's compilation, and
 * the JVM's {@code -XX:CompileCommand} options still apply; a directive of the user's own for
 * those methods is shadowed (the newest directive that matches a method wins).
 *
 * <p>Off with {@code -Dferrite.queue.jitHints=false} (or {@code FERRITE_QUEUE_JITHINTS=false}). On a
 * JVM without the diagnostic command (not HotSpot, or without the {@code java.management} module)
 * it does nothing; a refusal is logged at debug level and never fails the caller. Thread-safe.
 */
final class JitHints {

    private static final Logger LOG = LoggerFactory.getLogger(JitHints.class);

    /** Methods of this package C2 must inline, as {@code Class.method} (see JitHintsTest). */
    static final String[] INLINED = {"RingProducer.copyPayload", "RingProducer.endRecord"};

    /** The setting that turns the directive off. */
    static final String SETTING = "queue.jitHints";

    private JitHints() {
    }

    /**
     * Adds the directive the first time it is called in this JVM, unless the setting is false.
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
            inline.append(inline.length() == 0 ? "" : ", ").append("\"+dev/ferrite/queue/").append(method).append('"');
        }
        return "[{match: \"dev/ferrite/queue/*.*\", c2: {inline: [" + inline + "]}}]";
    }

    /** The holder idiom: the directive is added while this class initialises, once per JVM. */
    private static final class Once {
        static final boolean ADDED = add();

        private static boolean add() {
            if (!Settings.flag(SETTING, true)) {
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
