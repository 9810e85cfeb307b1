package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every command of one server shares: its databases, counters, password and the settings
 * CONFIG GET and INFO report. Thread-safe (immutable but for the thread-safe parts).
 */
final class ServerContext {

    final Databases databases;
    /** Stops the server from a command (SHUTDOWN): returns at once, the stop runs on a thread of its own. */
    volatile Runnable shutdown;
    /** Lets multi-entry commands run alone. */
    final CommandGate gate = new CommandGate();
    final ServerStats stats = new ServerStats();
    /** Who listens on which channels and patterns. */
    final PubSub pubsub = new PubSub();
    /** Keyspace notifications, published through {@link #pubsub}; off until CONFIG SET enables them. */
    final KeyspaceEvents events = new KeyspaceEvents(pubsub);
    /** The clients blocked on lists. */
    final BlockingWaits blocking = new BlockingWaits();
    /** Milliseconds since the epoch when the server started. */
    final long startMillis = System.currentTimeMillis();
    /** When written data is forced to disk. */
    final FsyncPolicy fsync;
    /**
     * Writes that may have given a key an expiry it did not have where it was (SET EX, EXPIRE,
     * RENAME of an expiring key...), counted after they land: while it stands still after a pass
     * that found no expiring entry, {@link ExpiryReaper} rests.
     */
    final AtomicLong expiryWrites = new AtomicLong();

    /**
     * @return {@link #expiryWrites} with those of the in-process databases ({@link KvDatabase}) of
     *         every process: it stands still only while no process gives a key an expiry
     */
    long allExpiryWrites() {
        return expiryWrites.get() + databases.collections().sharedExpiryWrites();
    }
    /** The expiring keys of each database, as the expiry reaper last counted them (INFO keyspace). */
    final ExpiryCensus expiryCensus = new ExpiryCensus();
    /** All clients' unfinished requests (INFO's {@code mem_clients_requests}); set once at start. */
    volatile RequestMemory requestMemory;
    private final byte[] password;
    /** Settings as CONFIG GET names them, in order. */
    private final Map<String, String> settings;

    /**
     * @param fsync    when written data is forced to disk
     * @param password the password clients must give (AUTH, HTTP bearer), or null for none
     * @param settings the settings CONFIG GET reports, by Redis's names
     */
    ServerContext(Databases databases, FsyncPolicy fsync, String password, Map<String, String> settings) {
        this.databases = databases;
        this.fsync = fsync;
        this.password = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
        LinkedHashMap<String, String> all = new LinkedHashMap<>(settings);
        ENCODING_THRESHOLDS.forEach(all::putIfAbsent);
        all.putIfAbsent(NOTIFY_KEYSPACE_EVENTS, "");
        this.settings = Collections.synchronizedMap(all);
    }

    /**
     * Redis's thresholds for switching a collection to its large encoding, with Redis's defaults:
     * known to CONFIG GET and SET so that tools and tests that tune them work. They change only
     * what OBJECT ENCODING reports ({@link #threshold}): Ferrite keeps one layout per type.
     */
    static final Map<String, String> ENCODING_THRESHOLDS = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(
            Map.ofEntries(Map.entry("list-max-listpack-size", "-2"), Map.entry("list-compress-depth", "0"),
                    Map.entry("hash-max-listpack-entries", "128"), Map.entry("hash-max-listpack-value", "64"),
                    Map.entry("set-max-intset-entries", "512"), Map.entry("set-max-listpack-entries", "128"),
                    Map.entry("set-max-listpack-value", "64"), Map.entry("zset-max-listpack-entries", "128"),
                    Map.entry("zset-max-listpack-value", "64"))));

    /**
     * @return why CONFIG SET may not give {@code name} (a known setting) that value, or null if it may
     */
    String checkSetting(String name, String value) {
        if (name.equals(NOTIFY_KEYSPACE_EVENTS)) {
            return KeyspaceEvents.parse(value) < 0 ? "Invalid event class character. Use 'Ag$lshzxeKEtmdn'." : null;
        }
        if (name.equals("save") && value.isEmpty() || name.equals("appendonly") && value.equals("no")) {
            return null; // what the server does anyway: no snapshots, no append-only file
        }
        if (!ENCODING_THRESHOLDS.containsKey(name)) {
            return "can't set immutable config";
        }
        try {
            Long.parseLong(value);
            return null;
        } catch (NumberFormatException e) {
            return "argument couldn't be parsed into an integer";
        }
    }

    /** Sets a setting {@link #checkSetting} allowed. */
    void applySetting(String name, String value) {
        if (name.equals(NOTIFY_KEYSPACE_EVENTS)) {
            int flags = KeyspaceEvents.parse(value);
            events.enable(flags);
            settings.put(name, KeyspaceEvents.format(flags));
            return;
        }
        settings.put(name, value);
    }

    /** Redis's older names of settings (before 7.0), which CONFIG GET and SET take for the new ones. */
    static final Map<String, String> ALIASES = Map.of("hash-max-ziplist-entries", "hash-max-listpack-entries",
            "hash-max-ziplist-value", "hash-max-listpack-value", "zset-max-ziplist-entries", "zset-max-listpack-entries",
            "zset-max-ziplist-value", "zset-max-listpack-value", "list-max-ziplist-size", "list-max-listpack-size");

    /** @return a numeric setting of {@link #ENCODING_THRESHOLDS} */
    long threshold(String name) {
        return Long.parseLong(settings.get(name));
    }

    /** The setting of {@link KeyspaceEvents}, by Redis's name. */
    static final String NOTIFY_KEYSPACE_EVENTS = "notify-keyspace-events";

    /** @return the keyspace of the session's selected database (its creation deferred, see {@link #writable}) */
    Keyspace keyspace(ClientSession session) {
        return new Keyspace(databases, session.db, stats, events, !session.createInline);
    }

    /**
     * The session's selected database for a write. On an event loop a database that does not
     * exist yet is not created in place, which would hold up every connection of the loop: its
     * creation starts on the creator thread and the command is run again when it is done.
     *
     * @return the open database
     * @throws DatabaseCreating if it does not exist yet (the command has written nothing)
     */
    FerriteMap<byte[], byte[]> writable(ClientSession session) {
        return session.createInline ? databases.get(session.db) : databases.getOrCreateLater(session.db);
    }

    /** @return the longest string a client may send or make, in bytes ({@code proto-max-bulk-len}) */
    long maxBulkBytes() {
        return Long.parseLong(settings.getOrDefault("proto-max-bulk-len", "67108864"));
    }

    /**
     * Database {@code db} for a write, as {@link #writable(ClientSession)} gives the session's own.
     *
     * @throws DatabaseCreating if it does not exist yet
     */
    FerriteMap<byte[], byte[]> writable(int db, ClientSession session) {
        return session.createInline ? databases.get(db) : databases.getOrCreateLater(db);
    }

    /** @return whether clients must authenticate */
    boolean requiresPassword() {
        return password != null;
    }

    /** @return whether {@code attempt} is the password; compared in constant time */
    boolean passwordMatches(byte[] attempt) {
        return password != null && MessageDigest.isEqual(password, attempt);
    }

    /** @return the settings CONFIG GET reports (Redis's names, current values) */
    Map<String, String> settings() {
        return settings;
    }
}
