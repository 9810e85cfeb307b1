package dev.ferrite.kv.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Refuses, from its headers alone and before its body is gathered or anything runs, an HTTP
 * request that a web page or a request-smuggling proxy could have sent:
 * <ul>
 *   <li>a {@code Host} the {@link HostPolicy} does not allow (a DNS-rebound page): 421;</li>
 *   <li>an {@code Origin} it does not allow (a page of another site, or {@code null}): 403;</li>
 *   <li>HTTP/1.1 with no {@code Host} or several, or a {@code Transfer-Encoding} that is not
 *       {@code chunked} alone (RFC 9112, 3.2 and 6.1): 400. A request with both
 *       {@code Content-Length} and {@code Transfer-Encoding} arrives here already failed by
 *       {@link StrictHttpRequestDecoder} and is answered 400 by {@link HttpApi}.</li>
 * </ul>
 * The body's bytes count against all clients' unfinished requests ({@link RequestMemory}) until the
 * request is handled; a body that does not fit closes the connection.
 * Each refusal is a JSON error naming the header, sent with {@code Connection: close}; the
 * connection is then closed ({@link LingeringClose}) and nothing more it sends is read. One instance per connection, on
 * its event loop.
 */
final class HttpGuard extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(HttpGuard.class);

    private final HostPolicy hosts;
    private final ServerStats stats;
    private final RequestMemory memory;
    /** Bytes of the body being received, as counted in {@link #memory}. */
    private long held;
    /** Set once a request was refused: everything after it is dropped until the connection closes. */
    private boolean refused;

    HttpGuard(HostPolicy hosts, ServerStats stats, RequestMemory memory) {
        this.hosts = hosts;
        this.stats = stats;
        this.memory = memory;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request && request.decoderResult().isSuccess()) {
            FullHttpResponse refusal = check(request);
            if (refusal != null) {
                refused = true;
                ReferenceCountUtil.release(msg);
                LOG.info("refused an HTTP request from {}: {} {}", ctx.channel().remoteAddress(),
                        refusal.status(), refusal.content().toString(java.nio.charset.StandardCharsets.UTF_8).strip());
                stats.httpResponses[refusal.status().code() / 100].increment();
                HttpUtil.setContentLength(refusal, refusal.content().readableBytes());
                refusal.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                LingeringClose.respondAndClose(ctx, refusal);
                return;
            }
        }
        if (msg instanceof HttpContent content) {
            long grown = held + content.content().readableBytes();
            if (!memory.change(held, grown)) {
                refused = true;
                ReferenceCountUtil.release(msg);
                memory.evicted(ctx.channel().remoteAddress(), grown);
                ctx.close();
                return;
            }
            held = grown;
        }
        ctx.fireChannelRead(msg);
        if (msg instanceof LastHttpContent) {
            memory.change(held, 0); // the request was gathered and handled: its body is given back
            held = 0;
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        memory.change(held, 0);
        held = 0;
    }

    /** @return the refusal of a request, or null if it may go on */
    private FullHttpResponse check(HttpRequest request) {
        HttpHeaders h = request.headers();
        List<String> host = h.getAll(HttpHeaderNames.HOST);
        if (host.size() > 1) {
            return HttpApi.error(HttpResponseStatus.BAD_REQUEST, "a request has one Host header, this one has "
                    + host.size());
        }
        if (host.isEmpty()) {
            if (request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
                return HttpApi.error(HttpResponseStatus.BAD_REQUEST, "an HTTP/1.1 request needs a Host header");
            }
        } else if (!hosts.allowsHostHeader(host.get(0))) {
            return HttpApi.error(HttpResponseStatus.MISDIRECTED_REQUEST, "Host '" + printable(host.get(0))
                    + "' is not one this server answers: loopback names and addresses, the bound address and the"
                    + " names of the http-allowed-hosts setting");
        }
        String origin = h.get(HttpHeaderNames.ORIGIN);
        if (origin != null && !hosts.allowsOrigin(origin)) {
            return HttpApi.error(HttpResponseStatus.FORBIDDEN, "Origin '" + printable(origin)
                    + "' is not allowed: a page may call this server only from an allowed host");
        }
        List<String> codings = h.getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (!codings.isEmpty() && (codings.size() > 1 || !codings.get(0).strip().equalsIgnoreCase("chunked"))) {
            return HttpApi.error(HttpResponseStatus.BAD_REQUEST, "Transfer-Encoding '" + printable(String.join(", ",
                    codings)) + "' is not chunked alone, the one coding this server reads");
        }
        return null;
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 100; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.toString();
    }
}
