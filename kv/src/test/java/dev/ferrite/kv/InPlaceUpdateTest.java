package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FerriteMap#updateValue} changes a value where it lies: readers on other threads never
 * see it half changed (they get the old value from the section's undo record meanwhile), an
 * updater that throws leaves the old value, and a value longer than the undo record is updated
 * through a copy with the same guarantees. (A writer killed inside an update: {@link MapProcessTest}.)
 */
class InPlaceUpdateTest {

    /** Longs in the test value, all equal when the value is whole. */
    private static final int WORDS = 12;

    /** Updates each run makes at least. */
    private static final long MIN_UPDATES = 20_000;

    /** Reads each reader makes at least while the value changes, unless 60 s pass first. */
    private static final long MIN_READS = 100;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void readersNeverSeeAValueHalfChanged(String backend) throws Exception {
        // in its bucket; outside it, in place (160 bytes); outside, through a copy (264 bytes)
        for (int words : new int[] {WORDS, 20, UndoLayout.MAX_VALUE / 8 + 4}) {
            try (ChunkPool pool = MapTargets.anonymousPool(backend);
                 FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m").create()) {
                byte[] key = "struct".getBytes(StandardCharsets.UTF_8);
                map.put(key, words(words, 0));
                for (int i = 0; i < 50; i++) {
                    map.put(("other-" + i).getBytes(StandardCharsets.UTF_8), words(words, -i)); // same sections, maybe
                }
                AtomicBoolean stop = new AtomicBoolean();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicLongArray reads = new AtomicLongArray(4);
                Thread[] readers = {
                    new Thread(() -> read(stop, failure, reads, 0, () -> check(map.get(key), words))),
                    new Thread(() -> read(stop, failure, reads, 1, () -> {
                        Long n = map.readValue(key, (seg, off, len) -> wholeValue(seg, off, len));
                        assertNotNull(n, "the key is always present");
                        assertTrue(n != Long.MIN_VALUE, "the value returned was half changed");
                    })),
                    new Thread(() -> read(stop, failure, reads, 2, () -> {
                        // A reader that throws on bytes changing under it: the map runs it again, the caller sees no throw.
                        Long n = map.readValue(key, (seg, off, len) -> {
                            long whole = wholeValue(seg, off, len);
                            if (whole == Long.MIN_VALUE) {
                                throw new IllegalStateException("torn bytes handed to the reader");
                            }
                            return whole;
                        });
                        assertNotNull(n, "the key is always present");
                    })),
                    new Thread(() -> read(stop, failure, reads, 3, () -> {
                        boolean found = false;
                        for (Map.Entry<byte[], byte[]> e : map.entrySet()) {
                            if (new String(e.getKey(), StandardCharsets.UTF_8).equals("struct")) {
                                check(e.getValue(), words);
                                found = true;
                            }
                        }
                        assertTrue(found, "iteration finds the key");
                    })),
                };
                for (Thread t : readers) {
                    t.start();
                }
                // At least MIN_UPDATES, and on until every reader has read MIN_READS times: a busy host
                // may start a reader late.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                long updates = 0;
                while (failure.get() == null
                        && (updates < MIN_UPDATES || fewestReads(reads) < MIN_READS && System.nanoTime() < deadline)) {
                    long next = ++updates;
                    assertTrue(map.updateValue(key, (seg, off, len) -> {
                        for (int w = 0; w < len / 8; w++) {
                            seg.putLong(off + 8L * w, next);
                            Thread.onSpinWait(); // a wide window between the words
                        }
                    }));
                }
                stop.set(true);
                for (Thread t : readers) {
                    t.join();
                }
                if (failure.get() != null) {
                    throw new AssertionError("a reader saw a broken value (" + words * 8 + "-byte values)", failure.get());
                }
                assertTrue(fewestReads(reads) > 0, "every reader read while the value changed: " + reads);
                assertEquals(updates, check(map.get(key), words));
                assertEquals(0, map.stats().damagedReads(), "no read met a checksum that failed");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void anUpdaterThatThrowsLeavesTheOldValue(String backend) {
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m").create()) {
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            byte[] old = words(WORDS, 7);
            map.put(key, old);
            IllegalStateException thrown = new IllegalStateException("no");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> map.updateValue(key, (seg, off, len) -> {
                seg.fill(off, len / 2, (byte) 1);
                throw thrown;
            }));
            assertSame(thrown, e);
            assertArrayEquals(old, map.get(key));
            assertTrue(map.updateValue(key, (seg, off, len) -> seg.putLong(off, 8)));
            assertEquals(8, ByteBuffer.wrap(map.get(key)).order(ByteOrder.LITTLE_ENDIAN).getLong());
            assertEquals(0, map.stats().damagedReads());
        }
    }

    @Test
    void anInPlaceUpdateSurvivesAReopen() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("inplace");
        try {
            FerriteMapBuilder<String, Long> b = FerriteMap.builder(Codec.utf8(), Codec.int64()).file(dir.resolve("m"));
            try (FerriteMap<String, Long> map = b.create()) {
                map.put("n", 0L);
                for (int i = 0; i < 100; i++) {
                    map.updateValue("n".getBytes(StandardCharsets.UTF_8), (seg, off, len) -> seg.putLong(off, seg.getLong(off) + 1));
                }
            }
            try (FerriteMap<String, Long> map = b.open()) {
                assertEquals(100L, map.get("n"));
            }
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private interface Check {
        void run();
    }

    private static long fewestReads(AtomicLongArray reads) {
        long fewest = Long.MAX_VALUE;
        for (int i = 0; i < reads.length(); i++) {
            fewest = Math.min(fewest, reads.get(i));
        }
        return fewest;
    }

    private static void read(AtomicBoolean stop, AtomicReference<Throwable> failure, AtomicLongArray reads, int reader, Check check) {
        try {
            while (!stop.get()) {
                check.run();
                reads.incrementAndGet(reader);
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
            stop.set(true);
        }
    }

    /** @return a value of {@code words} little-endian longs, each {@code n} */
    private static byte[] words(int words, long n) {
        ByteBuffer b = ByteBuffer.allocate(8 * words).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < words; i++) {
            b.putLong(n);
        }
        return b.array();
    }

    /** @return the number a value holds, after checking that every word holds it */
    private static long check(byte[] v, int words) {
        assertNotNull(v, "the key is always present");
        assertEquals(8 * words, v.length);
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        long n = b.getLong(0);
        for (int i = 1; i < words; i++) {
            assertEquals(n, b.getLong(8 * i), "word " + i + " of a value holding " + n);
        }
        return n;
    }

    /** @return the number a value holds where it lies, or throws if its words differ */
    private static Long wholeValue(Segment seg, long off, int len) {
        long n = seg.getLong(off);
        for (int i = 1; i < len / 8; i++) {
            if (seg.getLong(off + 8L * i) != n) {
                return Long.MIN_VALUE; // the reader may see a half change; the map must not return it
            }
        }
        return n;
    }
}
