package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.FerriteMap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The HTTP/1.1 API, one instance per connection:
 * <ul>
 *   <li>{@code GET|HEAD /v1/kv/{db}/{key}}: the value as the body ({@code application/octet-stream}),
 *       404 if absent; {@code X-Ferrite-Expire-At-Ms} when it expires</li>
 *   <li>{@code PUT /v1/kv/{db}/{key}[?ttl=SECONDS|ttl-ms=MS]}: sets the value to the body; 201 if the key
 *       was new, 200 if replaced</li>
 *   <li>{@code DELETE /v1/kv/{db}/{key}}: 204, or 404 if absent</li>
 *   <li>{@code GET /v1/kv/{db}?prefix=&cursor=&count=}: a page of keys as JSON
 *       {@code {"cursor":"…","keys":[…]}}; cursor "0" starts and ends (SCAN's cursor)</li>
 *   <li>{@code GET /health}: 200 {@code ok}, without a password; {@code GET /metrics}: Prometheus text</li>
 * </ul>
 * Keys are percent-encoded path segments (any bytes). With a password every route but
 * {@code /health} needs {@code Authorization: Bearer <password>} (else 401). Errors are JSON
 * {@code {"error":"…"}} with 400, 404 or 405; a body over the bulk limit gets 413, a request line
 * over 4 KiB 414 and headers over 8 KiB 431, then the connection is closed; keep-alive is honoured.
 */
final class HttpApi extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    private static final String PREFIX = "/v1/kv/";
    /** Most keys one listing page returns. */
    static final int MAX_PAGE = 10_000;

    private final ServerContext server;
    /** Requests waiting, in order and retained, for a database being created off the event loop. */
    private final DatabaseWait<FullHttpRequest> waiting = new DatabaseWait<>();
    /** Set while a request runs again after its database's creation failed off the event loop. */
    private boolean createInline;

    HttpApi(ServerContext server) {
        this.server = server;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (waiting.holds()) {
            waiting.add(request.retain()); // behind a request that waits for its database: keep the order
            return;
        }
        handle(ctx, request);
    }

    private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
        FullHttpResponse response;
        if (!request.decoderResult().isSuccess()) {
            Throwable cause = request.decoderResult().cause();
            HttpResponseStatus status = cause instanceof TooLongHttpHeaderException
                    ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                    : cause instanceof TooLongHttpLineException ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                    : HttpResponseStatus.BAD_REQUEST;
            response = error(status, "malformed request: " + cause.getMessage());
            HttpUtil.setKeepAlive(response, false);
            send(ctx, request, response);
            return;
        }
        CommandGate.Lane lane = server.gate.enter(); // as a command: never inside another's exclusive run
        try {
            response = route(request);
        } catch (DatabaseCreating wait) {
            waiting.begin(ctx, request.retain(), wait.ready, failed -> waiting.resume(ctx, failed,
                    inline -> createInline = inline, r -> runWaiting(ctx, r)));
            return;
        } catch (FerriteException e) {
            response = error(HttpResponseStatus.BAD_REQUEST, e.getMessage());
        } catch (IllegalArgumentException e) {
            // Netty's QueryStringDecoder on a bad %-escape in the path or the query
            response = error(HttpResponseStatus.BAD_REQUEST, "malformed request: " + e.getMessage());
        } finally {
            server.gate.exit(lane);
        }
        send(ctx, request, response);
    }

    /** Handles a request that waited for its database, then drops the reference taken when it was queued. */
    private void runWaiting(ChannelHandlerContext ctx, FullHttpRequest request) {
        try {
            if (ctx.channel().isActive()) {
                handle(ctx, request);
            }
        } finally {
            request.release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        waiting.onWritabilityChanged(ctx);
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        waiting.clear(FullHttpRequest::release);
    }

    private void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
        int code = response.status().code();
        server.stats.httpResponses[Math.min(5, code / 100)].increment();
        boolean keepAlive = HttpUtil.isKeepAlive(request) && HttpUtil.isKeepAlive(response)
                && request.decoderResult().isSuccess();
        if (!response.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
            HttpUtil.setContentLength(response, response.content().readableBytes());
        }
        HttpUtil.setKeepAlive(response, keepAlive);
        if (request.method().equals(HttpMethod.HEAD)) {
            response.content().clear(); // HEAD: the headers of a GET, no body
        }
        if (keepAlive) {
            ctx.writeAndFlush(response);
        } else {
            LingeringClose.respondAndClose(ctx, response);
        }
    }

    private FullHttpResponse route(FullHttpRequest request) {
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        String path = uri.rawPath();
        HttpMethod method = request.method();
        if (path.equals("/health")) {
            return method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD)
                    ? text(HttpResponseStatus.OK, "ok\n", "text/plain; charset=utf-8") : notAllowed();
        }
        if (server.requiresPassword() && !authorized(request)) {
            FullHttpResponse r = error(HttpResponseStatus.UNAUTHORIZED, "a bearer token (the server's password) is required");
            r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"ferrite\"");
            return r;
        }
        if (path.equals("/metrics")) {
            return method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD)
                    ? text(HttpResponseStatus.OK, PrometheusMetrics.render(server), PrometheusMetrics.CONTENT_TYPE)
                    : notAllowed();
        }
        if (!path.startsWith(PREFIX)) {
            return error(HttpResponseStatus.NOT_FOUND, "no such resource: " + printable(path));
        }
        String rest = path.substring(PREFIX.length());
        int slash = rest.indexOf('/');
        int db = database(slash < 0 ? rest : rest.substring(0, slash));
        if (slash < 0) {
            return method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD) ? list(db, uri) : notAllowed();
        }
        byte[] key = percentDecode(rest.substring(slash + 1), "the key");
        if (key.length == 0) {
            throw new FerriteException("the key is empty");
        }
        Keyspace ks = new Keyspace(server.databases, db, server.stats, server.events, !createInline);
        if (method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD)) {
            byte[] stored = ks.live(key);
            if (stored == null) {
                return error(HttpResponseStatus.NOT_FOUND, "no such key");
            }
            if (ValueLayout.isCollection(stored)) {
                return error(HttpResponseStatus.CONFLICT, "the key holds a " + ValueLayout.typeName(stored)
                        + ": the HTTP API reads strings only");
            }
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(stored, ValueLayout.DATA, stored.length - ValueLayout.DATA));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
            long at = ValueLayout.expireAt(stored);
            if (at != ValueLayout.NO_EXPIRY) {
                r.headers().set("X-Ferrite-Expire-At-Ms", at);
            }
            return r;
        }
        if (method.equals(HttpMethod.PUT)) {
            long expireAt = expiry(uri.parameters());
            byte[] value = ByteBufUtil.getBytes(request.content());
            FerriteMap<byte[], byte[]> map = ks.existing(); // a value of any type is replaced, as SET does
            boolean existed = Keyspace.liveAt(map == null ? null : map.get(key), System.currentTimeMillis()) != null;
            ks.store(key, value, Keyspace.Condition.ALWAYS, expireAt, false, null);
            if (expireAt != ValueLayout.NO_EXPIRY) {
                server.expiryWrites.incrementAndGet();
            }
            forceIfAlways(db);
            return empty(existed ? HttpResponseStatus.OK : HttpResponseStatus.CREATED);
        }
        if (method.equals(HttpMethod.DELETE)) {
            boolean removed = ks.remove(key) != null;
            forceIfAlways(db);
            return removed ? empty(HttpResponseStatus.NO_CONTENT) : error(HttpResponseStatus.NOT_FOUND, "no such key");
        }
        return notAllowed();
    }

    /** Under {@link FsyncPolicy#ALWAYS}, forces a written database to disk before the response leaves. */
    private void forceIfAlways(int db) {
        FerriteMap<byte[], byte[]> map = server.fsync == FsyncPolicy.ALWAYS ? server.databases.ifOpen(db) : null;
        if (map != null) { // a DELETE in a database never written wrote nothing
            map.pool().force();
        }
    }

    private boolean authorized(FullHttpRequest request) {
        String auth = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        return auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
                && server.passwordMatches(auth.substring(7).strip().getBytes(StandardCharsets.UTF_8));
    }

    private static int database(String text) {
        Long db = Args.parseLong(text.getBytes(StandardCharsets.ISO_8859_1));
        if (db == null || db < 0 || db >= Databases.COUNT) {
            throw new FerriteException("database '" + printable(text) + "' must be a number from 0 to " + (Databases.COUNT - 1));
        }
        return (int) (long) db;
    }

    /** @return the absolute expiry from ?ttl= (seconds) or ?ttl-ms=, or no expiry */
    private static long expiry(Map<String, List<String>> params) {
        boolean seconds = params.containsKey("ttl");
        boolean millis = params.containsKey("ttl-ms");
        if (seconds && millis) {
            throw new FerriteException("give ttl or ttl-ms, not both");
        }
        if (!seconds && !millis) {
            return ValueLayout.NO_EXPIRY;
        }
        String text = params.get(seconds ? "ttl" : "ttl-ms").get(0);
        Long n = Args.parseLong(text.getBytes(StandardCharsets.ISO_8859_1));
        Long at = n == null ? null : StringCommands.expiry(seconds ? "ex" : "px", n, System.currentTimeMillis());
        if (at == null) {
            throw new FerriteException((seconds ? "ttl" : "ttl-ms") + " '" + printable(text)
                    + "' must be a positive whole number");
        }
        return at;
    }

    private FullHttpResponse list(int db, QueryStringDecoder uri) {
        Map<String, List<String>> params = uri.parameters();
        byte[] prefix = rawParameter(uri.rawQuery(), "prefix");
        boolean urlEncoded = false;
        if (params.containsKey("encoding")) {
            String encoding = params.get("encoding").get(0);
            if (!encoding.equals("url")) {
                throw new FerriteException("encoding '" + printable(encoding) + "' is not url, the one encoding a listing has");
            }
            urlEncoded = true;
        }
        long cursor = 0;
        if (params.containsKey("cursor")) {
            try {
                cursor = Long.parseUnsignedLong(params.get("cursor").get(0));
            } catch (NumberFormatException e) {
                throw new FerriteException("cursor '" + printable(params.get("cursor").get(0)) + "' is not a cursor");
            }
        }
        int count = 100;
        if (params.containsKey("count")) {
            Long n = Args.parseLong(params.get("count").get(0).getBytes(StandardCharsets.ISO_8859_1));
            if (n == null || n < 1 || n > MAX_PAGE) {
                throw new FerriteException("count must be from 1 to " + MAX_PAGE);
            }
            count = (int) (long) n;
        }
        FerriteMap<byte[], byte[]> map = server.databases.ifOpen(db); // null: never written, no keys
        long now = System.currentTimeMillis();
        List<byte[]> keys = new ArrayList<>();
        long next = cursor < 0 || map == null ? 0 : map.scan(cursor, count, (k, v) -> {
            if (Keyspace.liveAt(v, now) != null && startsWith(k, prefix)) {
                keys.add(k);
            }
        });
        // Keys are bytes: a page holding one that is no UTF-8 text is written URL-encoded, all of it,
        // so that no key is lost or mistaken for another; the "encoding" field says which form it is.
        for (int i = 0; i < keys.size() && !urlEncoded; i++) {
            urlEncoded = !isUtf8(keys.get(i));
        }
        StringBuilder json = new StringBuilder("{\"cursor\":\"").append(Long.toUnsignedString(next))
                .append("\",\"encoding\":\"").append(urlEncoded ? "url" : "utf-8").append("\",\"keys\":[");
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                json.append(',');
            }
            byte[] k = keys.get(i);
            Json.string(json, urlEncoded ? percentEncode(k) : new String(k, StandardCharsets.UTF_8));
        }
        json.append("]}\n");
        return text(HttpResponseStatus.OK, json.toString(), "application/json");
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        if (key.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** @return whether the bytes are well-formed UTF-8 */
    static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /**
     * @return the bytes as a path segment: RFC 3986's unreserved characters as they are, every
     * other byte as %XX (upper-case hex), so {@link #percentDecode} gives the bytes back
     */
    static String percentEncode(byte[] bytes) {
        StringBuilder b = new StringBuilder(bytes.length);
        for (byte x : bytes) {
            int c = x & 0xFF;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                b.append((char) c);
            } else {
                b.append('%').append(Character.toUpperCase(Character.forDigit(c >>> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return b.toString();
    }

    /**
     * @return the bytes of a query parameter's first value ('+' a space, %XX any byte, so a prefix
     * may be any bytes), empty if it is absent
     */
    static byte[] rawParameter(String rawQuery, String name) {
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String n = eq < 0 ? pair : pair.substring(0, eq);
            if (n.equals(name)) {
                return percentDecode(eq < 0 ? "" : pair.substring(eq + 1).replace('+', ' '), "parameter " + name);
            }
        }
        return new byte[0];
    }

    /**
     * Decodes %XX escapes of a path segment into bytes ('+' stays '+').
     *
     * @param what what the segment is, for the error ("the key", "parameter prefix")
     * @throws FerriteException naming {@code what} and the place of a bad escape
     */
    static byte[] percentDecode(String segment, String what) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(segment.length());
        byte[] raw = segment.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < raw.length; i++) {
            byte b = raw[i];
            if (b == '%') {
                int hi = i + 2 < raw.length ? Character.digit(raw[i + 1], 16) : -1;
                int lo = i + 2 < raw.length ? Character.digit(raw[i + 2], 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw new FerriteException("bad percent escape in " + what + " at character " + i);
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else {
                out.write(b);
            }
        }
        return out.toByteArray();
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body, String type) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        return r;
    }

    private static FullHttpResponse empty(HttpResponseStatus status) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER);
    }

    static FullHttpResponse error(HttpResponseStatus status, String message) {
        StringBuilder json = new StringBuilder("{\"error\":");
        Json.string(json, message);
        return text(status, json.append("}\n").toString(), "application/json");
    }

    private static FullHttpResponse notAllowed() {
        return error(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed here");
    }

    private static String printable(String s) {
        return s.length() > 64 ? s.substring(0, 64) : s;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing HTTP connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
