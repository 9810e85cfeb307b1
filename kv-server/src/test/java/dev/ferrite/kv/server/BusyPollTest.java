package dev.ferrite.kv.server;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    void itPollsForTheWindowAfterTheWorkEndsThenSleepsAndPollsAgainAfterWakingUp() throws Exception {
        BusyPoll strategy = new BusyPoll(30_000, () -> now);
        ready = 3;
        assertEquals(3, decide(strategy, false), "ready events are handed to the loop");
        ready = 0;
        now += 500_000; // a pass longer than the window: the window starts when it ends
        assertEquals(SelectStrategy.CONTINUE, decide(strategy, false), "out of work: poll");
        now += 29_999;
        assertEquals(SelectStrategy.CONTINUE, decide(strategy, false), "within 30 µs of running out: poll again");
        ready = 1;
        now += 1;
        assertEquals(1, decide(strategy, false), "a poll that finds work hands it over");
        ready = 0;
        now += 10_000;
        assertEquals(SelectStrategy.CONTINUE, decide(strategy, false));
        now += 20_000;
        assertEquals(0, decide(strategy, true), "tasks waiting: the loop runs them, and that is work");
        assertEquals(SelectStrategy.CONTINUE, decide(strategy, false));
        now += 30_000;
        assertEquals(SelectStrategy.SELECT, decide(strategy, false), "30 µs without work: block");
        now += 5_000_000;
        assertEquals(0, decide(strategy, false), "back from the blocking wait: that counts as work");
        assertEquals(9, polls.get(), "every decision polls once, without blocking");
    }

    @Test
    void failedPollsBackOffExponentiallyAndAPollThatFindsWorkEndsTheBackOff() throws Exception {
        BusyPoll strategy = new BusyPoll(30_000, () -> now);
        List<Integer> pollsBeforeSleep = new ArrayList<>();
        // A request every millisecond: every poll fails. Count the polls after each request.
        for (int request = 0; request < 300; request++) {
            ready = 1;
            assertEquals(1, decide(strategy, false));
            ready = 0;
            int polled = 0;
            int decision;
            while ((decision = decide(strategy, false)) == SelectStrategy.CONTINUE) {
                polled++;
                now += 10_000;
            }
            assertEquals(SelectStrategy.SELECT, decision);
            pollsBeforeSleep.add(polled);
            now += 1_000_000;
            assertEquals(0, decide(strategy, false), "woken up by the next request");
        }
        // Polls after requests 0, 2, 5, 10, 19, 36, 69, 134, 199, 264: the gaps 2, 3, 5, 9, 17, 33, 65, 65, ...
        List<Integer> polledAt = new ArrayList<>();
        for (int i = 0; i < pollsBeforeSleep.size(); i++) {
            if (pollsBeforeSleep.get(i) > 0) {
                assertEquals(3, pollsBeforeSleep.get(i), "a poll lasts its window: 0, 10, 20 µs, then the 30th fails");
                polledAt.add(i);
            }
        }
        assertEquals(List.of(0, 2, 5, 10, 19, 36, 69, 134, 199, 264), polledAt);
        assertEquals(BusyPoll.MAX_SKIPS, strategy.skips() + 35, "backed off to the longest gap, 35 requests ago");

        // Requests within the window again: the next poll finds one, and from then on every one does.
        while (strategy.skips() > 0) {
            ready = 1;
            decide(strategy, false);
            ready = 0;
            assertEquals(SelectStrategy.SELECT, decide(strategy, false), "still backing off");
            decide(strategy, false);
        }
        for (int request = 0; request < 100; request++) {
            ready = 1;
            assertEquals(1, decide(strategy, false));
            ready = 0;
            assertEquals(SelectStrategy.CONTINUE, decide(strategy, false), "request " + request + ": poll");
            now += 5_000;
        }
        now += 30_000;
        assertEquals(SelectStrategy.SELECT, decide(strategy, false), "a failed poll after successful ones");
        assertEquals(1, strategy.skips(), "backs off from the start again");
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
        answersAndSleeps(null, "2000");
    }

    @Test
    void aNioServerThatPollsAnswersAndSleepsWhenIdle() throws Exception {
        answersAndSleeps("nio", "2000");
    }

    @Test
    void aServerDoesNotPollByDefault() throws Exception {
        answersAndSleeps(null, null);
    }

    /**
     * The loop threads may use at most a quarter of the 400 ms that follow the last request.
     *
     * @param busyPoll the {@code --busy-poll} flag, or null for the default
     */
    private void answersAndSleeps(String transport, String busyPoll) throws Exception {
        String before = System.getProperty("ferrite.server.transport");
        if (transport != null) {
            System.setProperty("ferrite.server.transport", transport);
        }
        List<String> flags = new ArrayList<>(List.of("--port", "0", "--http-port", "-1",
                "--data", dir.resolve("data").toString(), "--threads", "2"));
        if (busyPoll != null) {
            flags.addAll(List.of("--busy-poll", busyPoll));
        }
        try (KvServer server = ServerOptions.parse(flags.toArray(new String[0])).start()) {
            assertEquals(busyPoll == null ? 0 : Integer.parseInt(busyPoll), server.busyPollMicros());
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
