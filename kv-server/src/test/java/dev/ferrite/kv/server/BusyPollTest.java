package dev.ferrite.kv.server;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --busy-poll}: the strategy's decisions on a clock the test moves, and real servers on
 * both transports that answer while polling and go to sleep once idle.
 */
class BusyPollTest {

    @TempDir
    Path dir;

    /** A clock the test sets, in nanoseconds. */
    private long now = 1_000_000;
    /** What the next poll finds ready, and how many polls there were. */
    private int ready;
    private final AtomicInteger polls = new AtomicInteger();

    private int decide(BusyPoll strategy, boolean hasTasks) throws Exception {
        return strategy.calculateStrategy(() -> {
            polls.incrementAndGet();
            return ready;
        }, hasTasks);
    }

    @Test
    void itPollsForTheWindowAfterWorkThenSleepsAndPollsAgainAfterWakingUp() throws Exception {
        BusyPoll strategy = new BusyPoll(30_000, () -> now);
        ready = 3;
        assertEquals(3, decide(strategy, false), "ready events are handed to the loop");
        ready = 0;
        now += 29_999;
        assertEquals(SelectStrategy.CONTINUE, decide(strategy, false), "within 30 µs of the last work: poll again");
        now += 1;
        assertEquals(SelectStrategy.SELECT, decide(strategy, false), "30 µs without work: block");
        now += 5_000_000;
        assertEquals(0, decide(strategy, false), "back from the blocking wait: that counts as work");
        now += 29_999;
        assertEquals(SelectStrategy.CONTINUE, decide(strategy, false));
        now += 20_000;
        assertEquals(0, decide(strategy, true), "tasks waiting: the loop runs them, and that is work");
        now += 29_999;
        assertEquals(SelectStrategy.CONTINUE, decide(strategy, false));
        now += 1;
        assertEquals(SelectStrategy.SELECT, decide(strategy, false));
        assertEquals(8, polls.get(), "every decision polls once, without blocking");
    }

    @Test
    void aWindowMustBePositiveAndTheServerSettingIsBounded() {
        assertThrows(IllegalArgumentException.class, () -> new BusyPoll(0, System::nanoTime));
        assertEquals("busy-poll -1 µs must be from 0 (off) to 10000",
                assertThrows(dev.ferrite.FerriteException.class, () -> KvServer.builder().busyPollMicros(-1)).getMessage());
        assertEquals("busy-poll 10001 µs must be from 0 (off) to 10000",
                assertThrows(dev.ferrite.FerriteException.class,
                        () -> ServerOptions.parse(new String[] {"--busy-poll", "10001"})).getMessage());
    }

    @Test
    void anEpollServerThatPollsAnswersAndSleepsWhenIdle() throws Exception {
        answersAndSleeps(null);
    }

    @Test
    void aNioServerThatPollsAnswersAndSleepsWhenIdle() throws Exception {
        answersAndSleeps("nio");
    }

    /** 2 ms windows: the loop threads may use at most a quarter of the 400 ms that follow the last request. */
    private void answersAndSleeps(String transport) throws Exception {
        String before = System.getProperty("ferrite.server.transport");
        if (transport != null) {
            System.setProperty("ferrite.server.transport", transport);
        }
        try (KvServer server = ServerOptions.parse(new String[] {"--port", "0", "--http-port", "-1",
                "--data", dir.resolve("data").toString(), "--threads", "2", "--busy-poll", "2000"}).start()) {
            boolean linuxX64 = System.getProperty("os.name").equals("Linux")
                    && System.getProperty("os.arch").matches("amd64|x86_64");
            assertEquals(transport != null ? transport : linuxX64 ? "epoll" : "nio", server.transport());
            try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
                for (int i = 0; i < 2_000; i++) {
                    assertEquals("OK", jedis.set("k" + i, "v" + i));
                    assertEquals("v" + i, jedis.get("k" + i));
                }
                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                long cpu0 = loopCpuNanos(threads);
                long t0 = System.nanoTime();
                Thread.sleep(400);
                long cpu = loopCpuNanos(threads) - cpu0;
                long wall = System.nanoTime() - t0;
                assertTrue(cpu < wall / 4, "event loops used " + TimeUnit.NANOSECONDS.toMillis(cpu)
                        + " ms of CPU in " + TimeUnit.NANOSECONDS.toMillis(wall) + " ms of idleness");
                assertEquals("v1999", jedis.get("k1999"), "it wakes up for the next request");
            }
        } finally {
            if (before == null) {
                System.clearProperty("ferrite.server.transport");
            } else {
                System.setProperty("ferrite.server.transport", before);
            }
        }
    }

    /** @return CPU time of every Netty event-loop thread of this JVM */
    private static long loopCpuNanos(ThreadMXBean threads) {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("epollEventLoopGroup") || t.getName().startsWith("nioEventLoopGroup")) {
                sum += Math.max(0, threads.getThreadCpuTime(t.getId()));
            }
        }
        return sum;
    }
}
