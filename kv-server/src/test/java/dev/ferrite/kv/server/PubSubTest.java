package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Publish/subscribe beyond what Redis's {@code unit/pubsub} checks: order across event loops, the end
 * of a closed connection's subscriptions, a subscriber that never reads, SUBSCRIBE inside EXEC,
 * Jedis's subscriber API unchanged, and keyspace events of writes made over HTTP.
 */
class PubSubTest extends ServerFixture {

    @Test
    void messagesFromOtherConnectionsArriveInPublishOrderAfterTheSubscribeReply() throws Exception {
        startServer(b -> b.threads(2));
        try (RespClient sub = new RespClient(server.port()); RespClient pub1 = new RespClient(server.port());
             RespClient pub2 = new RespClient(server.port())) {
            assertEquals(List.of("subscribe", "c", 1L), sub.call("SUBSCRIBE", "c"));
            for (int i = 0; i < 500; i++) {
                // two publishers, likely on different event loops, one after the other
                assertEquals(1L, (i % 2 == 0 ? pub1 : pub2).call("PUBLISH", "c", Integer.toString(i)));
            }
            for (int i = 0; i < 500; i++) {
                assertEquals(List.of("message", "c", Integer.toString(i)), sub.read());
            }
        }
    }

    @Test
    void aClosedConnectionsSubscriptionsEnd() throws Exception {
        startServer();
        try (RespClient other = new RespClient(server.port())) {
            try (RespClient sub = new RespClient(server.port())) {
                sub.call("SUBSCRIBE", "a");
                sub.call("PSUBSCRIBE", "p*");
                assertEquals(List.of("a", 1L), other.call("PUBSUB", "NUMSUB", "a"));
                assertEquals(1L, other.call("PUBSUB", "NUMPAT"));
                String info = (String) other.call("INFO", "stats");
                assertTrue(info.contains("pubsub_channels:1\r\n") && info.contains("pubsub_patterns:1\r\n"), info);
                assertEquals(1L, other.call("PUBLISH", "a", "x"));
                assertEquals(1L, other.call("PUBLISH", "pq", "x"));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((!other.call("PUBSUB", "NUMSUB", "a").equals(List.of("a", 0L))
                    || !other.call("PUBSUB", "NUMPAT").equals(0L)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(List.of("a", 0L), other.call("PUBSUB", "NUMSUB", "a"));
            assertEquals(0L, other.call("PUBSUB", "NUMPAT"));
            assertEquals(List.of(), other.call("PUBSUB", "CHANNELS"));
            assertEquals(0L, other.call("PUBLISH", "a", "x"));
        }
    }

    @Test
    void aSubscriberThatNeverReadsIsDisconnectedAtItsOutputLimitAndPublishersGoOn() throws Exception {
        startServer(b -> b.maxOutputBufferBytes(1 << 20));
        byte[] big = new byte[64 << 10];
        java.util.Arrays.fill(big, (byte) 'x');
        String payload = new String(big, java.nio.charset.StandardCharsets.US_ASCII);
        try (Socket silent = new Socket("127.0.0.1", server.port()); RespClient pub = new RespClient(server.port())) {
            silent.setReceiveBufferSize(4096);
            silent.getOutputStream().write(RespClient.encode("SUBSCRIBE", "flood"));
            awaitSubscribers(pub, "flood", 1);
            int published = 0;
            long received = 1;
            while (received > 0 && published < 10_000) {
                received = (Long) pub.call("PUBLISH", "flood", payload); // never blocked by the silent one
                published++;
            }
            assertEquals(0L, received, "the subscriber was disconnected after " + published + " messages of 64 KiB");
            assertTrue(published < 10_000);
            assertEquals("PONG", pub.call("PING"));
        }
    }

    @Test
    void subscribeInsideExecGivesOneElementPerChannel() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("MULTI"));
            assertEquals("QUEUED", c.call("SUBSCRIBE", "a", "b"));
            assertEquals(List.of(List.of("subscribe", "a", 1L), List.of("subscribe", "b", 2L)), c.call("EXEC"));
            assertEquals(List.of("pong", ""), c.call("PING"), "subscribed now");
        }
    }

    @Test
    void jedisSubscribersReceiveMessagesAndPatternMessages() throws Exception {
        startServer();
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch subscribed = new CountDownLatch(2);
        CountDownLatch received = new CountDownLatch(2);
        JedisPubSub listener = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                got.add(channel + "=" + message);
                received.countDown();
            }

            @Override
            public void onPMessage(String pattern, String channel, String message) {
                got.add(pattern + ":" + channel + "=" + message);
                received.countDown();
            }

            @Override
            public void onSubscribe(String channel, int count) {
                subscribed.countDown();
                if (count == 1) {
                    psubscribe("news.*");
                }
            }

            @Override
            public void onPSubscribe(String pattern, int count) {
                subscribed.countDown();
            }
        };
        Thread t = new Thread(() -> {
            try (Jedis j = new Jedis("127.0.0.1", server.port())) {
                j.subscribe(listener, "news.sport");
            }
        }, "jedis-subscriber");
        t.start();
        try (Jedis pub = new Jedis("127.0.0.1", server.port())) {
            assertTrue(subscribed.await(10, TimeUnit.SECONDS));
            assertEquals(2L, pub.publish("news.sport", "goal"));
            assertTrue(received.await(10, TimeUnit.SECONDS));
            listener.punsubscribe();
            listener.unsubscribe();
            t.join(10_000);
            assertEquals(List.of("news.sport=goal", "news.*:news.sport=goal"), got);
            assertEquals(0L, pub.publish("news.sport", "late"));
        }
    }

    @Test
    void writesOverHttpPublishKeyspaceEventsToRespSubscribers() throws Exception {
        startServer(b -> b.httpPort(0));
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        try (RespClient admin = new RespClient(server.port()); RespClient sub = new RespClient(server.port())) {
            assertEquals("OK", admin.call("CONFIG", "SET", "notify-keyspace-events", "KEA"));
            assertEquals(List.of("psubscribe", "__keyspace@0__:*", 1L), sub.call("PSUBSCRIBE", "__keyspace@0__:*"));
            for (String method : new String[] {"PUT", "DELETE"}) {
                java.net.http.HttpRequest r = java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/kv/0/web"))
                        .method(method, method.equals("PUT") ? java.net.http.HttpRequest.BodyPublishers.ofString("v")
                                : java.net.http.HttpRequest.BodyPublishers.noBody()).build();
                assertTrue(http.send(r, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode() < 300);
            }
            assertEquals(List.of("pmessage", "__keyspace@0__:*", "__keyspace@0__:web", "set"), sub.read());
            assertEquals(List.of("pmessage", "__keyspace@0__:*", "__keyspace@0__:web", "del"), sub.read());
        }
    }

    private static void awaitSubscribers(RespClient c, String channel, long n) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!c.call("PUBSUB", "NUMSUB", channel).equals(List.of(channel, n)) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(List.of(channel, n), c.call("PUBSUB", "NUMSUB", channel));
    }
}
