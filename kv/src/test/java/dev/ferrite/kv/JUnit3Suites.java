package dev.ferrite.kv;

import junit.framework.Test;
import junit.framework.TestFailure;
import junit.framework.TestResult;
import junit.framework.TestSuite;
import org.junit.jupiter.api.DynamicTest;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs JUnit 3 suites (what Guava's testlib builds) inside JUnit 5 tests, one test per sub-suite:
 * its tens of thousands of cases run in-process without a report event each (the build's test
 * report would spend four times as long as the cases themselves), and a sub-suite with failing
 * cases fails with each one named and its message.
 */
final class JUnit3Suites {

    /** Failing cases named in a failure's message; the rest are counted. */
    private static final int NAMED = 30;

    private JUnit3Suites() {
    }

    /** @return a test per sub-suite of {@code all}, named as it is */
    static Stream<DynamicTest> eachOf(TestSuite all) {
        return Collections.list(all.tests()).stream()
                .map(sub -> DynamicTest.dynamicTest(String.valueOf(sub), () -> assertPasses(sub)));
    }

    /** Runs a suite and fails, naming its failing cases, unless every case ran and passed. */
    static void assertPasses(Test suite) {
        TestResult result = new TestResult();
        suite.run(result);
        List<String> problems = new ArrayList<>();
        for (TestFailure f : Collections.list(result.failures())) {
            problems.add(f.failedTest() + ": " + f.exceptionMessage());
        }
        for (TestFailure f : Collections.list(result.errors())) {
            problems.add(f.failedTest() + ": " + f.thrownException());
        }
        if (!problems.isEmpty()) {
            fail(problems.size() + " of " + result.runCount() + " cases of " + suite + " failed:\n"
                    + String.join("\n", problems.subList(0, Math.min(NAMED, problems.size())))
                    + (problems.size() > NAMED ? "\n..." : ""));
        }
        assertEquals(suite.countTestCases(), result.runCount(), "cases of " + suite + " run");
    }
}
