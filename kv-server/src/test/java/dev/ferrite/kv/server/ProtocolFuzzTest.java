package dev.ferrite.kv.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile input on both ports — random bytes, truncated and mutated RESP frames, huge declared
 * lengths, slow writers, HTTP garbage — after which the server still answers and the data is
 * exactly what it was.
 */
class ProtocolFuzzTest extends ServerFixture {

    @BeforeEach
    void start() {
        startServer(b -> b.httpPort(0).threads(2));
    }

    /** @return every key and value of database 0, as the server reports them, sorted by key */
    private List<String> snapshot() throws IOException {
        try (RespClient c = new RespClient(server.port())) {
            @SuppressWarnings("unchecked")
            List<Object> keys = new ArrayList<>((List<Object>) c.call("KEYS", "*"));
            keys.sort(null);
            List<String> out = new ArrayList<>();
            for (Object k : keys) {
                out.add(k + "=" + c.call("GET", (String) k));
            }
            return out;
        }
    }

    /** Sends bytes on a fresh connection, reads until the server closes or goes quiet, then closes. */
    private static void hurl(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(50);
            OutputStream out = s.getOutputStream();
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException closedEarly) {
                return; // the server closed on an earlier part of the garbage: fine
            }
            InputStream in = s.getInputStream();
            byte[] buf = new byte[4096];
            try {
                while (in.read(buf) >= 0) {
                    // drain replies and errors
                }
            } catch (SocketTimeoutException | java.net.SocketException quiet) {
                // waiting for more input, or reset: either way this connection is done
            }
        }
    }

    @Test
    void garbageChangesNothingAndTheServerGoesOn() throws Exception {
        try (RespClient c = new RespClient(server.port())) {
            for (int i = 0; i < 200; i++) {
                c.call("SET", "key:" + i, "value:" + i);
            }
        }
        List<String> before = snapshot();
        Random r = new Random(20261123);
        byte[] valid = RespClient.encode("SET", "key:7", "CHANGED-BY-FUZZ");
        for (int round = 0; round < 180; round++) {
            byte[] payload;
            switch (round % 6) {
                case 0 -> { // random bytes
                    payload = new byte[1 + r.nextInt(300)];
                    r.nextBytes(payload);
                }
                case 1 -> { // a valid SET cut short: never applied
                    payload = java.util.Arrays.copyOf(valid, r.nextInt(valid.length - 1));
                }
                case 2 -> { // a valid SET with one byte of its framing changed
                    payload = valid.clone();
                    int at = r.nextInt(12); // inside "*3\r\n$3\r\nSET\r\n"
                    payload[at] = (byte) (payload[at] == '$' ? '*' : r.nextInt(256));
                    if (payload[at] == valid[at]) {
                        payload[at] ^= 0x40;
                    }
                    payload = java.util.Arrays.copyOf(payload, valid.length - 2); // and cut before its end
                }
                case 3 -> { // huge or negative declared lengths
                    String[] huge = {"*2147483647\r\n", "*99999999999999999999\r\n", "$-5\r\n", "*1\r\n$2147483647\r\n",
                            "*3\r\n$3\r\nSET\r\n$5\r\nkey:1\r\n$1073741824\r\nabc", "*-7\r\n*1\r\n$-1\r\n", "*1\r\n*1\r\n"};
                    payload = huge[r.nextInt(huge.length)].getBytes(StandardCharsets.ISO_8859_1);
                }
                case 4 -> { // an endless inline line
                    payload = ("SET key:3 " + "x".repeat(70_000)).getBytes(StandardCharsets.ISO_8859_1);
                }
                default -> { // HTTP garbage on the RESP port
                    payload = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
                }
            }
            hurl(server.port(), payload);
            byte[] httpGarbage = new byte[1 + r.nextInt(200)];
            r.nextBytes(httpGarbage);
            hurl(server.httpPort(), httpGarbage);
        }
        // Slow writers: a valid GET a byte at a time, and a PUT-less HTTP request dribbled in.
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            for (byte b : RespClient.encode("GET", "key:42")) {
                s.getOutputStream().write(b);
                s.getOutputStream().flush();
                Thread.sleep(2);
            }
            byte[] reply = new byte["$8\r\nvalue:42\r\n".length()];
            new java.io.DataInputStream(s.getInputStream()).readFully(reply);
            assertEquals("$8\r\nvalue:42\r\n", new String(reply, StandardCharsets.ISO_8859_1));
        }
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("PONG", c.call("PING"));
            assertTrue(((String) c.call("INFO", "stats")).contains("protocol_errors:"));
        }
        assertEquals(before, snapshot(), "garbage changed the data");
    }
}
