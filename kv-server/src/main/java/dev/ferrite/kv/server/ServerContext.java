package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every command of one server shares: its databases, counters, password and the settings
 * CONFIG GET and INFO report. Thread-safe (immutable but for the thread-safe parts).
 */
final class ServerContext {

    final Databases databases;
    final ServerStats stats = new ServerStats();
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
        this.settings = Collections.synchronizedMap(new LinkedHashMap<>(settings));
    }

    /** Settings CONFIG SET may change while the server runs. */
    private static final Set<String> MUTABLE = Set.of();

    /**
     * @return why CONFIG SET may not give {@code name} (a known setting) that value, or null if it may
     */
    String checkSetting(String name, String value) {
        return MUTABLE.contains(name) ? null : "can't set immutable config";
    }

    /** Sets a setting {@link #checkSetting} allowed. */
    void applySetting(String name, String value) {
        settings.put(name, value);
    }

    /** @return the keyspace of the session's selected database (its creation deferred, see {@link #writable}) */
    Keyspace keyspace(ClientSession session) {
        return new Keyspace(databases, session.db, stats, !session.createInline);
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
