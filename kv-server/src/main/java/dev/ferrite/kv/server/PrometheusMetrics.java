package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.MapStats;

import java.util.Locale;
import java.util.Map;

/**
 * The server's counters in Prometheus's text exposition format (version 0.0.4), for
 * {@code GET /metrics}: commands and errors by command, command latency as a histogram,
 * connections, keyspace hits, misses and expiries, entries and off-heap bytes per database, HTTP
 * responses by status class. Stateless.
 */
final class PrometheusMetrics {

    /** The content type of the format. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusMetrics() {
    }

    static String render(ServerContext server) {
        ServerStats st = server.stats;
        StringBuilder b = new StringBuilder(4096);
        header(b, "ferrite_commands_total", "counter", "Commands run, by command.");
        Map<String, ServerStats.CommandCounter> commands = st.commands();
        commands.forEach((name, c) -> sample(b, "ferrite_commands_total", "command", name, c.calls.sum()));
        header(b, "ferrite_command_errors_total", "counter", "Error replies, by command.");
        commands.forEach((name, c) -> sample(b, "ferrite_command_errors_total", "command", name, c.errors.sum()));
        header(b, "ferrite_command_seconds_total", "counter", "Time spent running each command.");
        commands.forEach((name, c) -> b.append("ferrite_command_seconds_total{command=\"").append(name).append("\"} ")
                .append(String.format(Locale.ROOT, "%.6f", c.micros.sum() / 1e6)).append('\n'));

        header(b, "ferrite_command_duration_seconds", "histogram", "Time to run one command (not counting the network).");
        long[] counts = st.latencyCounts();
        long cumulative = 0;
        for (int i = 0; i < counts.length; i++) {
            cumulative += counts[i];
            String le = i < ServerStats.LATENCY_BOUNDS_MICROS.length
                    ? String.format(Locale.ROOT, "%.6f", ServerStats.LATENCY_BOUNDS_MICROS[i] / 1e6) : "+Inf";
            b.append("ferrite_command_duration_seconds_bucket{le=\"").append(le).append("\"} ").append(cumulative).append('\n');
        }
        long totalMicros = commands.values().stream().mapToLong(c -> c.micros.sum()).sum();
        b.append("ferrite_command_duration_seconds_sum ").append(String.format(Locale.ROOT, "%.6f", totalMicros / 1e6)).append('\n');
        b.append("ferrite_command_duration_seconds_count ").append(cumulative).append('\n');

        gauge(b, "ferrite_connected_clients", "Connections open now (RESP and HTTP).", st.connectedClients.get());
        counter(b, "ferrite_connections_received_total", "Connections accepted (RESP and HTTP).", st.connectionsReceived.sum());
        counter(b, "ferrite_rejected_connections_total", "Connections refused over maxclients.", st.rejectedConnections.sum());
        counter(b, "ferrite_protocol_errors_total", "Connections closed for a malformed or oversized request.",
                st.protocolErrors.sum());
        counter(b, "ferrite_evicted_clients_total",
                "Connections closed because their unfinished request did not fit maxmemory-clients.",
                st.evictedClients.sum());
        RequestMemory requests = server.requestMemory;
        gauge(b, "ferrite_clients_request_bytes", "Bytes all clients' unfinished requests hold.",
                requests == null ? 0 : requests.held());
        counter(b, "ferrite_cross_protocol_closed_total",
                "Connections closed for sending an HTTP request (POST or Host:) to the RESP port.",
                st.crossProtocolClosed.sum());
        counter(b, "ferrite_keyspace_hits_total", "Reads that found a live key.", st.keyspaceHits.sum());
        counter(b, "ferrite_keyspace_misses_total", "Reads that found no live key.", st.keyspaceMisses.sum());
        counter(b, "ferrite_expired_keys_total", "Expired keys removed.", st.expiredKeys.sum());
        counter(b, "ferrite_net_input_bytes_total", "Bytes received from clients (RESP and HTTP).", st.bytesIn.sum());
        counter(b, "ferrite_net_output_bytes_total", "Bytes sent to clients (RESP and HTTP).", st.bytesOut.sum());

        header(b, "ferrite_http_responses_total", "counter", "HTTP responses, by status class.");
        for (int i = 1; i < st.httpResponses.length; i++) {
            sample(b, "ferrite_http_responses_total", "code", i + "xx", st.httpResponses[i].sum());
        }

        header(b, "ferrite_keys", "gauge", "Entries per open database (expired ones not yet reclaimed included).");
        StringBuilder bytes = new StringBuilder();
        for (int db = 0; db < Databases.COUNT; db++) {
            FerriteMap<byte[], byte[]> map = server.databases.ifOpen(db);
            if (map != null) {
                MapStats s = map.stats();
                sample(b, "ferrite_keys", "db", Integer.toString(db), s.entries());
                sample(bytes, "ferrite_offheap_bytes", "db", Integer.toString(db), s.writtenBytes());
            }
        }
        header(b, "ferrite_offheap_bytes", "gauge", "Bytes each open database's map has written (index and entries).");
        b.append(bytes);
        Runtime rt = Runtime.getRuntime();
        gauge(b, "ferrite_heap_used_bytes", "JVM heap in use.", rt.totalMemory() - rt.freeMemory());
        return b.toString();
    }

    private static void header(StringBuilder b, String name, String type, String help) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder b, String name, String label, String value, long v) {
        b.append(name).append('{').append(label).append("=\"").append(value).append("\"} ").append(v).append('\n');
    }

    private static void gauge(StringBuilder b, String name, String help, long v) {
        header(b, name, "gauge", help);
        b.append(name).append(' ').append(v).append('\n');
    }

    private static void counter(StringBuilder b, String name, String help, long v) {
        header(b, name, "counter", help);
        b.append(name).append(' ').append(v).append('\n');
    }
}
