package dev.ferrite.kv.server;

import java.util.Map;
import java.util.TreeMap;
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
    /** Connections closed for speaking HTTP on the RESP port ({@code POST}, {@code Host:}). */
    final LongAdder crossProtocolClosed = new LongAdder();
    /** Connections closed because their unfinished request did not fit the clients' memory limit. */
    final LongAdder evictedClients = new LongAdder();
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

    /** Upper bounds, in microseconds, of the command latency histogram's buckets (then +Inf). */
    static final long[] LATENCY_BOUNDS_MICROS = {10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 50_000, 250_000};
    /** Commands whose run took at most each bound (the last element: all of them), not cumulative. */
    private final LongAdder[] latencyBuckets = new LongAdder[LATENCY_BOUNDS_MICROS.length + 1];
    /** HTTP requests answered, by status code class index (status / 100). */
    final LongAdder[] httpResponses = new LongAdder[6];

    {
        for (int i = 0; i < latencyBuckets.length; i++) {
            latencyBuckets[i] = new LongAdder();
        }
        for (int i = 0; i < httpResponses.length; i++) {
            httpResponses[i] = new LongAdder();
        }
    }

    /** Counters by command id ({@link CommandTable.Command#id()}). */
    private final CommandCounter[] byCommand;

    ServerStats() {
        byCommand = new CommandCounter[CommandTable.count()];
        for (int i = 0; i < byCommand.length; i++) {
            byCommand[i] = new CommandCounter();
        }
    }

    /** Counts one command run that took {@code micros}. */
    void recordLatency(long micros) {
        int i = 0;
        while (i < LATENCY_BOUNDS_MICROS.length && micros > LATENCY_BOUNDS_MICROS[i]) {
            i++;
        }
        latencyBuckets[i].increment();
    }

    /** @return commands per latency bucket (not cumulative), the last being over every bound */
    long[] latencyCounts() {
        long[] out = new long[latencyBuckets.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = latencyBuckets[i].sum();
        }
        return out;
    }

    /**
     * CONFIG RESETSTAT: zeroes what Redis's resets (commands, errors, keyspace hits and misses,
     * expired keys, connections received and refused, bytes, the latency histogram and every
     * command's counters); connections open now stay counted.
     */
    void reset() {
        for (LongAdder a : new LongAdder[] {connectionsReceived, rejectedConnections, idleClosed, outputBufferClosed,
            evictedClients, crossProtocolClosed, protocolErrors, commands, errorReplies, keyspaceHits, keyspaceMisses,
            expiredKeys, bytesIn, bytesOut}) {
            a.reset();
        }
        for (LongAdder a : latencyBuckets) {
            a.reset();
        }
        for (LongAdder a : httpResponses) {
            a.reset();
        }
        for (CommandCounter c : byCommand) {
            c.calls.reset();
            c.micros.reset();
            c.errors.reset();
            c.rejected.reset();
        }
        errorsByPrefix.clear();
    }

    /** Calls and time of one command. */
    static final class CommandCounter {
        final LongAdder calls = new LongAdder();
        final LongAdder micros = new LongAdder();
        final LongAdder errors = new LongAdder();
        /** Calls refused before they ran: wrong argument count, no login. */
        final LongAdder rejected = new LongAdder();
    }

    /** Error replies by their first word ({@code ERR}, {@code WRONGTYPE}...), for INFO errorstats. */
    private final java.util.concurrent.ConcurrentHashMap<String, LongAdder> errorsByPrefix =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** Most distinct error prefixes counted (Redis's bound is 128); later ones count as ERR. */
    private static final int MAX_ERROR_PREFIXES = 128;

    /** Counts an error reply by its first word. */
    void countError(String prefix) {
        LongAdder a = errorsByPrefix.get(prefix);
        if (a == null) {
            a = errorsByPrefix.size() < MAX_ERROR_PREFIXES ? errorsByPrefix.computeIfAbsent(prefix, p -> new LongAdder())
                    : errorsByPrefix.computeIfAbsent("ERR", p -> new LongAdder());
        }
        a.increment();
    }

    /** @return error replies by first word, sorted */
    Map<String, Long> errorCounts() {
        Map<String, Long> out = new TreeMap<>();
        errorsByPrefix.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** @return the counter of a command, by its id */
    CommandCounter command(int id) {
        return byCommand[id];
    }

    /** @return the counters of the commands called at least once, by name, sorted */
    Map<String, CommandCounter> commands() {
        Map<String, CommandCounter> out = new TreeMap<>();
        for (CommandTable.Command c : CommandTable.all()) {
            if (byCommand[c.id()].calls.sum() > 0 || byCommand[c.id()].rejected.sum() > 0) {
                out.put(c.name(), byCommand[c.id()]);
            }
        }
        return out;
    }
}
