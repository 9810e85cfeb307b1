package dev.ferrite.bench.map;

import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** Each benchmark thread's own random index stream. */
@State(Scope.Thread)
public class MapAccess {

    private final SplittableRandom random = new SplittableRandom(Thread.currentThread().getId() * 7919);

    /** @return a random index in [0, n) */
    public int next(int n) {
        return random.nextInt(n);
    }

    private final byte[][] batch = new byte[MapBatch.BATCH][];
    /** This thread's array for values copied out ({@code FerriteMap.get(key, into)}): larger than any value stored. */
    final byte[] into = new byte[2 * MapData.VALUE_BYTES];

    /**
     * @param keys where to pick from
     * @param n    how many of them may be picked
     * @param size how many to pick (at most {@code MapBatch.BATCH})
     * @return random keys (this state's array, refilled per call)
     */
    public byte[][] batch(byte[][] keys, int n, int size) {
        for (int i = 0; i < size; i++) {
            batch[i] = keys[random.nextInt(n)];
        }
        return batch;
    }
}
