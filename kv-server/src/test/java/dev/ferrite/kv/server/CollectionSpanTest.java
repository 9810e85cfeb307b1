package dev.ferrite.kv.server;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A collection's span (the rank of its first element in the store and its size) is read from one
 * state of the store: SRANDMEMBER of a set of three answers one of its members, never nil, while
 * another client adds and removes a hundred elements of a collection whose elements sort before it
 * (as the sweeper's removal of a deleted collection's elements does).
 */
class CollectionSpanTest extends ServerFixture {

    @Test
    void randomMemberIsNeverNilWhileACollectionBeforeItChanges() throws Exception {
        startServer();
        try (RespClient c = new RespClient(server.port()); RespClient w = new RespClient(server.port())) {
            assertEquals(1L, c.call("SADD", "before", "seed")); // the older collection: its elements sort first
            assertEquals(3L, c.call("SADD", "target", "a", "b", "c"));
            String[] add = new String[102];
            String[] remove = new String[102];
            add[0] = "SADD";
            remove[0] = "SREM";
            add[1] = "before";
            remove[1] = "before";
            for (int i = 0; i < 100; i++) {
                add[2 + i] = "m" + i;
                remove[2 + i] = "m" + i;
            }
            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    while (!stop.get()) {
                        assertEquals(100L, w.call(add));
                        assertEquals(100L, w.call(remove));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                for (int n = 0; n < 3_000 && !writer.isDone(); n++) {
                    Object m = c.call("SRANDMEMBER", "target");
                    assertTrue(m != null && Set.of("a", "b", "c").contains(m), "SRANDMEMBER answered " + m + " at call " + n);
                }
            } finally {
                stop.set(true);
                writer.get(60, TimeUnit.SECONDS);
            }
        }
    }
}
