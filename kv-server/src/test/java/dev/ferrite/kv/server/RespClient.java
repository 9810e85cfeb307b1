package dev.ferrite.kv.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for tests: sends commands as arrays of bulk strings (or raw bytes) and
 * parses replies into Java values: simple strings as {@code String}, errors as {@link Err}, integers
 * as {@code Long}, bulk strings as {@code String} (UTF-8), nil as null, arrays as {@code List}.
 */
final class RespClient implements AutoCloseable {

    /** An error reply. */
    record Err(String text) {
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Sends one command and returns its reply. */
    Object call(String... args) throws IOException {
        send(args);
        return read();
    }

    /** Sends one command without reading its reply (for pipelines). */
    void send(String... args) throws IOException {
        out.write(encode(args));
        out.flush();
    }

    /** Sends raw bytes. */
    void sendRaw(String raw) throws IOException {
        out.write(raw.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    static byte[] encode(String... args) {
        StringBuilder s = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            s.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @return the next reply */
    Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new IOException("connection closed");
        }
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Err(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(n);
                in.readNBytes(2);
                return new String(data, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply type " + (char) type);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed inside a reply");
            }
            b.write(c);
        }
        in.read(); // \n
        return b.toString(StandardCharsets.UTF_8);
    }

    /** @return true if the server closed the connection (end of stream within the socket timeout) */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
