package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link KvServer} embedded in a program is a guest in its JVM: it sets no system property,
 * starts no process (no {@code renice} unless asked), does not busy-poll unless asked, and its
 * threads are daemons named {@code ferrite-...} that end when it closes (the growth thread that
 * makes the collection store's memory ahead of need among them).
 */
class EmbeddedServerMannersTest extends ServerFixture {

    @Test
    void startingAndServingChangesNoSystemPropertyAndStartsNoProcess() throws Exception {
        Properties before = (Properties) System.getProperties().clone();
        Set<Long> childrenBefore = children();
        startServer(b -> b.httpPort(0).fsync(FsyncPolicy.EVERYSEC));
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SET", "k", "v"));
        }
        Thread.sleep(1_200); // the fsync thread has run once
        assertEquals(0, server.busyPollMicros(), "no busy polling unless asked");
        assertEquals(before, System.getProperties(), "no system property set or changed");
        assertEquals(childrenBefore, children(), "no process started");
    }

    @Test
    void itsThreadsAreDaemonsNamedFerriteThatEndOnClose() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        startServer(b -> b.httpPort(0).fsync(FsyncPolicy.EVERYSEC));
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SET", "k", "v"));
            assertEquals("OK", c.call("MSET", "a", "1", "b", "2"));
            String value = "v".repeat(1000);
            for (int i = 0; i < 2_000; i++) { // about 2 MiB of a hash: the store makes its next extent ahead
                c.send("HSET", "h", "field-" + i, value);
            }
            for (int i = 0; i < 2_000; i++) {
                assertEquals(1L, c.read());
            }
        }
        Set<Thread> started = new HashSet<>(Thread.getAllStackTraces().keySet());
        started.removeAll(before);
        assertFalse(started.isEmpty(), "the server runs threads");
        assertTrue(started.stream().anyMatch(t -> t.getName().equals("ferrite-growth")),
                "the collection store made an extent ahead of need on its growth thread: " + started);
        for (Thread t : started) {
            assertTrue(t.getName().startsWith("ferrite-"), t.getName() + " is not named ferrite-...");
            assertTrue(t.isDaemon(), t.getName() + " is not a daemon");
        }
        server.close();
        server = null;
        for (Thread t : started) {
            t.join(10_000);
            assertFalse(t.isAlive(), t.getName() + " still runs after the server closed");
        }
    }

    private static Set<Long> children() {
        return ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    }
}
