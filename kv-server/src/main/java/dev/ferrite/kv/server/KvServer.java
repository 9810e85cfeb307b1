package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.EventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Ferrite maps served over the Redis protocol (RESP2): {@code redis-cli} and Redis clients work
 * unchanged against it. Database {@code n} (0–15) is a file-backed map under the data directory,
 * so every acknowledged write is in the map's memory-mapped file when its reply is sent.
 *
 * <pre>{@code
 * try (KvServer server = KvServer.builder().port(6380).dataDirectory(Path.of("ferrite-data")).start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Listens on 127.0.0.1 by default. Thread-safe; {@link #close()} stops accepting, closes the
 * connections and then the maps.
 */
public final class KvServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KvServer.class);
    /** Longest HTTP request line, in bytes (414 beyond). */
    static final int HTTP_MAX_LINE = 4096;
    /** Most bytes of HTTP headers (431 beyond). */
    static final int HTTP_MAX_HEADERS = 8192;

    /**
     * Buffers for requests and replies, off the heap whatever Netty's default (heap when it may not
     * use Unsafe): a client's unread replies and unfinished requests cost no heap.
     */
    private static final PooledByteBufAllocator REPLY_ALLOCATOR = new PooledByteBufAllocator(true);

    private final Databases databases;
    private final ExpiryReaper reaper;
    private final CollectionSweeper sweeper;
    private final BlockingWaits blocking;
    private final PeriodicFsync periodicFsync;
    private final Transport transport;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel listener;
    /** The HTTP listener, or null if HTTP is off. */
    private final Channel httpListener;
    /** The event loops' busy-poll window in µs, 0 if off. */
    private final int busyPollMicros;
    private boolean closed;
    /** Completes once {@link #close} has stopped everything. */
    private final java.util.concurrent.CompletableFuture<Void> stopped = new java.util.concurrent.CompletableFuture<>();

    KvServer(KvServerBuilder b) {
        InetAddress address = resolve(b.bind);
        if (!address.isLoopbackAddress() && b.password == null) {
            throw new FerriteException("refusing to listen on " + b.bind + " without a password: a non-loopback"
                    + " address needs requirepass (Redis's protected mode); set a password or bind 127.0.0.1");
        }
        databases = new Databases(b.dataDirectory, b.backend);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("bind", b.bind);
        settings.put("port", Integer.toString(b.port));
        settings.put("databases", Integer.toString(Databases.COUNT));
        settings.put("save", "");
        settings.put("appendonly", "no");
        settings.put("maxmemory", "0");
        settings.put("maxmemory-policy", "noeviction");
        settings.put("timeout", Long.toString(b.idleTimeoutSeconds));
        settings.put("maxclients", Integer.toString(b.maxClients));
        settings.put("proto-max-bulk-len", Integer.toString(b.limits.maxBulkBytes()));
        settings.put("protected-mode", address.isLoopbackAddress() ? "yes" : "no");
        settings.put("appendfsync", b.fsync.configName());
        ServerContext server = new ServerContext(databases, b.fsync, b.password, settings);
        server.shutdown = () -> DaemonTimer.daemons("ferrite-kv-shutdown").newThread(this::close).start();
        reaper = new ExpiryReaper(server);
        sweeper = new CollectionSweeper(server);
        blocking = server.blocking;
        periodicFsync = b.fsync == FsyncPolicy.EVERYSEC ? new PeriodicFsync(databases, b.lowPriorityFsync) : null;
        transport = Transport.pick();
        boss = transport.group("ferrite-kv-accept", 1, 0);
        busyPollMicros = b.busyPollMicros;
        workers = transport.group("ferrite-kv-io", b.threads, busyPollMicros);
        databases.retireAfter(task -> afterEveryLoop(workers, task));
        ServerLimits limits = b.limits;
        long maxOutput = b.maxOutputBufferBytes;
        RequestMemory requestMemory = new RequestMemory(limits.maxClientsRequestBytes(), server.stats);
        server.requestMemory = requestMemory;
        Channel resp = null;
        Channel http = null;
        try {
            resp = listen(address, b.port, b, server, () -> {
                CommandHandler commands = new CommandHandler(server, maxOutput);
                return new ChannelHandler[] {
                    new RespRequestDecoder(limits, commands::unauthenticated, requestMemory), commands};
            });
            HostPolicy hosts = new HostPolicy(address, b.httpAllowedHosts);
            http = b.httpPort < 0 ? null : listen(address, b.httpPort, b, server, () -> new ChannelHandler[] {
                new StrictHttpRequestDecoder(HTTP_MAX_LINE, HTTP_MAX_HEADERS, 8192), new HttpResponseEncoder(),
                new HttpGuard(hosts, server.stats, requestMemory), new ClosingHttpAggregator(limits.maxBulkBytes(), server.stats),
                new HttpApi(server)});
        } catch (Exception e) { // Netty rethrows the bind's IOException unchecked (epoll: NativeIoException)
            if (resp != null) {
                resp.close().syncUninterruptibly();
            }
            shutdownGroups();
            reaper.close();
            sweeper.close();
            blocking.close();
            if (periodicFsync != null) {
                periodicFsync.close();
            }
            databases.close();
            throw new FerriteException("cannot listen on " + b.bind + ", port " + (resp == null ? b.port : b.httpPort)
                    + (resp == null ? " (RESP)" : " (HTTP)") + ": " + e.getMessage(), e);
        }
        listener = resp;
        httpListener = http;
        LOG.info("Ferrite KV server listening on {} (RESP, {}, busy-poll {} µs){}{}, data in {}", listener.localAddress(),
                transport, busyPollMicros, httpListener == null ? "" : " and " + httpListener.localAddress() + " (HTTP)",
                b.password == null ? "" : " with a password", b.dataDirectory);
    }

    /**
     * Listens on one port; each connection gets the idle timer (if any), its {@link ConnectionGuard}
     * and then the protocol's handlers, made anew per connection.
     */
    private Channel listen(InetAddress address, int port, KvServerBuilder b, ServerContext server,
                           Supplier<ChannelHandler[]> protocol) {
        long idle = b.idleTimeoutSeconds;
        int maxClients = b.maxClients;
        return new ServerBootstrap().group(boss, workers).channel(transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, REPLY_ALLOCATOR)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 << 10, 1 << 20))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ChannelPipeline p = ch.pipeline();
                        if (idle > 0) {
                            p.addLast(new IdleStateHandler(0, 0, idle, TimeUnit.SECONDS));
                        }
                        p.addLast(new ConnectionGuard(server.stats, maxClients));
                        p.addLast(protocol.get());
                    }
                })
                .bind(new InetSocketAddress(address, port)).syncUninterruptibly().channel();
    }

    /**
     * Runs {@code task} once every event loop of the group has finished the task it is running
     * now: then no command that began before is still running.
     *
     * @throws java.util.concurrent.RejectedExecutionException if the loops are stopping
     */
    private static void afterEveryLoop(EventLoopGroup group, Runnable task) {
        List<EventExecutor> loops = new ArrayList<>();
        group.forEach(loops::add);
        AtomicInteger left = new AtomicInteger(loops.size());
        for (EventExecutor loop : loops) {
            loop.execute(() -> {
                if (left.decrementAndGet() == 0) {
                    task.run();
                }
            });
        }
    }

    private static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new FerriteException("unknown bind address " + host, e);
        }
    }

    /**
     * Opens database {@code index} of a data directory in this process, beside the server that
     * serves it (or with none running): strings, hashes and sorted sets read and written in place,
     * seen by Redis clients and HTTP at once. The directory must have been a server's (its
     * collection store exists); a database with no file yet is made at the first write.
     *
     * @param directory the server's data directory ({@link KvServerBuilder#dataDirectory})
     * @param index     the database, 0 to 15 ({@code SELECT})
     * @return the open database; close it to unmap its files
     * @throws IllegalArgumentException if {@code index} is outside 0 to 15
     * @throws FerriteException if the directory holds no server data
     */
    public static KvDatabase openDatabase(Path directory, int index) {
        return new KvDatabase(directory, index, null);
    }

    /** @return a builder with the defaults: 127.0.0.1:6380, data in {@code ./ferrite-data} */
    public static KvServerBuilder builder() {
        return new KvServerBuilder();
    }

    /** @return the HTTP port (the one chosen by the system if 0 was asked), or -1 if HTTP is off */
    public int httpPort() {
        return httpListener == null ? -1 : ((InetSocketAddress) httpListener.localAddress()).getPort();
    }

    /** @return the port the server listens on (the one chosen by the system if 0 was asked) */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /**
     * @return the Netty transport serving connections: "epoll" (native, where it loads: Linux on
     *         x86-64) or "nio"
     */
    public String transport() {
        return transport.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** @return how long the event loops poll after they run out of work before they sleep, in µs; 0 if never */
    int busyPollMicros() {
        return busyPollMicros;
    }

    /** @return the server's databases (for tests in this package) */
    Databases databases() {
        return databases;
    }

    /** Stops listening, closes every connection, then closes the databases. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        listener.close().syncUninterruptibly();
        if (httpListener != null) {
            httpListener.close().syncUninterruptibly();
        }
        shutdownGroups();
        reaper.close();
        sweeper.close();
        blocking.close();
        if (periodicFsync != null) {
            periodicFsync.close();
        }
        databases.close();
        LOG.info("Ferrite KV server stopped");
        stopped.complete(null);
    }

    /**
     * Waits until the server has stopped: {@link #close()} was called, by the program or by a
     * client's {@code SHUTDOWN}, and finished.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void awaitStop() throws InterruptedException {
        try {
            stopped.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private void shutdownGroups() {
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** @return the sweep of orphaned collections (for tests) */
    CollectionSweeper collectionSweeper() {
        return sweeper;
    }

    /** @return the active expiry of this server (for tests of its resting) */
    ExpiryReaper expiryReaper() {
        return reaper;
    }
}
