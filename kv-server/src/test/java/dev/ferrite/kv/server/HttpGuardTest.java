package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a web page or a smuggling proxy can send to the HTTP port: a foreign Host (DNS rebinding),
 * a foreign Origin, two framings, a body over the limit. Each is refused, the connection closed,
 * and nothing ran.
 */
class HttpGuardTest extends ServerFixture {

    /** Sends raw bytes on a new connection; returns everything the server sent until it closed. */
    private String raw(String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
            s.setSoTimeout(10_000); // a connection left open fails the test with a timeout
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static String put(String host, String extraHeaders, String key) {
        return "PUT /v1/kv/0/" + key + " HTTP/1.1\r\nHost: " + host + "\r\n" + extraHeaders
                + "Content-Length: 5\r\n\r\nhello";
    }

    private Object get(String key) throws Exception {
        try (RespClient c = new RespClient(server.port())) {
            return c.call("GET", key);
        }
    }

    @Test
    void aForeignHostGets421AndNothingRuns() throws Exception {
        startServer(b -> b.httpPort(0));
        String reply = raw(put("rebound.evil.example:" + server.httpPort(), "", "k")
                + "GET /v1/kv/0/k HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assertTrue(reply.startsWith("HTTP/1.1 421 "), reply);
        assertTrue(reply.contains("rebound.evil.example"), "the refusal names the host: " + reply);
        assertTrue(reply.contains("connection: close"), reply);
        assertEquals(1, reply.split("HTTP/1.1 ").length - 1, "the request after it was not read: " + reply);
        assertEquals(null, get("k"));
        // The names that are allowed, with and without the port.
        for (String host : List.of("localhost", "localhost:" + server.httpPort(), "127.0.0.1:" + server.httpPort(),
                "[::1]:" + server.httpPort())) {
            String ok = raw(put(host, "Connection: close\r\n", "k"));
            assertTrue(ok.startsWith("HTTP/1.1 20"), host + ": " + ok);
        }
        assertEquals("hello", get("k"));
    }

    @Test
    void configuredNamesAreAllowed() throws Exception {
        startServer(b -> b.httpPort(0).httpAllowedHosts(List.of("kv.internal")));
        assertTrue(raw(put("KV.internal:80", "Connection: close\r\n", "k")).startsWith("HTTP/1.1 201 "));
        assertTrue(raw(put("other.internal", "Connection: close\r\n", "k2")).startsWith("HTTP/1.1 421 "));
        assertEquals(null, get("k2"));
    }

    @Test
    void aForeignOriginGets403AndNothingRuns() throws Exception {
        startServer(b -> b.httpPort(0));
        String reply = raw(put("localhost", "Origin: https://evil.example\r\n", "k"));
        assertTrue(reply.startsWith("HTTP/1.1 403 "), reply);
        assertTrue(raw(put("localhost", "Origin: null\r\n", "k")).startsWith("HTTP/1.1 403 "));
        assertEquals(null, get("k"));
        assertTrue(raw(put("localhost", "Origin: http://localhost:3000\r\nConnection: close\r\n", "k"))
                .startsWith("HTTP/1.1 201 "));
    }

    @Test
    void http11WithoutOneHostIsABadRequest() throws Exception {
        startServer(b -> b.httpPort(0));
        assertTrue(raw("GET /health HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 400 "));
        assertTrue(raw("GET /health HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n").startsWith("HTTP/1.1 400 "));
        assertTrue(raw("GET /health HTTP/1.0\r\n\r\n").startsWith("HTTP/1.1 200 "), "HTTP/1.0 needs no Host");
    }

    @Test
    void contentLengthWithTransferEncodingIs400AndClosed() throws Exception {
        startServer(b -> b.httpPort(0));
        // A smuggled second request hides in what one framing calls the body and the other does not.
        String smuggled = "GET /v1/kv/0/x HTTP/1.1\r\nHost: localhost\r\n\r\n";
        String reply = raw("PUT /v1/kv/0/k HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + smuggled);
        assertTrue(reply.startsWith("HTTP/1.1 400 "), reply);
        assertTrue(reply.contains("Content-Length and Transfer-Encoding"), reply);
        assertEquals(1, reply.split("HTTP/1.1 ").length - 1, reply);
        assertEquals(null, get("k"));
        String gzip = raw("PUT /v1/kv/0/k HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\n");
        assertTrue(gzip.startsWith("HTTP/1.1 400 "), gzip);
        assertEquals(null, get("k"));
        // Chunked alone is fine.
        assertTrue(raw("PUT /v1/kv/0/k HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n").startsWith("HTTP/1.1 201 "));
    }

    @Test
    void aBodyOverTheLimitGets413AndTheKeepAliveConnectionCloses() throws Exception {
        startServer(b -> b.httpPort(0).limits(new ServerLimits(1024, 1024, 1024, 1024)));
        // Keep-alive, and a body announced but never sent: the server answers and closes at once.
        String reply = raw("PUT /v1/kv/0/big HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4096\r\n\r\n");
        assertTrue(reply.startsWith("HTTP/1.1 413 "), reply);
        assertTrue(reply.contains("connection: close"), reply);
        // Chunked past the limit, as a client that never stops would send.
        String chunked = raw("PUT /v1/kv/0/big HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "400\r\n" + "x".repeat(1024) + "\r\n400\r\n" + "x".repeat(1024) + "\r\n");
        assertTrue(chunked.startsWith("HTTP/1.1 413 "), chunked);
        assertEquals(null, get("big"));
    }
}
