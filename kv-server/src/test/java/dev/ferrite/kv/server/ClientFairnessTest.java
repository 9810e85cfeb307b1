package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No client takes the others' memory or time: huge unfinished requests are bounded all together
 * (maxmemory-clients), and a client that pipelines without reading its replies is held at the
 * output watermark while the others are served.
 */
class ClientFairnessTest extends ServerFixture {

    private static final int MIB = 1 << 20;

    private static long info(RespClient c, String field) throws Exception {
        for (String line : ((String) c.call("INFO", "everything")).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1));
            }
        }
        throw new AssertionError("no " + field + " in INFO");
    }

    @Test
    void unfinishedHugeRequestsAreBoundedAllTogetherAndGivenBack() throws Exception {
        startServer(b -> b.limits(new ServerLimits(8 * MIB, 1024, 64 << 10, 9 * MIB, 32 * MIB)));
        List<Socket> senders = new ArrayList<>();
        try (RespClient observer = new RespClient(server.port())) {
            for (int i = 0; i < 10; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                s.setSoTimeout(10_000);
                senders.add(s);
                OutputStream out = s.getOutputStream();
                try {
                    out.write(("*3\r\n$3\r\nSET\r\n$2\r\nk" + i + "\r\n$" + 8 * MIB + "\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.write(new byte[MIB]); // a first part of the value; the rest comes later
                    out.flush();
                } catch (java.io.IOException closedByServer) {
                    // evicted while it sent
                }
                assertEquals("PONG", observer.call("PING"), "the others are served");
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (info(observer, "evicted_clients") < 6 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            long evicted = info(observer, "evicted_clients");
            assertTrue(evicted >= 6 && evicted <= 7, "at most 32 MiB of 8 MiB requests kept: " + evicted + " evicted");
            long held = info(observer, "mem_clients_requests");
            assertTrue(held <= 32 * MIB, held + " bytes held");
            // The clients that were kept finish their request and it runs.
            int finished = 0;
            for (int i = 0; i < senders.size(); i++) {
                Socket s = senders.get(i);
                try {
                    s.getOutputStream().write(new byte[7 * MIB]);
                    s.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    byte[] reply = s.getInputStream().readNBytes(5);
                    if (new String(reply, StandardCharsets.US_ASCII).equals("+OK\r\n")) {
                        finished++;
                        assertEquals(8 * MIB, ((String) observer.call("GET", "k" + i)).length());
                    }
                } catch (java.io.IOException closedByServer) {
                    // an evicted client
                }
            }
            assertEquals(10 - evicted, finished, "every client that was kept got its SET run");
            for (Socket s : senders) {
                s.close();
            }
            deadline = System.nanoTime() + 10_000_000_000L;
            while (info(observer, "mem_clients_requests") != 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, info(observer, "mem_clients_requests"), "everything given back once the requests ended");
        } finally {
            for (Socket s : senders) {
                s.close();
            }
        }
    }

    @Test
    void clientsThatDoNotReadCostTheOthersMillisecondsNotSeconds() throws Exception {
        startServer(b -> b.threads(1)); // one event loop: the non-readers and the PING share it
        String value = "v".repeat(100_000);
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("SET", "big", value));
        }
        int gets = 2000;
        byte[] pipeline;
        {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < gets; i++) {
                b.append("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n");
            }
            pipeline = b.toString().getBytes(StandardCharsets.US_ASCII);
        }
        List<Socket> silent = new ArrayList<>();
        try (RespClient pinger = new RespClient(server.port())) {
            for (int i = 0; i < 8; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                s.setReceiveBufferSize(64 << 10);
                s.setSoTimeout(30_000);
                silent.add(s);
                s.getOutputStream().write(pipeline);
                s.getOutputStream().flush();
            }
            long worst = 0;
            for (int i = 0; i < 40; i++) {
                long t0 = System.nanoTime();
                assertEquals("PONG", pinger.call("PING"));
                worst = Math.max(worst, System.nanoTime() - t0);
                Thread.sleep(25);
            }
            assertTrue(worst < 1_000_000_000L, "the slowest PING took " + worst / 1_000_000 + " ms");
            // A client that did not read is held, not dropped: it gets every reply once it reads.
            try (var in = new java.io.BufferedInputStream(silent.get(0).getInputStream(), 1 << 20)) {
                byte[] header = ("$100000\r\n").getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < gets; i++) {
                    byte[] got = in.readNBytes(header.length);
                    assertEquals(new String(header, StandardCharsets.US_ASCII), new String(got, StandardCharsets.US_ASCII),
                            "reply " + i);
                    in.skipNBytes(100_002); // the value and its CRLF
                }
            }
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }
}
