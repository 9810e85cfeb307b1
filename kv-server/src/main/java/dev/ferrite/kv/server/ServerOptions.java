package dev.ferrite.kv.server;

import dev.ferrite.FerriteException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runnable server's settings from the command line ({@code --name value}) and a config file
 * ({@code --config FILE}: one {@code name value} per line, {@code #} comments, as redis.conf),
 * with the same names in both; a flag overrides the file. Names: port, http-port, bind, data,
 * backend, requirepass, fsync, maxclients, timeout, threads, busy-poll, max-output-buffer,
 * proto-max-bulk-len, max-arguments, max-inline, max-request, maxmemory-clients, http-allowed-hosts (comma-separated). Not
 * thread-safe.
 */
final class ServerOptions {

    /** A setting: its name, its default as the runnable server has it, and what it sets. */
    record Flag(String name, String defaultValue, String meaning) {
    }

    /** Every setting, in the order {@code --help} lists them. */
    static final List<Flag> FLAGS = List.of(
            new Flag("port", "6380", "the RESP port (0: any free port)"),
            new Flag("http-port", Integer.toString(ServerOptions.DEFAULT_HTTP_PORT), "the HTTP port (-1: no HTTP)"),
            new Flag("bind", "127.0.0.1", "the address to listen on; another than loopback needs requirepass"),
            new Flag("data", "ferrite-data", "the data directory (made owner-only if missing)"),
            new Flag("backend", "Ferrite's default", "the memory backend of the maps (unsafe, bytebuffer, ffm, shm)"),
            new Flag("requirepass", "none", "the password for AUTH and the HTTP bearer token"),
            new Flag("fsync", "everysec", "when writes are forced to disk: always, everysec or no"),
            new Flag("maxclients", "10000", "most connections at once, RESP and HTTP together"),
            new Flag("timeout", "0", "seconds an idle connection is kept (0: forever)"),
            new Flag("threads", "one per core", "event-loop threads"),
            new Flag("busy-poll", Integer.toString(KvServerBuilder.DEFAULT_BUSY_POLL_MICROS), "µs an idle event loop keeps polling before it sleeps (0 to 10000; 50 suits"
                    + " clients that send without pause)"),
            new Flag("max-output-buffer", "536870912", "bytes of replies a client may leave unread before it is"
                    + " disconnected"),
            new Flag("proto-max-bulk-len", Integer.toString(ServerLimits.DEFAULTS.maxBulkBytes()), "longest argument, in bytes"),
            new Flag("max-arguments", Integer.toString(ServerLimits.DEFAULTS.maxArguments()), "most arguments in one request"),
            new Flag("max-inline", Integer.toString(ServerLimits.DEFAULTS.maxInlineBytes()), "longest inline request line, in bytes"),
            new Flag("max-request", Long.toString(ServerLimits.DEFAULTS.maxRequestBytes()), "most bytes of one request's arguments together"),
            new Flag("maxmemory-clients", Long.toString(ServerLimits.DEFAULTS.maxClientsRequestBytes()), "most bytes all clients' unfinished requests hold together;"
                    + " a client over it is disconnected"),
            new Flag("http-allowed-hosts", "none", "comma-separated names HTTP requests may give as Host and Origin,"
                    + " besides localhost, loopback and the bound address (*: any)"),
            new Flag("config", "none", "a file of 'name value' lines with these names; flags win"));

    /** Every setting name, in the order the usage lists them. */
    static final List<String> NAMES = FLAGS.stream().map(Flag::name).toList();

    /** @return {@code --help}'s text: every flag with its default and meaning */
    static String help() {
        StringBuilder b = new StringBuilder("usage: java -jar ferrite-kv-server.jar [--name value ...]\n\n");
        for (Flag f : FLAGS) {
            b.append(String.format(java.util.Locale.ROOT, "  --%-19s %s (default: %s)%n", f.name(), f.meaning(),
                    f.defaultValue()));
        }
        return b.toString();
    }

    /** The defaults of the runnable server: RESP on 6380, HTTP on 8080, data in ./ferrite-data. */
    static final int DEFAULT_HTTP_PORT = 8080;

    private ServerOptions() {
    }

    /** @return the usage line */
    static String usage() {
        StringBuilder b = new StringBuilder("usage: java -jar ferrite-kv-server.jar");
        for (String n : NAMES) {
            b.append(" [--").append(n).append(' ').append(n.equals("config") ? "FILE" : "VALUE").append(']');
        }
        return b.toString();
    }

    /**
     * @param args the command line
     * @return a builder with every setting applied (the runnable defaults where none is given)
     * @throws FerriteException naming the flag, line or value that is wrong
     */
    static KvServerBuilder parse(String[] args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (!flag.startsWith("--") || !NAMES.contains(flag.substring(2))) {
                throw new FerriteException("unknown flag " + flag);
            }
            if (i + 1 >= args.length) {
                throw new FerriteException("missing value after " + flag);
            }
            flags.put(flag.substring(2), args[++i]);
        }
        Map<String, String> settings = new LinkedHashMap<>();
        if (flags.containsKey("config")) {
            settings.putAll(readFile(Path.of(flags.get("config"))));
        }
        settings.putAll(flags);
        settings.remove("config");
        KvServerBuilder b = KvServer.builder().httpPort(DEFAULT_HTTP_PORT).lowPriorityFsync(true);
        ServerLimits d = ServerLimits.DEFAULTS;
        int bulk = d.maxBulkBytes();
        int arguments = d.maxArguments();
        int inline = d.maxInlineBytes();
        long request = d.maxRequestBytes();
        long clients = d.maxClientsRequestBytes();
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String v = e.getValue();
            switch (e.getKey()) {
                case "port" -> b.port(toInt(e.getKey(), v));
                case "http-port" -> b.httpPort(toInt(e.getKey(), v));
                case "bind" -> b.bind(v);
                case "data" -> b.dataDirectory(Path.of(v));
                case "backend" -> b.backend(v);
                case "requirepass" -> b.requirePassword(v.isEmpty() ? null : v);
                case "fsync", "appendfsync" -> b.fsync(FsyncPolicy.parse(v));
                case "maxclients" -> b.maxClients(toInt(e.getKey(), v));
                case "timeout" -> b.idleTimeoutSeconds(toLong(e.getKey(), v));
                case "threads" -> b.threads(toInt(e.getKey(), v));
                case "busy-poll" -> b.busyPollMicros(toInt(e.getKey(), v));
                case "max-output-buffer" -> b.maxOutputBufferBytes(toLong(e.getKey(), v));
                case "proto-max-bulk-len" -> bulk = toInt(e.getKey(), v);
                case "max-arguments" -> arguments = toInt(e.getKey(), v);
                case "max-inline" -> inline = toInt(e.getKey(), v);
                case "max-request" -> request = toLong(e.getKey(), v);
                case "maxmemory-clients" -> clients = toLong(e.getKey(), v);
                case "http-allowed-hosts" -> b.httpAllowedHosts(v.isBlank() ? List.of() : List.of(v.split("\\s*,\\s*")));
                default -> throw new FerriteException("unknown setting " + e.getKey());
            }
        }
        return b.limits(new ServerLimits(bulk, arguments, inline, request, clients));
    }

    /** Reads a redis.conf-style file: {@code name value} lines; blank lines and # comments ignored. */
    private static Map<String, String> readFile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new FerriteException("cannot read the config file " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] kv = line.split("\\s+", 2);
            String name = kv[0].toLowerCase(java.util.Locale.ROOT);
            if (!NAMES.contains(name) && !name.equals("appendfsync") || name.equals("config")) {
                throw new FerriteException(file + " line " + (n + 1) + ": unknown setting '" + kv[0] + "'");
            }
            String value = kv.length > 1 ? kv[1].strip() : "";
            if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                value = value.substring(1, value.length() - 1);
            }
            out.put(name, value);
        }
        return out;
    }

    private static int toInt(String name, String value) {
        long v = toLong(name, value);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new FerriteException(name + " " + value + " is out of the int range");
        }
        return (int) v;
    }

    private static long toLong(String name, String value) {
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new FerriteException(name + " '" + value + "' is not a whole number");
        }
    }
}
