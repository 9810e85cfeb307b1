package dev.ferrite.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.Segment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Writers overwrite and remove a few keys as fast as they can, so that every value changes in its
 * bucket, or every new outside entry lands in the hole an earlier one left, while readers look the
 * keys up without locks: a reader must never be
 * handed another key's value, a torn value, or a value older than one it saw before; a reader that
 * throws on the changing bytes it was handed is run again, its throw never reaching the caller.
 */
class HoleReuseRaceTest {

    private static final int KEYS = 48;

    /** A value: its key, a version that only grows per key, a length that varies, a checksum-ish tail. */
    static byte[] value(int key, long version, int length) {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(key).putLong(version);
        while (b.remaining() >= 8) {
            b.putLong(version * 31 + key);
        }
        return b.array();
    }

    /** @return the version of a value if it is a whole value of that key, else a description of what is wrong */
    static Object check(int key, Segment s, long off, int len) {
        if (len < 12) {
            return "length " + len;
        }
        int k = s.getInt(off);
        long version = s.getLong(off + 4);
        if (k != key) {
            return "key " + key + " was handed key " + k + "'s value";
        }
        for (long p = off + 12; p + 8 <= off + len; p += 8) {
            if (s.getLong(p) != version * 31 + key) {
                return "torn value of key " + key + " version " + version + " at byte " + (p - off);
            }
        }
        return version;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void readersNeverSeeAReusedHoleAsTheirKeysValue(String backend) throws Exception {
        race(backend, 64); // values in their buckets: changed in place through the undo record
        race(backend, 1000); // every value outside (16-byte buckets): new entries in the holes of old ones
    }

    private static void race(String backend, int averageValueSize) throws Exception {
        try (FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).backend(backend)
                .averageValueSize(averageValueSize).create()) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Object> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong();
            AtomicLong[] versions = new AtomicLong[KEYS];
            for (int k = 0; k < KEYS; k++) {
                versions[k] = new AtomicLong();
            }
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int seed = w;
                threads.add(new Thread(() -> {
                    SplittableRandom r = new SplittableRandom(seed);
                    while (!stop.get()) {
                        int k = r.nextInt(KEYS);
                        byte[] key = key(k);
                        if (r.nextInt(8) == 0) {
                            map.removeBytes(key);
                        } else {
                            // Mostly one length (holes are reused at once), sometimes another.
                            int length = r.nextInt(4) == 0 ? 12 + 8 * r.nextInt(1, 6) : 60;
                            map.compute(key, (kk, old) -> value(k, versions[k].incrementAndGet(), length));
                        }
                    }
                }));
            }
            for (int t = 0; t < 2; t++) {
                int seed = 100 + t;
                threads.add(new Thread(() -> {
                    SplittableRandom r = new SplittableRandom(seed);
                    long[] seen = new long[KEYS];
                    while (!stop.get() && failure.get() == null) {
                        int k = r.nextInt(KEYS);
                        // The second reader throws on what it cannot parse: the map must run it again, not pass the throw on.
                        Object got;
                        try {
                            got = map.readValue(key(k), (s, off, len) -> {
                                Object c = check(k, s, off, len);
                                if (seed == 101 && c instanceof String problem) {
                                    throw new IllegalStateException(problem);
                                }
                                return c;
                            });
                        } catch (IllegalStateException e) {
                            got = "a reader's throw on changing bytes reached the caller: " + e.getMessage();
                        }
                        if (got instanceof String problem) {
                            failure.compareAndSet(null, problem);
                        } else if (got != null) {
                            long v = (Long) got;
                            if (v < seen[k]) {
                                failure.compareAndSet(null, "key " + k + " went back from version " + seen[k] + " to " + v);
                            }
                            seen[k] = v;
                        }
                        reads.incrementAndGet();
                    }
                }));
            }
            threads.forEach(Thread::start);
            Thread.sleep(1500);
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(null, failure.get());
            assertTrue(reads.get() > 10_000, "readers ran: " + reads.get());
            MapStats stats = map.stats();
            assertEquals(0, stats.damagedReads(), "a reader racing a reuse reads again, it reports no damage: " + stats);
            long total = 0;
            for (AtomicLong v : versions) {
                total += v.get();
            }
            assertTrue(total > 10_000, "writers ran: " + total);
        }
    }

    private static byte[] key(int k) {
        return ("key-" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
