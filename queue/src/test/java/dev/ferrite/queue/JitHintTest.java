package dev.ferrite.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's optional {@code -XX:CompileCommand=inline,...} flags name methods that exist: HotSpot
 * ignores a pattern that matches nothing, so a rename would silently turn the advice into a no-op.
 */
class JitHintTest {

    private static final Pattern HINT = Pattern.compile("CompileCommand=inline,dev\\.ferrite\\.queue\\.(\\w+)::(\\w+)");

    @Test
    void everyInlineHintInTheReadmeNamesAMethodOfTheQueue() throws IOException, ClassNotFoundException {
        String readme = Files.readString(readme());
        Matcher m = HINT.matcher(readme);
        int hints = 0;
        while (m.find()) {
            Class<?> type = Class.forName("dev.ferrite.queue." + m.group(1));
            String method = m.group(2);
            long declared = Arrays.stream(type.getDeclaredMethods()).map(Method::getName).filter(method::equals).count();
            assertEquals(1, declared, type.getName() + " must declare exactly one method " + method
                    + ", as the README's JVM flags name it");
            hints++;
        }
        assertTrue(hints >= 2, "the README names " + hints + " inline hints, expected the producer's two");
    }

    private static Path readme() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "README.md not found above " + Path.of("").toAbsolutePath());
        return dir.resolve("README.md");
    }
}
