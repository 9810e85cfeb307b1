package dev.ferrite.kv.server;

import java.util.concurrent.CompletableFuture;

/**
 * Thrown by {@link Databases#getOrCreateLater} instead of creating a database on an event loop:
 * the command that needs it was stopped before it wrote anything, and runs again once
 * {@link #ready} completes (normally or not). A control signal, not an error: no stack trace.
 */
final class DatabaseCreating extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The database being created, 0 to {@link Databases#COUNT} - 1. */
    final int database;
    /** Completes when the creation ends, exceptionally if it failed. */
    final transient CompletableFuture<Void> ready;

    DatabaseCreating(int database, CompletableFuture<Void> ready) {
        super("database " + database + " is being created", null, false, false);
        this.database = database;
        this.ready = ready;
    }
}
