package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ferrite.ChunkPool;
import dev.ferrite.PoolSpec;
import dev.ferrite.Segment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Opt-in leak detection: with {@code ferrite.leakDetection=true}, a handle collected without
 * {@code close()} is logged with the stack of where it was allocated, by the next allocation or
 * the pool's close; a closed one is not; no thread is started for it.
 */
public interface LeakDetectionContract extends BackendFixture {

    /** An unclosed handle is reported with its allocation stack, a closed one is not. */
    @Test
    default void unclosedHandlesAreReportedWithTheirAllocationStack() throws Exception {
        Logger leakLog = (Logger) LoggerFactory.getLogger("dev.ferrite.leak");
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        leakLog.addAppender(appender);
        String previous = System.setProperty("ferrite.leakDetection", "true");
        try (TestPool tp = pool(PoolSpec.anonymous().chunkSize(4096).capacity(1 << 20).build())) {
            restore(previous);
            closeOne(tp.pool());
            leakOne(tp.pool());
            ILoggingEvent report = null;
            for (int i = 0; i < 200 && report == null; i++) {
                System.gc();
                Thread.sleep(25);
                tp.pool().allocate(1).close(); // reports what the collector found since the last allocation
                List<ILoggingEvent> events;
                synchronized (appender) {
                    events = List.copyOf(appender.list);
                }
                report = events.stream().filter(e -> e.getFormattedMessage().contains("LEAK")).findFirst().orElse(null);
            }
            assertNotNull(report, "no leak report after repeated GC");
            assertTrue(report.getFormattedMessage().contains("12345 bytes"), report.getFormattedMessage());
            assertNotNull(report.getThrowableProxy(), "the report carries the allocation stack");
            boolean namesAllocator = java.util.Arrays.stream(report.getThrowableProxy().getStackTraceElementProxyArray())
                    .anyMatch(f -> f.getStackTraceElement().getMethodName().equals("leakOne"));
            assertTrue(namesAllocator, "the stack shows where the segment was allocated");
            assertFalse(appender.list.stream().anyMatch(e -> e.getFormattedMessage().contains("777 bytes")),
                    "a closed handle is not reported");
            assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().contains("leak")),
                    "leak detection runs no thread of its own");
        } finally {
            restore(previous);
            leakLog.detachAppender(appender);
        }
    }

    private static void restore(String previous) {
        if (previous == null) {
            System.clearProperty("ferrite.leakDetection");
        } else {
            System.setProperty("ferrite.leakDetection", previous);
        }
    }

    private static void leakOne(ChunkPool pool) {
        Segment s = pool.allocate(12345);
        s.putByte(0, (byte) 1);
    }

    private static void closeOne(ChunkPool pool) {
        pool.allocate(777).close();
    }
}
