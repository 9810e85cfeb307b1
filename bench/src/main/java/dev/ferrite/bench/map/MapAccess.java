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
}
