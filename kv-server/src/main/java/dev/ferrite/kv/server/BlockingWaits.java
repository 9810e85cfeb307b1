package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The clients blocked on lists (BLPOP and its kin), by key, longest waiting first, served as Redis
 * serves them: a write that gives a list elements {@link #signal}s its key, and once the command
 * that wrote it has ended (an EXEC: once the whole queue ran) the thread that ran it
 * {@link #serve}s the waiting clients in order, each taking what it asked for, until a client
 * finds nothing; a client's own write (BLMOVE's push) signals in turn. A served client's reply is
 * the value of its wait's future; a wait that times out or whose connection closes completes
 * empty. Thread-safe; one daemon timer thread, {@code ferrite-blocking}.
 */
final class BlockingWaits implements AutoCloseable {

    /** A key of a database. */
    private record Key(int db, byte[] key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.db == db && Arrays.equals(k.key, key);
        }

        @Override
        public int hashCode() {
            return db * 31 + Arrays.hashCode(key);
        }
    }

    /** A blocked client: what it tries when served, and where its reply goes. */
    private static final class Waiter {
        final CompletableFuture<RedisMessage> ready = new CompletableFuture<>();
        final Supplier<RedisMessage> attempt;

        Waiter(Supplier<RedisMessage> attempt) {
            this.attempt = attempt;
        }

        /** Ends the wait without a reply (timeout, closed connection), unless it is served already. */
        synchronized void end() {
            ready.complete(null);
        }

        /** @return whether the attempt took something (the reply is then the future's value) */
        synchronized boolean tryServe() {
            if (ready.isDone()) {
                return false;
            }
            RedisMessage reply;
            try {
                reply = attempt.get();
            } catch (RuntimeException e) {
                reply = Replies.error("ERR " + String.valueOf(e.getMessage()).replace('\r', ' ').replace('\n', ' '));
            }
            return reply != null && ready.complete(reply);
        }
    }

    private final Map<Key, ArrayDeque<Waiter>> waits = new HashMap<>();
    private final ThreadLocal<Set<Key>> signalled = ThreadLocal.withInitial(LinkedHashSet::new);
    private final ScheduledExecutorService timer = DaemonTimer.create("ferrite-blocking");

    /**
     * Registers a blocked client on keys of database {@code db}.
     *
     * @param timeoutMillis how long to wait at most, 0 for ever
     * @param attempt       what the client does when served: its reply, or null if it found nothing
     * @return completes with the client's reply when it is served, or with null when its timeout
     *         comes or it is cancelled
     */
    CompletableFuture<RedisMessage> await(int db, byte[][] keys, long timeoutMillis, Supplier<RedisMessage> attempt) {
        Waiter w = new Waiter(attempt);
        synchronized (this) {
            for (byte[] k : keys) {
                waits.computeIfAbsent(new Key(db, k), x -> new ArrayDeque<>()).add(w);
            }
        }
        if (timeoutMillis > 0) {
            timer.schedule(w::end, timeoutMillis, TimeUnit.MILLISECONDS);
        }
        w.ready.whenComplete((done, failure) -> release(db, keys, w));
        return w.ready;
    }

    private synchronized void release(int db, byte[][] keys, Waiter w) {
        for (byte[] k : keys) {
            Key key = new Key(db, k);
            ArrayDeque<Waiter> queue = waits.get(key);
            if (queue != null) {
                queue.remove(w);
                if (queue.isEmpty()) {
                    waits.remove(key);
                }
            }
        }
    }

    /** Notes that a list of the key got elements; its blocked clients are served at {@link #serve}. */
    void signal(int db, byte[] key) {
        boolean any;
        synchronized (this) {
            any = waits.containsKey(new Key(db, key));
        }
        if (any) {
            signalled.get().add(new Key(db, key));
        }
    }

    /**
     * Serves the clients blocked on the keys this thread signalled, longest waiting first, key by
     * key, until one finds nothing; keys signalled meanwhile are served too. Call once a top-level
     * command has ended, outside the command gate.
     */
    void serve() {
        Set<Key> keys = signalled.get();
        while (!keys.isEmpty()) {
            Key key = keys.iterator().next();
            keys.remove(key);
            while (true) {
                List<Waiter> queue;
                synchronized (this) {
                    ArrayDeque<Waiter> q = waits.get(key);
                    queue = q == null ? List.of() : new ArrayList<>(q);
                }
                boolean served = false;
                for (Waiter w : queue) {
                    if (!w.ready.isDone()) { // the longest waiting; if it finds nothing, nor would the others
                        served = w.tryServe();
                        break;
                    }
                }
                if (!served) {
                    break;
                }
            }
        }
    }

    /** @return the number of clients blocked now (INFO's {@code blocked_clients}) */
    synchronized long blockedClients() {
        return waits.values().stream().flatMap(ArrayDeque::stream).distinct().count();
    }

    @Override
    public void close() {
        DaemonTimer.stop(timer);
    }
}
