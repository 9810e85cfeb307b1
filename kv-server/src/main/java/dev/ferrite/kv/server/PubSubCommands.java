package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Publish/subscribe: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH PUBSUB, with Redis's
 * RESP2 replies: a (un)subscription answers one {@code [kind, name, count]} array per name, the
 * count being the connection's channels and patterns after it; messages come as
 * {@code [message, channel, payload]} and {@code [pmessage, pattern, channel, payload]}. While a
 * connection listens on anything, it may run only these, PING, QUIT and RESET
 * ({@link #allowedWhileSubscribed}). A connection's subscriptions end with it. Stateless; the
 * registry is {@link ServerContext#pubsub}.
 */
final class PubSubCommands {

    private static final Set<String> WHILE_SUBSCRIBED = Set.of("subscribe", "unsubscribe", "psubscribe",
            "punsubscribe", "ssubscribe", "sunsubscribe", "ping", "quit", "reset");

    private PubSubCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("subscribe", -2, (c, s, a) -> subscribe(c, s, a, false));
        r.add("psubscribe", -2, (c, s, a) -> subscribe(c, s, a, true));
        r.add("unsubscribe", -1, (c, s, a) -> unsubscribe(c, s, a, false));
        r.add("punsubscribe", -1, (c, s, a) -> unsubscribe(c, s, a, true));
        r.add("publish", 3, (c, s, a) -> Replies.integer(c.pubsub.publish(a[1], a[2])));
        r.add("pubsub", -2, PubSubCommands::pubsub);
    }

    /**
     * @param name a request's command name, in any case
     * @return whether it is SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE or PUNSUBSCRIBE, whose notices are
     *         sent even while CLIENT REPLY silences replies
     */
    static boolean isSubscriptionCommand(byte[] name) {
        CommandTable.Command c = CommandTable.lookup(name);
        return c != null && c.name().endsWith("subscribe");
    }

    /** @return whether a connection that listens on a channel or pattern may run the command (RESP2) */
    static boolean allowedWhileSubscribed(String command) {
        return WHILE_SUBSCRIBED.contains(command);
    }

    /** Commands whose first argument names a subcommand: Redis names them {@code command|subcommand} in errors. */
    private static final Set<String> CONTAINERS = Set.of("pubsub", "config", "client", "object", "command", "function");

    /**
     * Redis's error for any other command while subscribed.
     *
     * @param command the command's lower-case name
     * @param args    the request, name first
     */
    static RedisMessage notAllowed(String command, byte[][] args) {
        String full = CONTAINERS.contains(command) && args.length > 1 ? command + "|" + Args.lower(args[1]) : command;
        return new ErrorLine().text("ERR Can't execute '").quote(full.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                128).text("': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
                .build();
    }

    private static RedisMessage subscribe(ServerContext c, ClientSession s, byte[][] a, boolean pattern) {
        List<RedisMessage> replies = new ArrayList<>(a.length - 1);
        for (int i = 1; i < a.length; i++) {
            PubSub.Name name = new PubSub.Name(a[i]);
            if (pattern) {
                if (s.patterns == null) {
                    s.patterns = new LinkedHashSet<>();
                }
                if (s.patterns.add(name)) {
                    c.pubsub.psubscribe(name, s.subscriber);
                }
            } else {
                if (s.channels == null) {
                    s.channels = new LinkedHashSet<>();
                }
                if (s.channels.add(name)) {
                    c.pubsub.subscribe(name, s.subscriber);
                }
            }
            replies.add(notice(pattern ? "psubscribe" : "subscribe", a[i], s.subscriptions()));
        }
        return Replies.several(replies);
    }

    /** UNSUBSCRIBE / PUNSUBSCRIBE: the names given, or every one the connection has (one reply with a nil name if none). */
    private static RedisMessage unsubscribe(ServerContext c, ClientSession s, byte[][] a, boolean pattern) {
        String kind = pattern ? "punsubscribe" : "unsubscribe";
        Set<PubSub.Name> mine = pattern ? s.patterns : s.channels;
        List<PubSub.Name> names = new ArrayList<>();
        if (a.length > 1) {
            for (int i = 1; i < a.length; i++) {
                names.add(new PubSub.Name(a[i]));
            }
        } else if (mine != null) {
            names.addAll(mine);
        }
        if (names.isEmpty()) {
            return notice(kind, null, s.subscriptions());
        }
        List<RedisMessage> replies = new ArrayList<>(names.size());
        for (PubSub.Name name : names) {
            if (mine != null && mine.remove(name)) {
                if (pattern) {
                    c.pubsub.punsubscribe(name, s.subscriber);
                } else {
                    c.pubsub.unsubscribe(name, s.subscriber);
                }
            }
            replies.add(notice(kind, name.bytes, s.subscriptions()));
        }
        return Replies.several(replies);
    }

    /** Ends every subscription of a connection that closed. */
    static void endAll(ServerContext c, ClientSession s) {
        if (s.channels != null) {
            s.channels.forEach(n -> c.pubsub.unsubscribe(n, s.subscriber));
            s.channels = null;
        }
        if (s.patterns != null) {
            s.patterns.forEach(n -> c.pubsub.punsubscribe(n, s.subscriber));
            s.patterns = null;
        }
    }

    private static RedisMessage notice(String kind, byte[] name, int count) {
        return Replies.array(List.of(Replies.bulk(kind), Replies.bulk(name), Replies.integer(count)));
    }

    /**
     * PUBSUB CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT | SHARDCHANNELS [pattern] |
     * SHARDNUMSUB [channel ...] | HELP. Shard channels (SSUBSCRIBE) are not served, so the shard
     * forms find none.
     */
    private static RedisMessage pubsub(ServerContext c, ClientSession s, byte[][] a) {
        String sub = Args.lower(a[1]);
        switch (sub) {
            case "channels", "shardchannels" -> {
                if (a.length > 3) {
                    return new ErrorLine().text("ERR unknown subcommand or wrong number of arguments for '")
                            .quote(a[1], 128).text("'. Try PUBSUB HELP.").build();
                }
                List<RedisMessage> names = new ArrayList<>();
                if (sub.equals("channels")) {
                    c.pubsub.channels(a.length == 3 ? a[2] : null).forEach(n -> names.add(Replies.bulk(n)));
                }
                return Replies.array(names);
            }
            case "numsub", "shardnumsub" -> {
                List<RedisMessage> counts = new ArrayList<>();
                for (int i = 2; i < a.length; i++) {
                    counts.add(Replies.bulk(a[i]));
                    counts.add(Replies.integer(sub.equals("numsub") ? c.pubsub.subscribers(a[i]) : 0));
                }
                return Replies.array(counts);
            }
            case "numpat" -> {
                return a.length > 2 ? Replies.arity("pubsub|numpat") : Replies.integer(c.pubsub.patternCount());
            }
            case "help" -> {
                if (a.length > 2) {
                    return Replies.arity("pubsub|help");
                }
                List<RedisMessage> lines = new ArrayList<>();
                for (String line : HELP) {
                    lines.add(Replies.simple(line));
                }
                return Replies.array(lines);
            }
            default -> {
                return Replies.unknownSubcommand(a[1], "PUBSUB");
            }
        }
    }

    private static final String[] HELP = {
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        "HELP",
        "    Prints this help."
    };
}
