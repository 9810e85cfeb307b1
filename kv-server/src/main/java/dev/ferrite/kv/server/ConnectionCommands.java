package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connection's commands: PING ECHO QUIT SELECT AUTH HELLO CLIENT, with Redis's replies and
 * error strings. AUTH, HELLO and QUIT run before the client logged in. {@code POST} and
 * {@code Host:}, as in Redis, are no commands but the sign of an HTTP request sent to the RESP
 * port (a web page's cross-protocol attack): they run before login too, and close the connection
 * before anything after them runs, with a warning logged at most once a minute. Stateless.
 */
final class ConnectionCommands {

    /** The server version HELLO and INFO report. */
    static final String VERSION = "0.1.0";

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionCommands.class);

    private static final RedisMessage WRONGPASS =
            Replies.error("WRONGPASS invalid username-password pair or user is disabled.");

    private ConnectionCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("ping", -1, ConnectionCommands::ping);
        r.add("echo", 2, (c, s, a) -> Replies.bulk(a[1]));
        r.add("quit", -1, true, (c, s, a) -> {
            s.quit = true;
            return Replies.OK;
        });
        r.add("select", 2, ConnectionCommands::select);
        r.add("auth", -2, true, ConnectionCommands::auth);
        r.add("hello", -1, true, ConnectionCommands::hello);
        r.add("client", -2, ConnectionCommands::client);
        r.add("post", -1, true, ConnectionCommands::crossProtocol);
        r.add("host:", -1, true, ConnectionCommands::crossProtocol);
    }

    /** When the last cross-protocol warning was logged, in ms since the epoch. */
    private static final AtomicLong LAST_WARNING = new AtomicLong(Long.MIN_VALUE / 2);

    private static RedisMessage crossProtocol(ServerContext c, ClientSession s, byte[][] a) {
        c.stats.crossProtocolClosed.increment();
        long now = System.currentTimeMillis();
        long last = LAST_WARNING.get();
        if (now - last > 60_000 && LAST_WARNING.compareAndSet(last, now)) {
            LOG.warn("Possible SECURITY ATTACK detected: a client sent '{}' to the RESP port, as an HTTP request"
                    + " (a web page's cross-protocol attack) does; its connection is closed and nothing after it ran"
                    + " (logged at most once a minute; INFO stats counts them as cross_protocol_closed)",
                    Replies.printable(a[0], 16));
        }
        return Replies.CLOSE_CONNECTION;
    }

    private static RedisMessage ping(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length > 2) {
            return Replies.arity("ping");
        }
        if (s.subscriptions() > 0) { // RESP2 in subscribed mode: a message-like array
            return Replies.array(java.util.List.of(Replies.bulk("pong"), Replies.bulk(a.length == 2 ? a[1] : new byte[0])));
        }
        return a.length == 2 ? Replies.bulk(a[1]) : Replies.PONG;
    }

    private static RedisMessage select(ServerContext c, ClientSession s, byte[][] a) {
        Long index = Args.parseLong(a[1]);
        if (index == null) {
            return Replies.NOT_INTEGER;
        }
        if (index != (int) (long) index) { // Redis reads the index as an int first
            return Replies.error("ERR value is out of range, value must between " + Integer.MIN_VALUE + " and "
                    + Integer.MAX_VALUE);
        }
        if (index < 0 || index >= Databases.COUNT) {
            return Replies.DB_RANGE;
        }
        s.db = (int) (long) index;
        return Replies.OK;
    }

    /**
     * AUTH password, or AUTH username password with the only user, "default". Without a configured
     * password Redis's default user has "nopass": AUTH password is an error, AUTH default x is OK.
     */
    private static RedisMessage auth(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length > 3) {
            return Replies.SYNTAX;
        }
        if (!c.requiresPassword()) {
            if (a.length == 2) {
                return Replies.error("ERR AUTH <password> called without any password configured for the default"
                        + " user. Are you sure your configuration is correct?");
            }
            return Args.lower(a[1]).equals("default") ? Replies.OK : WRONGPASS;
        }
        return login(c, s, a.length == 3 ? a[1] : null, a[a.length - 1]) ? Replies.OK : WRONGPASS;
    }

    /** Logs the session in if the user (null: default) and password are right. */
    private static boolean login(ServerContext c, ClientSession s, byte[] user, byte[] password) {
        boolean userOk = user == null || new String(user, StandardCharsets.UTF_8).equals("default");
        if (userOk && (!c.requiresPassword() || c.passwordMatches(password))) {
            s.authenticated = true;
            return true;
        }
        return false;
    }

    /**
     * HELLO [protover [AUTH username password] [SETNAME name]]: RESP2 only. A request for 3 gets
     * Redis's NOPROTO error, on which clients (Lettuce) fall back to RESP2; 2 or none gets the
     * server's description as a flat array.
     */
    private static RedisMessage hello(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length >= 2) {
            Long version = Args.parseLong(a[1]);
            if (version == null) {
                return Replies.error("ERR Protocol version is not an integer or out of range");
            }
            if (version != 2) {
                return Replies.error("NOPROTO unsupported protocol version");
            }
            for (int i = 2; i < a.length; i++) {
                String opt = Args.lower(a[i]);
                if (opt.equals("auth") && i + 2 < a.length) {
                    if (!login(c, s, a[i + 1], a[i + 2])) {
                        return WRONGPASS;
                    }
                    i += 2;
                } else if (opt.equals("setname") && i + 1 < a.length) {
                    RedisMessage bad = setName(s, a[++i]);
                    if (bad != null) {
                        return bad;
                    }
                } else {
                    return new ErrorLine().text("ERR Syntax error in HELLO option '").quote(a[i], ErrorLine.WHOLE)
                            .text("'").build();
                }
            }
        }
        if (!s.authenticated) {
            return Replies.error("NOAUTH HELLO must be called with the client already authenticated, otherwise the"
                    + " HELLO AUTH <user> <pass> option can be used to authenticate the client and select the"
                    + " RESP protocol version at the same time");
        }
        return Replies.array(List.of(Replies.bulk("server"), Replies.bulk("ferrite"),
                Replies.bulk("version"), Replies.bulk(VERSION),
                Replies.bulk("proto"), Replies.integer(2),
                Replies.bulk("id"), Replies.integer(s.id),
                Replies.bulk("mode"), Replies.bulk("standalone"),
                Replies.bulk("role"), Replies.bulk("master"),
                Replies.bulk("modules"), Replies.array(List.of())));
    }

    private static RedisMessage client(ServerContext c, ClientSession s, byte[][] a) {
        switch (Args.lower(a[1])) {
            case "id":
                return a.length == 2 ? Replies.integer(s.id) : Replies.arity("client|id");
            case "getname":
                return a.length == 2 ? Replies.bulk(s.name == null ? null : s.name.getBytes(StandardCharsets.UTF_8))
                        : Replies.arity("client|getname");
            case "setname": {
                if (a.length != 3) {
                    return Replies.arity("client|setname");
                }
                RedisMessage bad = setName(s, a[2]);
                return bad != null ? bad : Replies.OK;
            }
            case "setinfo": {
                if (a.length != 4) {
                    return Replies.arity("client|setinfo");
                }
                String attr = Args.lower(a[2]);
                if (!attr.equals("lib-name") && !attr.equals("lib-ver")) {
                    return new ErrorLine().text("ERR Unrecognized option '").quote(a[2], ErrorLine.WHOLE)
                            .text("'").build();
                }
                return Replies.OK;
            }
            case "reply":
                return a.length == 3 ? reply(s, a[2]) : Replies.arity("client|reply");
            default:
                return Replies.unknownSubcommand(a[1], "CLIENT");
        }
    }

    /**
     * CLIENT REPLY ON | OFF | SKIP: OFF silences every reply from this one on, until ON (answered
     * OK); SKIP silences its own and the next command's (nothing while OFF). Subscription notices
     * and published messages are sent regardless, as in Redis 7.
     */
    private static RedisMessage reply(ClientSession s, byte[] mode) {
        switch (Args.lower(mode)) {
            case "on":
                s.repliesOff = false;
                s.repliesToSkip = 0;
                return Replies.OK;
            case "off":
                s.repliesOff = true;
                return Replies.OK; // silenced: OFF is on now
            case "skip":
                if (!s.repliesOff) {
                    s.repliesToSkip = 2; // this reply and the next command's
                }
                return Replies.OK;
            default:
                return Replies.SYNTAX;
        }
    }

    /** Sets the connection name; Redis refuses spaces, newlines and other special characters. */
    private static RedisMessage setName(ClientSession s, byte[] name) {
        for (byte b : name) {
            if (b < '!' || b > '~') {
                return Replies.error("ERR Client names cannot contain spaces, newlines or special characters.");
            }
        }
        s.name = name.length == 0 ? null : new String(name, StandardCharsets.US_ASCII);
        return null;
    }
}
