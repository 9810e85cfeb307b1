package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The HTTP API through java.net.http.HttpClient and raw sockets, sharing its data with RESP. */
class HttpApiTest extends ServerFixture {

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<byte[]> send(String method, String path, byte[] body, String... headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (headers.length > 0) {
            r.headers(headers);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Sends a raw request on a new connection and returns everything the server sends until it closes. */
    private String raw(String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void putGetHeadDeleteWithEncodedKeysAndTtl() throws Exception {
        startServer(b -> b.httpPort(0));
        assertEquals(201, send("PUT", "/v1/kv/0/greeting", "hello".getBytes()).statusCode());
        assertEquals(200, send("PUT", "/v1/kv/0/greeting", "hello, world".getBytes()).statusCode());
        HttpResponse<byte[]> got = send("GET", "/v1/kv/0/greeting", null);
        assertEquals(200, got.statusCode());
        assertEquals("hello, world", text(got));
        assertEquals("application/octet-stream", got.headers().firstValue("content-type").orElseThrow());
        HttpResponse<byte[]> head = send("HEAD", "/v1/kv/0/greeting", null);
        assertEquals(200, head.statusCode());
        assertEquals("12", head.headers().firstValue("content-length").orElseThrow());
        assertEquals(0, head.body().length);

        // Any bytes in a key, percent-encoded; '+' stays '+'.
        assertEquals(201, send("PUT", "/v1/kv/2/%00%FF%2F%20+", new byte[] {1, 2, 3}).statusCode());
        try (RespClient resp = new RespClient(server.port())) {
            resp.call("SELECT", "2");
            assertEquals(1L, resp.call("DBSIZE"));
            resp.call("SELECT", "0");
            assertEquals("hello, world", resp.call("GET", "greeting"), "HTTP and RESP share the data");
            resp.call("SET", "from-resp", "r");
        }
        assertArrayEquals(new byte[] {1, 2, 3}, send("GET", "/v1/kv/2/%00%FF%2F%20+", null).body());
        assertEquals("r", text(send("GET", "/v1/kv/0/from-resp", null)));

        assertEquals(201, send("PUT", "/v1/kv/0/short-lived?ttl-ms=150", "x".getBytes()).statusCode());
        HttpResponse<byte[]> withTtl = send("GET", "/v1/kv/0/short-lived", null);
        assertTrue(withTtl.headers().firstValue("x-ferrite-expire-at-ms").isPresent());
        Thread.sleep(250);
        assertEquals(404, send("GET", "/v1/kv/0/short-lived", null).statusCode());
        assertEquals(201, send("PUT", "/v1/kv/0/long-lived?ttl=100", "x".getBytes()).statusCode());
        try (RespClient resp = new RespClient(server.port())) {
            long ttl = (Long) resp.call("TTL", "long-lived");
            assertTrue(ttl > 95 && ttl <= 100, "ttl " + ttl);
        }

        assertEquals(204, send("DELETE", "/v1/kv/0/greeting", null).statusCode());
        assertEquals(404, send("DELETE", "/v1/kv/0/greeting", null).statusCode());
        assertEquals(404, send("GET", "/v1/kv/0/greeting", null).statusCode());
    }

    @Test
    void badRequestsGetClearErrors() throws Exception {
        startServer(b -> b.httpPort(0).limits(new ServerLimits(1024, 1 << 20, 64 << 10, 256L << 20)));
        HttpResponse<byte[]> badDb = send("GET", "/v1/kv/16/k", null);
        assertEquals(400, badDb.statusCode());
        assertTrue(text(badDb).contains("from 0 to 15"), text(badDb));
        assertEquals(400, send("PUT", "/v1/kv/0/k?ttl=-3", "v".getBytes()).statusCode());
        assertEquals(400, send("PUT", "/v1/kv/0/k?ttl=abc", "v".getBytes()).statusCode());
        assertTrue(raw("GET /v1/kv/0/bad%zzescape HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .startsWith("HTTP/1.1 400"));
        assertEquals(404, send("GET", "/nowhere", null).statusCode());
        assertEquals(405, send("POST", "/v1/kv/0/k", "v".getBytes()).statusCode());
        assertEquals(413, send("PUT", "/v1/kv/0/big", new byte[2048]).statusCode());
        assertEquals(404, send("GET", "/v1/kv/0/big", null).statusCode(), "nothing stored from a refused body");
        assertEquals(431, send("GET", "/health", null, "X-Huge", "h".repeat(10_000)).statusCode());
        String longLine = raw("GET /v1/kv/0/" + "k".repeat(5000) + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assertTrue(longLine.startsWith("HTTP/1.1 414"), longLine);
        // Garbage on a raw socket: 400 and closed; the server goes on serving.
        String reply = raw("\u0001\u0002 NOT HTTP AT ALL\r\n\r\n");
        assertTrue(reply.startsWith("HTTP/1.1 400"), reply);
        assertEquals(200, send("GET", "/health", null).statusCode());
    }

    @Test
    void keysAreListedPageByPageWithAPrefix() throws Exception {
        startServer(b -> b.httpPort(0));
        for (int i = 0; i < 250; i++) {
            assertEquals(201, send("PUT", "/v1/kv/1/user:" + i, "v".getBytes()).statusCode());
        }
        send("PUT", "/v1/kv/1/other", "v".getBytes());
        Set<String> keys = new HashSet<>();
        String cursor = "0";
        Pattern key = Pattern.compile("\"(user:[0-9]+)\"");
        int pages = 0;
        do {
            HttpResponse<byte[]> page = send("GET", "/v1/kv/1?prefix=user:&count=40&cursor=" + cursor, null);
            assertEquals(200, page.statusCode());
            assertEquals("application/json", page.headers().firstValue("content-type").orElseThrow());
            String body = text(page);
            Matcher m = key.matcher(body);
            while (m.find()) {
                keys.add(m.group(1));
            }
            assertTrue(!body.contains("other"), body);
            Matcher c = Pattern.compile("\"cursor\":\"([0-9]+)\"").matcher(body);
            assertTrue(c.find(), body);
            cursor = c.group(1);
            pages++;
        } while (!cursor.equals("0"));
        assertEquals(250, keys.size());
        assertTrue(pages >= 5, "pages: " + pages);
    }

    @Test
    void keysThatAreNoTextAreListedUrlEncodedAndCanBeReadBackThatWay() throws Exception {
        startServer(b -> b.httpPort(0));
        assertEquals(201, send("PUT", "/v1/kv/2/t:plain", "text".getBytes()).statusCode());
        // b : 0xFF 0x00 / — not UTF-8, with a NUL and a slash
        assertEquals(201, send("PUT", "/v1/kv/2/b%3A%FF%00%2F", "binary".getBytes()).statusCode());
        try (RespClient resp = new RespClient(server.port())) {
            assertEquals("OK", resp.call("SELECT", "2"));
            assertEquals(2L, resp.call("DBSIZE"));
        }

        assertEquals("{\"cursor\":\"0\",\"encoding\":\"utf-8\",\"keys\":[\"t:plain\"]}\n",
                text(send("GET", "/v1/kv/2?prefix=t:", null)));
        // A prefix is bytes too: %FF selects the binary key, whose page is URL-encoded.
        String page = text(send("GET", "/v1/kv/2?prefix=b%3A%FF", null));
        assertEquals("{\"cursor\":\"0\",\"encoding\":\"url\",\"keys\":[\"b%3A%FF%00%2F\"]}\n", page);
        HttpResponse<byte[]> back = send("GET", "/v1/kv/2/b%3A%FF%00%2F", null);
        assertEquals(200, back.statusCode());
        assertEquals("binary", text(back));
        // A page of both kinds is URL-encoded as a whole; encoding=url asks for that form always.
        String all = text(send("GET", "/v1/kv/2?count=10", null));
        assertTrue(all.contains("\"encoding\":\"url\"") && all.contains("\"t%3Aplain\"")
                && all.contains("\"b%3A%FF%00%2F\""), all);
        assertEquals("{\"cursor\":\"0\",\"encoding\":\"url\",\"keys\":[\"t%3Aplain\"]}\n",
                text(send("GET", "/v1/kv/2?prefix=t%3A&encoding=url", null)));
        HttpResponse<byte[]> bad = send("GET", "/v1/kv/2?encoding=base64", null);
        assertEquals(400, bad.statusCode());
        assertTrue(text(bad).contains("encoding 'base64' is not url"), text(bad));
        // A bad escape in the query or the key (java.net.URI refuses to send one: raw requests) is a 400
        // naming it, not a connection closed without an answer.
        String badPrefix = raw("GET /v1/kv/2?prefix=ab%2 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertTrue(badPrefix.startsWith("HTTP/1.1 400"), badPrefix);
        assertTrue(badPrefix.contains("escape"), badPrefix);
        String badKey = raw("GET /v1/kv/2/ab%G0 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertTrue(badKey.startsWith("HTTP/1.1 400"), badKey);
        assertTrue(badKey.contains("escape"), badKey);
        assertEquals(200, send("GET", "/v1/kv/2?prefix=t:", null).statusCode());
    }

    @Test
    void healthMetricsAndKeepAlive() throws Exception {
        startServer(b -> b.httpPort(0));
        assertEquals("ok\n", text(send("GET", "/health", null)));
        try (RespClient resp = new RespClient(server.port())) {
            resp.call("SET", "a", "1");
            resp.call("GET", "a");
            resp.call("GET", "missing");
        }
        String metrics = text(send("GET", "/metrics", null));
        assertTrue(metrics.contains("ferrite_commands_total{command=\"set\"} 1"), metrics);
        assertTrue(metrics.contains("ferrite_commands_total{command=\"get\"} 2"), metrics);
        assertTrue(metrics.contains("ferrite_keyspace_hits_total 1"), metrics);
        assertTrue(metrics.contains("ferrite_keyspace_misses_total 1"), metrics);
        assertTrue(metrics.contains("ferrite_keys{db=\"0\"} 1"), metrics);
        assertTrue(metrics.contains("ferrite_command_duration_seconds_bucket{le=\"+Inf\"} 3"), metrics);
        assertTrue(metrics.contains("# TYPE ferrite_command_duration_seconds histogram"), metrics);
        // Two requests on one connection: keep-alive.
        try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int i = 0; i < 2; i++) {
                out.write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                byte[] buf = new byte[512];
                int n = in.read(buf);
                String reply = new String(buf, 0, n, StandardCharsets.ISO_8859_1);
                assertTrue(reply.startsWith("HTTP/1.1 200") && reply.endsWith("ok\n"), reply);
            }
        }
    }

    @Test
    void thePasswordIsABearerToken() throws Exception {
        startServer(b -> b.httpPort(0).requirePassword("tok3n"));
        assertEquals(200, send("GET", "/health", null).statusCode(), "health needs no password");
        HttpResponse<byte[]> denied = send("PUT", "/v1/kv/0/k", "v".getBytes());
        assertEquals(401, denied.statusCode());
        assertTrue(denied.headers().firstValue("www-authenticate").orElseThrow().startsWith("Bearer"));
        assertEquals(401, send("GET", "/metrics", null, "Authorization", "Bearer wrong").statusCode());
        assertEquals(201, send("PUT", "/v1/kv/0/k", "v".getBytes(), "Authorization", "Bearer tok3n").statusCode());
        assertEquals("v", text(send("GET", "/v1/kv/0/k", null, "Authorization", "Bearer tok3n")));
    }
}
