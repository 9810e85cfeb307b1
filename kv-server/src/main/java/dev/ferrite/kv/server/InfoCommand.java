package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.MapStats;
import io.netty.handler.codec.redis.RedisMessage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * INFO [section ...], in Redis 7's sections and field names where Ferrite has the figure: server,
 * clients, memory, persistence, stats, replication (always a primary without replicas), cpu,
 * errorstats, commandstats, keyspace. No section: {@code default}, every section but
 * commandstats; {@code all} and {@code everything}: every one. Section names are case-insensitive
 * and each section is written once. Stateless.
 */
final class InfoCommand {

    /** The sections of {@code INFO} and {@code INFO default}. */
    private static final Set<String> DEFAULT = Set.of("server", "clients", "memory", "persistence", "stats",
            "replication", "cpu", "errorstats", "keyspace");

    private InfoCommand() {
    }

    static void register(CommandTable.Registry r) {
        r.add("info", -1, InfoCommand::info);
    }

    /** @return the sections asked for, lower-case */
    private static Set<String> wanted(byte[][] a) {
        Set<String> wanted = new HashSet<>();
        for (int i = 1; i < a.length; i++) {
            String w = Args.lower(a[i]);
            switch (w) {
                case "default" -> wanted.addAll(DEFAULT);
                case "all", "everything" -> {
                    wanted.addAll(DEFAULT);
                    wanted.add("commandstats");
                }
                default -> wanted.add(w);
            }
        }
        if (a.length == 1) {
            wanted.addAll(DEFAULT);
        }
        return wanted;
    }

    private static boolean wants(Set<String> wanted, String section) {
        return wanted.contains(section);
    }

    private static RedisMessage info(ServerContext c, ClientSession s, byte[][] a) {
        Set<String> wanted = wanted(a);
        StringBuilder b = new StringBuilder();
        ServerStats st = c.stats;
        if (wants(wanted, "server")) {
            long uptime = (System.currentTimeMillis() - c.startMillis) / 1000;
            section(b, "Server");
            line(b, "redis_version", "7.0.0"); // the Redis command set it follows, for clients that ask
            line(b, "redis_git_sha1", "00000000");
            line(b, "redis_git_dirty", 0);
            line(b, "redis_build_id", "0");
            line(b, "ferrite_version", ConnectionCommands.VERSION);
            line(b, "redis_mode", "standalone");
            line(b, "os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                    + System.getProperty("os.arch"));
            line(b, "arch_bits", 64);
            line(b, "java_version", System.getProperty("java.version"));
            line(b, "process_id", ProcessHandle.current().pid());
            line(b, "tcp_port", c.settings().getOrDefault("port", ""));
            line(b, "uptime_in_seconds", uptime);
            line(b, "uptime_in_days", uptime / 86400);
            line(b, "memory_backend", c.databases.backendName());
            line(b, "data_directory", c.databases.directory().path().toAbsolutePath());
        }
        if (wants(wanted, "clients")) {
            section(b, "Clients");
            line(b, "connected_clients", st.connectedClients.get());
            line(b, "maxclients", c.settings().getOrDefault("maxclients", ""));
            line(b, "blocked_clients", c.blocking.blockedClients());
        }
        if (wants(wanted, "memory")) {
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
            if (!c.databases.isClosed()) {
                offHeap += c.databases.collections().usedBytes(); // the collections' elements
            }
            Runtime rt = Runtime.getRuntime();
            long heap = rt.totalMemory() - rt.freeMemory();
            section(b, "Memory");
            line(b, "used_memory", offHeap + heap);
            line(b, "used_memory_human", human(offHeap + heap));
            line(b, "used_memory_offheap", offHeap); // the maps' index and entries, the collection store's pages
            line(b, "used_memory_offheap_reserved", reserved); // their segments, including untouched room to grow
            line(b, "used_memory_heap", heap);
            line(b, "used_memory_rss", residentBytes());
            RequestMemory requests = c.requestMemory;
            line(b, "mem_clients_requests", requests == null ? 0 : requests.held()); // unfinished requests' bytes
            line(b, "maxmemory_clients", requests == null ? 0 : requests.limit());
            line(b, "maxmemory", 0);
            line(b, "maxmemory_policy", "noeviction");
        }
        if (wants(wanted, "persistence")) {
            section(b, "Persistence");
            line(b, "loading", 0);
            line(b, "fsync", c.settings().getOrDefault("appendfsync", ""));
        }
        if (wants(wanted, "stats")) {
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
            line(b, "pubsub_channels", c.pubsub.channelCount());
            line(b, "pubsub_patterns", c.pubsub.patternCount());
            line(b, "total_error_replies", st.errorReplies.sum());
            line(b, "protocol_errors", st.protocolErrors.sum());
            line(b, "cross_protocol_closed", st.crossProtocolClosed.sum());
        }
        if (wants(wanted, "replication")) {
            section(b, "Replication");
            line(b, "role", "master");
            line(b, "connected_slaves", 0);
            line(b, "master_failover_state", "no-failover");
            line(b, "master_replid", "0000000000000000000000000000000000000000");
            line(b, "master_repl_offset", 0);
            line(b, "repl_backlog_active", 0);
        }
        if (wants(wanted, "cpu")) {
            section(b, "CPU");
            double[] cpu = ProcessCpu.seconds();
            line(b, "used_cpu_sys", String.format(Locale.ROOT, "%.6f", cpu[1]));
            line(b, "used_cpu_user", String.format(Locale.ROOT, "%.6f", cpu[0]));
            line(b, "used_cpu_sys_children", "0.000000");
            line(b, "used_cpu_user_children", "0.000000");
        }
        if (wants(wanted, "errorstats")) {
            section(b, "Errorstats");
            for (Map.Entry<String, Long> e : st.errorCounts().entrySet()) {
                b.append("errorstat_").append(e.getKey()).append(":count=").append(e.getValue()).append("\r\n");
            }
        }
        if (wants(wanted, "commandstats")) {
            section(b, "Commandstats");
            for (Map.Entry<String, ServerStats.CommandCounter> e : st.commands().entrySet()) {
                ServerStats.CommandCounter k = e.getValue();
                long calls = k.calls.sum();
                long micros = k.micros.sum();
                b.append("cmdstat_").append(e.getKey()).append(":calls=").append(calls).append(",usec=").append(micros)
                        .append(",usec_per_call=").append(String.format(Locale.ROOT, "%.2f", calls == 0 ? 0.0
                                : (double) micros / calls))
                        .append(",rejected_calls=").append(k.rejected.sum())
                        .append(",failed_calls=").append(k.errors.sum()).append("\r\n");
            }
        }
        if (wants(wanted, "keyspace")) {
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
