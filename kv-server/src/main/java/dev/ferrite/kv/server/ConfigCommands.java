package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CONFIG GET pattern [pattern ...], CONFIG SET name value [name value ...], CONFIG RESETSTAT and
 * CONFIG HELP, with Redis's replies and errors. The settings are the server's
 * ({@link ServerContext#settings()}); those it can change while running are in
 * {@link ServerContext#setting}'s table, the others are immutable. A CONFIG SET changes all its
 * settings or, if one is unknown, immutable or refused, none. Stateless.
 */
final class ConfigCommands {

    private ConfigCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("config", -2, ConfigCommands::config);
    }

    private static RedisMessage config(ServerContext c, ClientSession s, byte[][] a) {
        switch (Args.lower(a[1])) {
            case "get":
                return a.length < 3 ? Replies.arity("config|get") : get(c, a);
            case "set":
                return a.length < 4 || a.length % 2 != 0 ? Replies.arity("config|set") : set(c, a);
            case "resetstat":
                if (a.length != 2) {
                    return Replies.arity("config|resetstat");
                }
                c.stats.reset();
                return Replies.OK;
            case "help":
                return Replies.array(List.of(Replies.simple("CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
                        Replies.simple("GET <pattern>"), Replies.simple("SET <directive> <value>"),
                        Replies.simple("RESETSTAT"), Replies.simple("HELP")));
            default:
                return Replies.unknownSubcommand(a[1], "CONFIG");
        }
    }

    private static RedisMessage get(ServerContext c, byte[][] a) {
        List<RedisMessage> out = new ArrayList<>();
        for (Map.Entry<String, String> setting : c.settings().entrySet()) {
            for (int i = 2; i < a.length; i++) {
                if (Glob.matches(Args.lower(a[i]), setting.getKey())) {
                    out.add(Replies.bulk(setting.getKey()));
                    out.add(Replies.bulk(setting.getValue()));
                    break;
                }
            }
        }
        for (int i = 2; i < a.length; i++) {
            String alias = Args.lower(a[i]);
            String name = ServerContext.ALIASES.get(alias); // an old name, asked by its exact name
            if (name != null) {
                out.add(Replies.bulk(alias));
                out.add(Replies.bulk(c.settings().get(name)));
            }
        }
        return Replies.array(out);
    }

    private static RedisMessage set(ServerContext c, byte[][] a) {
        Map<String, String> changes = new LinkedHashMap<>();
        for (int i = 2; i < a.length; i += 2) {
            String name = ServerContext.ALIASES.getOrDefault(Args.lower(a[i]), Args.lower(a[i]));
            String value = new String(a[i + 1], java.nio.charset.StandardCharsets.UTF_8);
            if (!c.settings().containsKey(name)) {
                return Replies.error("ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'");
            }
            if (changes.put(name, value) != null) {
                return Replies.error("ERR CONFIG SET failed (possibly related to argument '" + name
                        + "') - duplicate parameter");
            }
            String problem = c.checkSetting(name, value);
            if (problem != null) {
                return Replies.error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + problem);
            }
        }
        changes.forEach(c::applySetting);
        return Replies.OK;
    }
}
