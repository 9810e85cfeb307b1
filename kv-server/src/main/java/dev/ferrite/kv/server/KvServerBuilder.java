package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Set;

/**
 * Settings of a {@link KvServer}, from {@link KvServer#builder()}; {@link #start()} starts it. Not
 * thread-safe.
 */
public final class KvServerBuilder {
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

    String bind = "127.0.0.1";
    int port = 6380;
    int httpPort = -1;
    Path dataDirectory = Path.of("ferrite-data");
    String backend;
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    int busyPollMicros = DEFAULT_BUSY_POLL_MICROS;
    ServerLimits limits = ServerLimits.DEFAULTS;
    String password;
    int maxClients = 10_000;
    long idleTimeoutSeconds;
    long maxOutputBufferBytes = 512L << 20;
    FsyncPolicy fsync = FsyncPolicy.EVERYSEC;
    boolean lowPriorityFsync;
    Set<String> httpAllowedHosts = Set.of();

    KvServerBuilder() {
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
    public KvServerBuilder httpAllowedHosts(Collection<String> names) {
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
    public KvServerBuilder bind(String address) {
        this.bind = address;
        return this;
    }

    /** @param port the RESP port, 0 to 65535 (0: any free port; default 6380) */
    public KvServerBuilder port(int port) {
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
    public KvServerBuilder httpPort(int port) {
        if (port < -1 || port > 65535) {
            throw new FerriteException("HTTP port " + port + " must be from 0 to 65535, or -1 for none");
        }
        this.httpPort = port;
        return this;
    }

    /** @param directory where the database files live (default {@code ./ferrite-data}) */
    public KvServerBuilder dataDirectory(Path directory) {
        this.dataDirectory = directory;
        return this;
    }

    /** @param name the Ferrite backend of the maps (default: Ferrite's default backend) */
    public KvServerBuilder backend(String name) {
        this.backend = name;
        return this;
    }

    /** @param count event-loop threads serving connections, at least 1 (default: one per core) */
    public KvServerBuilder threads(int count) {
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
    public KvServerBuilder busyPollMicros(int micros) {
        if (micros < 0 || micros > MAX_BUSY_POLL_MICROS) {
            throw new FerriteException("busy-poll " + micros + " µs must be from 0 (off) to "
                    + MAX_BUSY_POLL_MICROS);
        }
        this.busyPollMicros = micros;
        return this;
    }

    /** @param limits the bounds every request must keep (default {@link ServerLimits#DEFAULTS}) */
    public KvServerBuilder limits(ServerLimits limits) {
        this.limits = limits;
        return this;
    }

    /**
     * @param password the password clients must give (RESP {@code AUTH}, HTTP bearer token), or
     *                 null for none (default; then only loopback addresses are served)
     */
    public KvServerBuilder requirePassword(String password) {
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
    public KvServerBuilder maxClients(int count) {
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
    public KvServerBuilder idleTimeoutSeconds(long seconds) {
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
    public KvServerBuilder maxOutputBufferBytes(long bytes) {
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
    public KvServerBuilder fsync(FsyncPolicy policy) {
        this.fsync = java.util.Objects.requireNonNull(policy, "policy");
        return this;
    }

    /**
     * @param lowest whether the {@link FsyncPolicy#EVERYSEC} thread lowers its own CPU priority
     *               to the lowest (Linux: {@code renice}, a child process, run once), so that its
     *               writes-back take the time the event loops leave; default false (a library
     *               starts no process unless asked), the runnable server's default true
     */
    public KvServerBuilder lowPriorityFsync(boolean lowest) {
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
