package dev.ferrite.bench.queue;

/**
 * Where a consumer thread adds up the words it reads, so the JIT cannot drop the reads. The word
 * sits in the middle of its own 256-byte array: no field the producer thread reads shares a cache
 * line with it, whichever way the GC lays objects out. Every contender's consumer uses one, so a
 * harness line bouncing between the threads slows none of them.
 */
final class Sink {

    private final long[] words = new long[32];

    /** Adds a value (consumer thread only). */
    void add(long value) {
        words[16] += value;
    }

    /** @return the sum so far */
    long value() {
        return words[16];
    }
}
