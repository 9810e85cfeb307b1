package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A {@link KvServer} embedded in a program is a guest in its JVM: it sets no system property,
 * starts no process (no {@code renice} unless asked) and does not busy-poll unless asked.
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

    private static Set<Long> children() {
        return ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    }
}
