package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP requests sent to the RESP port, as a web page's form or fetch can send them: the
 * connection is closed at the request line ({@code POST}) or the first {@code Host:} line, and
 * none of the commands hidden in the body run.
 */
class CrossProtocolTest extends ServerFixture {

    /** Sends the bytes on a new RESP connection and returns what the server sent until it closed. */
    private String hurl(String bytes) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(bytes.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1); // ends when the server closes
        }
    }

    @Test
    void aPostWithCommandsInItsBodyIsClosedBeforeAnyRuns() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port())) {
            c.call("SET", "kept", "1");
        }
        String body = "SET attacked yes\r\nFLUSHDB\r\n";
        String sent = hurl("POST / HTTP/1.1\r\nHost: evil.example\r\nContent-Type: text/plain\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body);
        assertEquals("", sent, "the connection closes without an answer");
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("1", c.call("GET", "kept"), "FLUSHDB in the body did not run");
            assertEquals(null, c.call("GET", "attacked"), "SET in the body did not run");
            assertTrue(((String) c.call("INFO", "stats")).contains("cross_protocol_closed:1"));
        }
    }

    @Test
    void aHostLineClosesTheConnectionWhateverCameBefore() throws Exception {
        startServer();
        // A GET request line is three words: GET's arity error; its Host line then closes the connection.
        String sent = hurl("GET /x HTTP/1.1\r\nhost: localhost\r\n\r\nSET attacked yes\r\n");
        assertEquals("-ERR wrong number of arguments for 'get' command\r\n", sent);
        // As a RESP array too, and before the client logged in.
        server.close();
        startServer(b -> b.requirePassword("secret"));
        assertEquals("", hurl("*2\r\n$5\r\nHOST:\r\n$1\r\nx\r\n*3\r\n$3\r\nSET\r\n$8\r\nattacked\r\n$3\r\nyes\r\n"));
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("OK", c.call("AUTH", "secret"));
            assertEquals(null, c.call("GET", "attacked"));
            assertEquals("PONG", c.call("PING"), "other clients go on");
        }
    }

    @Test
    void pipelinedCommandsBeforeThePostRunAndNothingAfter() throws Exception {
        startServer();
        String sent = hurl("SET before 1\r\nPOST / HTTP/1.1\r\nSET after 1\r\n");
        assertEquals("+OK\r\n", sent);
        try (RespClient c = new RespClient(server.port())) {
            assertEquals("1", c.call("GET", "before"));
            assertEquals(null, c.call("GET", "after"));
        }
    }
}
