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
import java.util.Collection;
import java.util.List;
import java.util.Set;
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

    private KvServer(Builder b) {
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
        server.shutdown = () -> {
            Thread t = new Thread(this::close, "ferrite-kv-shutdown");
            t.setDaemon(true);
            t.start();
        };
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
    private Channel listen(InetAddress address, int port, Builder b, ServerContext server,
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
     * @param directory the server's data directory ({@link Builder#dataDirectory})
     * @param index     the database, 0 to 15 ({@code SELECT})
     * @return the open database; close it to unmap its files
     * @throws IllegalArgumentException if {@code index} is outside 0 to 15
     * @throws FerriteException if the directory holds no server data
     */
    public static KvDatabase openDatabase(Path directory, int index) {
        return new KvDatabase(directory, index, null);
    }

    /** @return a builder with the defaults: 127.0.0.1:6380, data in {@code ./ferrite-data} */
    public static Builder builder() {
        return new Builder();
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

    /** Settings of a {@link KvServer}; not thread-safe. */
    public static final class Builder {
        /** The longest {@link #busyPollMicros busy-poll window}: 10 ms. */
        public static final int MAX_BUSY_POLL_MICROS = 10_000;
        /**
         * The default {@link #busyPollMicros busy-poll window}: 0, off. An idle event loop sleeps
         * at once, as Redis does, and the server uses no CPU between requests.
         */
        public static final int DEFAULT_BUSY_POLL_MICROS = 0;
        /**
         * A busy-poll window that suits clients that send as fast as they can: 50 µs, the value
         * Linux's documentation suggests for its own socket busy polling.
         */
        public static final int SUGGESTED_BUSY_POLL_MICROS = 50;

        private String bind = "127.0.0.1";
        private int port = 6380;
        private int httpPort = -1;
        private Path dataDirectory = Path.of("ferrite-data");
        private String backend;
        private int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        private int busyPollMicros = DEFAULT_BUSY_POLL_MICROS;
        private ServerLimits limits = ServerLimits.DEFAULTS;
        private String password;
        private int maxClients = 10_000;
        private long idleTimeoutSeconds;
        private long maxOutputBufferBytes = 512L << 20;
        private FsyncPolicy fsync = FsyncPolicy.EVERYSEC;
        private boolean lowPriorityFsync;
        private Set<String> httpAllowedHosts = Set.of();

        private Builder() {
        }

        /**
         * Names (and addresses) HTTP requests may give in their {@code Host} and {@code Origin}
         * headers besides the ones always allowed: {@code localhost}, names under
         * {@code .localhost}, loopback addresses and the bound address (any of this machine's when
         * bound to the wildcard address). A request naming another host gets 421 (403 for an
         * {@code Origin}) and nothing runs: a web page whose name was rebound to this server's
         * address cannot use it. Names are matched case-insensitively, without the port, and never
         * looked up. {@code "*"} allows every name (the guard off). Default: none.
         *
         * @param names the extra names; replaces the ones given before
         * @throws FerriteException if a name is null, blank or holds a space
         */
        public Builder httpAllowedHosts(Collection<String> names) {
            for (String n : names) {
                if (n == null || n.isBlank() || n.strip().contains(" ")) {
                    throw new FerriteException("allowed HTTP host '" + n + "' must be a name or address without spaces");
                }
            }
            this.httpAllowedHosts = names.stream().map(String::strip).collect(java.util.stream.Collectors.toUnmodifiableSet());
            return this;
        }

        /**
         * @param address the address to listen on (default 127.0.0.1); anything but a loopback
         *                address needs a {@link #requirePassword password}, as Redis's protected mode
         */
        public Builder bind(String address) {
            this.bind = address;
            return this;
        }

        /** @param port the RESP port, 0 to 65535 (0: any free port; default 6380) */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new FerriteException("port " + port + " must be from 0 to 65535");
            }
            this.port = port;
            return this;
        }

        /**
         * @param port the HTTP port, 0 to 65535 (0: any free port), or -1 for no HTTP (the
         *             builder's default; the runnable server's is 8080)
         */
        public Builder httpPort(int port) {
            if (port < -1 || port > 65535) {
                throw new FerriteException("HTTP port " + port + " must be from 0 to 65535, or -1 for none");
            }
            this.httpPort = port;
            return this;
        }

        /** @param directory where the database files live (default {@code ./ferrite-data}) */
        public Builder dataDirectory(Path directory) {
            this.dataDirectory = directory;
            return this;
        }

        /** @param name the Ferrite backend of the maps (default: Ferrite's default backend) */
        public Builder backend(String name) {
            this.backend = name;
            return this;
        }

        /** @param count event-loop threads serving connections, at least 1 (default: one per core) */
        public Builder threads(int count) {
            if (count < 1) {
                throw new FerriteException("threads " + count + " must be at least 1");
            }
            this.threads = count;
            return this;
        }

        /**
         * @param micros how long an event loop keeps polling for requests after it runs out of
         *               work before it sleeps, 0 (off, the default: it sleeps at once, as Redis
         *               does) to {@value #MAX_BUSY_POLL_MICROS} µs; {@value #SUGGESTED_BUSY_POLL_MICROS}
         *               suits clients that send as fast as they can. Polling spares clients the
         *               wake-up of a sleeping server, at the cost of a busy core while requests
         *               follow each other within the window (polls that find nothing back off; see
         *               {@link BusyPoll}). On the bench machine (2 virtual cores, server and
         *               {@code redis-benchmark -t get} pinned to one each): 1 client 28.5-29.6k
         *               requests/s with 50 µs against 15.3k without (Redis 16.9k), 4 clients 165k
         *               against 60k (Redis 58k).
         */
        public Builder busyPollMicros(int micros) {
            if (micros < 0 || micros > MAX_BUSY_POLL_MICROS) {
                throw new FerriteException("busy-poll " + micros + " µs must be from 0 (off) to "
                        + MAX_BUSY_POLL_MICROS);
            }
            this.busyPollMicros = micros;
            return this;
        }

        /** @param limits the bounds every request must keep (default {@link ServerLimits#DEFAULTS}) */
        public Builder limits(ServerLimits limits) {
            this.limits = limits;
            return this;
        }

        /**
         * @param password the password clients must give (RESP {@code AUTH}, HTTP bearer token), or
         *                 null for none (default; then only loopback addresses are served)
         */
        public Builder requirePassword(String password) {
            if (password != null && password.isEmpty()) {
                throw new FerriteException("the password must not be empty (null for none)");
            }
            this.password = password;
            return this;
        }

        /**
         * @param count most connections open at once, RESP and HTTP together, at least 1 (default
         *              10,000, Redis's maxclients); one more gets Redis's error and is closed
         */
        public Builder maxClients(int count) {
            if (count < 1) {
                throw new FerriteException("maxclients " + count + " must be at least 1");
            }
            this.maxClients = count;
            return this;
        }

        /**
         * @param seconds close a connection that sent and received nothing for that long, 0 to
         *                never (default 0, as Redis's {@code timeout})
         */
        public Builder idleTimeoutSeconds(long seconds) {
            if (seconds < 0) {
                throw new FerriteException("idle timeout " + seconds + " s must be 0 (none) or more");
            }
            this.idleTimeoutSeconds = seconds;
            return this;
        }

        /**
         * @param bytes most bytes of replies a client may leave unread before it is disconnected,
         *              at least 1 MiB (default 512 MiB: a pipeline of large values fits; the server
         *              also stops reading a client's requests while 1 MiB of its replies is unsent)
         */
        public Builder maxOutputBufferBytes(long bytes) {
            if (bytes < (1 << 20)) {
                throw new FerriteException("client output buffer limit " + bytes + " must be at least 1 MiB");
            }
            this.maxOutputBufferBytes = bytes;
            return this;
        }

        /**
         * @param policy when written data is forced to disk (default {@link FsyncPolicy#EVERYSEC},
         *               Redis's default); an acknowledged write survives {@code kill -9} under every policy
         */
        public Builder fsync(FsyncPolicy policy) {
            this.fsync = java.util.Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * @param lowest whether the {@link FsyncPolicy#EVERYSEC} thread lowers its own CPU priority
         *               to the lowest (Linux: {@code renice}, a child process, run once), so that its
         *               writes-back take the time the event loops leave; default false (a library
         *               starts no process unless asked), the runnable server's default true
         */
        public Builder lowPriorityFsync(boolean lowest) {
            this.lowPriorityFsync = lowest;
            return this;
        }

        /**
         * Opens the databases that exist and starts listening.
         *
         * @return the running server
         * @throws FerriteException if the address is not loopback and there is no password, the port is taken or the data
         *                          cannot be opened
         */
        public KvServer start() {
            return new KvServer(this);
        }
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
