package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.MapStats;
import io.netty.handler.codec.redis.RedisMessage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The server's commands: TIME COMMAND (COUNT; DOCS and the list are empty, which redis-cli
 * accepts) FUNCTION (FLUSH and LIST of an empty library) INFO DBSIZE FLUSHDB FLUSHALL. Stateless.
 */
final class ServerCommands {

    private ServerCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("time", 1, (c, s, a) -> time());
        r.add("dbsize", 1, (c, s, a) -> {
            FerriteMap<byte[], byte[]> db = c.databases.ifOpen(s.db); // a database never written is empty
            return Replies.integer(db == null ? 0 : db.longSize());
        });
        r.add("flushdb", -1, (c, s, a) -> {
            if (!flushArgumentsValid(a)) {
                return Replies.SYNTAX;
            }
            c.databases.flush(s.db);
            return Replies.OK;
        });
        r.add("flushall", -1, (c, s, a) -> {
            if (!flushArgumentsValid(a)) {
                return Replies.SYNTAX;
            }
            c.databases.flushAll();
            return Replies.OK;
        });
        r.add("command", -1, ServerCommands::command);
        r.add("function", -2, ServerCommands::function);
        r.add("info", -1, ServerCommands::info);
    }

    /**
     * @return whether FLUSHDB's or FLUSHALL's arguments are none, or SYNC or ASYNC alone (both flush
     *         at once here: a flush deletes files, see {@link Databases#flush})
     */
    private static boolean flushArgumentsValid(byte[][] a) {
        return a.length == 1 || a.length == 2 && (Args.lower(a[1]).equals("sync") || Args.lower(a[1]).equals("async"));
    }

    /**
     * FUNCTION, without scripting: the library is always empty. FLUSH [ASYNC|SYNC] and LIST answer
     * as Redis's do for an empty library; LOAD, DELETE, DUMP, RESTORE, STATS and KILL are refused.
     */
    private static RedisMessage function(ServerContext c, ClientSession s, byte[][] a) {
        switch (Args.lower(a[1])) {
            case "flush":
                if (a.length > 3 || a.length == 3 && !Args.lower(a[2]).equals("async") && !Args.lower(a[2]).equals("sync")) {
                    return Replies.error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
                }
                return Replies.OK;
            case "list":
                return Replies.array(List.of());
            default:
                return Replies.error("ERR this server has no scripting: FUNCTION " + Args.lower(a[1]).toUpperCase(Locale.ROOT)
                        + " is not supported (FLUSH and LIST are, on the always empty library)");
        }
    }

    private static RedisMessage time() {
        Instant now = Instant.now();
        return Replies.array(List.of(Replies.bulk(Long.toString(now.getEpochSecond())),
                Replies.bulk(Long.toString(now.getNano() / 1000))));
    }

    /**
     * COMMAND [COUNT | DOCS | INFO | LIST ...]: the count; for the others no details (an empty
     * array is a valid answer: redis-cli asks COMMAND DOCS on connect for its hints). Another
     * subcommand gets Redis's unknown-subcommand error.
     */
    private static RedisMessage command(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length == 1) {
            return Replies.array(List.of());
        }
        switch (Args.lower(a[1])) {
            case "count":
                return a.length == 2 ? Replies.integer(CommandTable.count()) : Replies.arity("command|count");
            case "docs":
            case "info":
            case "list":
                return Replies.array(List.of());
            default:
                return Replies.unknownSubcommand(a[1], "COMMAND");
        }
    }

    /** INFO [section ...]: server, clients, memory, persistence, stats, keyspace; "all"/"everything" for all. */
    private static RedisMessage info(ServerContext c, ClientSession s, byte[][] a) {
        List<String> wanted = new ArrayList<>();
        for (int i = 1; i < a.length; i++) {
            wanted.add(Args.lower(a[i]));
        }
        boolean all = wanted.isEmpty() || wanted.contains("all") || wanted.contains("everything")
                || wanted.contains("default");
        StringBuilder b = new StringBuilder();
        ServerStats st = c.stats;
        if (all || wanted.contains("server")) {
            long uptime = (System.currentTimeMillis() - c.startMillis) / 1000;
            section(b, "Server");
            line(b, "redis_version", "7.0.0"); // the Redis command set it follows, for clients that ask
            line(b, "ferrite_version", ConnectionCommands.VERSION);
            line(b, "redis_mode", "standalone");
            line(b, "os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                    + System.getProperty("os.arch"));
            line(b, "java_version", System.getProperty("java.version"));
            line(b, "process_id", ProcessHandle.current().pid());
            line(b, "tcp_port", c.settings().getOrDefault("port", ""));
            line(b, "uptime_in_seconds", uptime);
            line(b, "uptime_in_days", uptime / 86400);
        }
        if (all || wanted.contains("clients")) {
            section(b, "Clients");
            line(b, "connected_clients", st.connectedClients.get());
            line(b, "maxclients", c.settings().getOrDefault("maxclients", ""));
        }
        if (all || wanted.contains("memory")) {
            long offHeap = 0;
            long reserved = 0;
            for (int i = 0; i < Databases.COUNT; i++) {
                FerriteMap<byte[], byte[]> map = c.databases.ifOpen(i);
                if (map != null) {
                    MapStats stats = map.stats();
                    offHeap += stats.writtenBytes();
                    reserved += stats.segmentBytes();
                }
            }
            Runtime rt = Runtime.getRuntime();
            long heap = rt.totalMemory() - rt.freeMemory();
            section(b, "Memory");
            line(b, "used_memory", offHeap + heap);
            line(b, "used_memory_human", human(offHeap + heap));
            line(b, "used_memory_offheap", offHeap); // the maps' index and entries
            line(b, "used_memory_offheap_reserved", reserved); // their segments, including untouched room to grow
            line(b, "used_memory_heap", heap);
            line(b, "used_memory_rss", residentBytes());
            RequestMemory requests = c.requestMemory;
            line(b, "mem_clients_requests", requests == null ? 0 : requests.held()); // unfinished requests' bytes
            line(b, "maxmemory_clients", requests == null ? 0 : requests.limit());
            line(b, "maxmemory", 0);
            line(b, "maxmemory_policy", "noeviction");
        }
        if (all || wanted.contains("persistence")) {
            section(b, "Persistence");
            line(b, "loading", 0);
            line(b, "fsync", c.settings().getOrDefault("appendfsync", ""));
        }
        if (all || wanted.contains("stats")) {
            section(b, "Stats");
            line(b, "total_connections_received", st.connectionsReceived.sum());
            line(b, "total_commands_processed", st.commands.sum());
            line(b, "total_net_input_bytes", st.bytesIn.sum());
            line(b, "total_net_output_bytes", st.bytesOut.sum());
            line(b, "rejected_connections", st.rejectedConnections.sum());
            line(b, "evicted_clients", st.evictedClients.sum());
            line(b, "expired_keys", st.expiredKeys.sum());
            line(b, "keyspace_hits", st.keyspaceHits.sum());
            line(b, "keyspace_misses", st.keyspaceMisses.sum());
            line(b, "total_error_replies", st.errorReplies.sum());
            line(b, "protocol_errors", st.protocolErrors.sum());
            line(b, "cross_protocol_closed", st.crossProtocolClosed.sum());
        }
        if (all || wanted.contains("commandstats")) {
            section(b, "Commandstats");
            for (Map.Entry<String, ServerStats.CommandCounter> e : st.commands().entrySet()) {
                long calls = e.getValue().calls.sum();
                long micros = e.getValue().micros.sum();
                b.append("cmdstat_").append(e.getKey()).append(":calls=").append(calls).append(",usec=").append(micros)
                        .append(",usec_per_call=").append(String.format(Locale.ROOT, "%.2f", calls == 0 ? 0.0
                                : (double) micros / calls))
                        .append(",failed_calls=").append(e.getValue().errors.sum()).append("\r\n");
            }
        }
        if (all || wanted.contains("keyspace")) {
            section(b, "Keyspace");
            for (int i = 0; i < Databases.COUNT; i++) {
                FerriteMap<byte[], byte[]> map = c.databases.ifOpen(i);
                if (map != null && !map.isEmpty()) {
                    b.append("db").append(i).append(":keys=").append(map.longSize())
                            .append(",expires=").append(c.expiryCensus.expiringKeys(i))
                            .append(",avg_ttl=").append(c.expiryCensus.averageTtlMillis(i, System.currentTimeMillis()))
                            .append("\r\n");
                }
            }
        }
        return Replies.bulk(b.toString());
    }

    private static void section(StringBuilder b, String name) {
        if (b.length() > 0) {
            b.append("\r\n");
        }
        b.append("# ").append(name).append("\r\n");
    }

    private static void line(StringBuilder b, String key, Object value) {
        b.append(key).append(':').append(value).append("\r\n");
    }

    private static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + "B";
        }
        int unit = (63 - Long.numberOfLeadingZeros(bytes)) / 10;
        return String.format(Locale.ROOT, "%.2f%c", bytes / (double) (1L << (10 * unit)), " KMGTPE".charAt(unit));
    }

    /** @return the process's resident memory in bytes from /proc/self/statm, or 0 where there is none */
    private static long residentBytes() {
        try {
            String[] f = Files.readString(Path.of("/proc/self/statm")).trim().split(" ");
            return Long.parseLong(f[1]) * 4096;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
