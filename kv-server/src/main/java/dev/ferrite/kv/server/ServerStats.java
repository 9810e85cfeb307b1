package dev.ferrite.kv.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one server for INFO and {@code /metrics}: connections, commands by name, errors,
 * keyspace hits and misses, expired keys. Thread-safe; counting costs an uncontended add.
 */
final class ServerStats {

    /** Connections open now. */
    final AtomicInteger connectedClients = new AtomicInteger();
    /** Connections accepted since start. */
    final LongAdder connectionsReceived = new LongAdder();
    /** Connections refused since start because {@code maxclients} were open. */
    final LongAdder rejectedConnections = new LongAdder();
    /** Connections closed for idling longer than the timeout. */
    final LongAdder idleClosed = new LongAdder();
    /** Connections closed for a client output buffer over its limit. */
    final LongAdder outputBufferClosed = new LongAdder();
    /** Requests closed with a protocol error. */
    final LongAdder protocolErrors = new LongAdder();
    /** Commands run, all kinds. */
    final LongAdder commands = new LongAdder();
    /** Error replies sent. */
    final LongAdder errorReplies = new LongAdder();
    /** Reads that found a live key. */
    final LongAdder keyspaceHits = new LongAdder();
    /** Reads that found no live key. */
    final LongAdder keyspaceMisses = new LongAdder();
    /** Keys found expired and removed. */
    final LongAdder expiredKeys = new LongAdder();
    /** Bytes received from and sent to clients. */
    final LongAdder bytesIn = new LongAdder();
    final LongAdder bytesOut = new LongAdder();

    private final Map<String, CommandCounter> byCommand = new ConcurrentHashMap<>();

    /** Calls and time of one command. */
    static final class CommandCounter {
        final LongAdder calls = new LongAdder();
        final LongAdder micros = new LongAdder();
        final LongAdder errors = new LongAdder();
    }

    /** @return the counter of a command (a known command's lower-case name) */
    CommandCounter command(String name) {
        return byCommand.computeIfAbsent(name, n -> new CommandCounter());
    }

    /** @return every command's counter by name, sorted */
    Map<String, CommandCounter> commands() {
        return new TreeMap<>(byCommand);
    }
}
