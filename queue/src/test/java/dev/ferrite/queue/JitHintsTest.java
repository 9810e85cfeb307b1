package dev.ferrite.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.testkit.ChildJvm;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compiler directive the first producer or consumer adds when the user turned it on
 * ({@link JitHints}): by default a JVM running producers and consumers holds no directive of
 * Ferrite's; with the setting on (property or environment variable) it names methods that exist
 * (HotSpot ignores a pattern that matches nothing, so a rename would silently undo it), and a fresh
 * JVM that opens producers, or only a consumer, holds it exactly once.
 */
class JitHintsTest {

    private static final String MATCH = "matching: dev/ferrite/queue/*.*";
    private static final String ON = "-Dferrite." + JitHints.SETTING + "=true";

    @TempDir
    Path dir;

    @Test
    void everyNamedMethodExists() throws ClassNotFoundException {
        assertTrue(JitHints.INLINED.length >= 3, "the producer's copy and header store, the consumer's record check");
        assertTrue(JitHints.NOT_INLINED.length >= 3, "the one-producer offer's rare paths");
        List<String> named = new ArrayList<>(Arrays.asList(JitHints.INLINED));
        named.addAll(Arrays.asList(JitHints.NOT_INLINED));
        for (String name : named) {
            int dot = name.lastIndexOf('.');
            Class<?> type = Class.forName(name.substring(0, dot).replace('/', '.'));
            String method = name.substring(dot + 1);
            long declared = Arrays.stream(type.getDeclaredMethods()).map(Method::getName).filter(method::equals).count();
            if (name.startsWith("dev/ferrite/")) {
                // Ours: exactly one, so that a new overload is a decision, not an accident.
                assertEquals(1, declared, type.getName() + " must declare exactly one method " + method
                        + ", as the compiler directive names it");
            } else {
                assertTrue(declared >= 1, type.getName() + " has no method " + method + " on this JDK");
            }
        }
    }

    @Test
    void byDefaultNoDirectiveIsAdded() throws Exception {
        for (String printed : List.of(probe(List.of(), Map.of()), probe(List.of(), Map.of(), "consumer"))) {
            assertTrue(printed.contains("installed=false"), printed);
            assertFalse(printed.contains(MATCH), printed);
        }
    }

    @Test
    void producersOfAJvmThatAsksAddTheDirectiveOnce() throws Exception {
        String printed = probe(List.of(ON), Map.of());
        assertTrue(printed.contains("installed=true"), printed);
        assertEquals(1, count(printed, MATCH), printed);
        for (String name : JitHints.INLINED) {
            assertTrue(printed.contains("+" + name), name + " not inlined in\n" + printed);
        }
        for (String name : JitHints.NOT_INLINED) {
            assertTrue(printed.contains("-" + name), name + " not left out of line in\n" + printed);
        }
    }

    @Test
    void aConsumerAloneAddsItToo() throws Exception {
        String printed = probe(List.of(), Map.of("FERRITE_QUEUE_JITHINTS", "true"), "consumer");
        assertTrue(printed.contains("installed=true"), printed);
        assertEquals(1, count(printed, MATCH), printed);
        assertTrue(printed.contains("dev/ferrite/queue/Ring.checkPublished"), printed);
    }

    private String probe(List<String> flags, Map<String, String> env, String... probeArgs) throws Exception {
        List<String> args = new ArrayList<>(ChildJvm.ferriteFlags());
        args.addAll(flags);
        List<String> mainArgs = new ArrayList<>(List.of(dir.toString()));
        mainArgs.addAll(List.of(probeArgs));
        ChildJvm.Result r = ChildJvm.run(args, env, JitHintsProbe.class, mainArgs.toArray(new String[0]));
        assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("Directive"), "no directives printed:\n" + r.stdout());
        return r.stdout();
    }

    private static int count(String text, String part) {
        Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
