package dev.ferrite.kv.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection's state: its id, name, database, login and transaction. Used by its channel's
 * thread only.
 */
final class ClientSession {

    private static final AtomicLong IDS = new AtomicLong();

    /** The connection's id ({@code CLIENT ID}), unique in this server process. */
    final long id = IDS.incrementAndGet();
    /** The selected database, 0 to {@link Databases#COUNT} - 1. */
    int db;
    /** The name set by {@code CLIENT SETNAME}, or null. */
    String name;
    /** Set by {@code QUIT}: close once the reply is written. */
    boolean quit;
    /** Bit n set: database n was written since the last force to disk (used by {@link FsyncPolicy#ALWAYS}). */
    int dirtyDatabases;
    /** Whether the client gave the password (always true when the server has none). */
    boolean authenticated;
    /**
     * Set while a command runs again after its database's creation failed on the creator thread:
     * it then creates the database itself, on the event loop, and answers the failure as an error.
     */
    boolean createInline;
    /** When the blocking command this client runs gives up (epoch milliseconds; 0: none blocks, -1: for ever). */
    long blockedUntil;
    /** Whether EXEC runs this client's queue: a blocking command does not block then. */
    boolean executing;

    /** Requests queued since MULTI, or null outside a transaction. */
    java.util.List<byte[][]> queued;
    /** Set when a request queued since MULTI was refused: EXEC then runs nothing. */
    boolean queueFailed;
    /** Keys WATCHed with their stored values then (null: absent), or null if none. */
    java.util.List<TransactionCommands.Watched> watched;

    /** Set by CLIENT REPLY OFF: no reply is sent (but subscription notices and messages) until ON. */
    boolean repliesOff;
    /** Set to 2 by CLIENT REPLY SKIP: the replies still to silence, its own and the next command's. */
    int repliesToSkip;

    /**
     * Called once per request run (not per command inside EXEC), after it ran.
     *
     * @return whether its reply is to be dropped (CLIENT REPLY OFF or SKIP)
     */
    boolean silenced() {
        if (repliesToSkip > 0) {
            repliesToSkip--;
            return true;
        }
        return repliesOff;
    }

    /** The connection as a receiver of published messages; set once by its handler. */
    PubSub.Subscriber subscriber;
    /** The channels it listens on, in the order subscribed, or null before its first SUBSCRIBE. */
    java.util.Set<PubSub.Name> channels;
    /** The patterns it listens on, or null before its first PSUBSCRIBE. */
    java.util.Set<PubSub.Name> patterns;

    /** @return how many channels and patterns it listens on: above 0, RESP2 allows it only the subscription commands */
    int subscriptions() {
        return (channels == null ? 0 : channels.size()) + (patterns == null ? 0 : patterns.size());
    }

    /** @param authenticated whether the connection starts logged in (the server has no password) */
    ClientSession(boolean authenticated) {
        this.authenticated = authenticated;
    }
}
