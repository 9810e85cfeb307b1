package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.FerriteException;
import dev.ferrite.Segment;
import dev.ferrite.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damaged maps: random bytes of a map's header and section segments overwritten (flipped bits,
 * lengths and offsets pointing anywhere, zeroed runs), then the map opened and used. Every call
 * either works, with a value that is right or absent (with {@code verifyReads(true)} at once,
 * otherwise after {@code verify()}), or throws a {@link FerriteException} naming what is wrong;
 * nothing else, no JVM crash (with checks on, and on {@code unsafe} with checks off in a child
 * JVM), no endless loop.
 */
class MapCorruptionFuzzTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void damagedMapsFailCleanlyOrAnswerRight(String backend) {
        Outcome o = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> fuzz(backend, 300, 11));
        assertTrue(o.refused > 0 && o.worked > 0, o.toString());
    }

    @Test
    void uncheckedUnsafeSurvivesTheSameDamage() throws Exception {
        List<String> flags = new ArrayList<>(ChildJvm.ferriteFlags());
        flags.add("-Dferrite.checks=false");
        ChildJvm.Result r = ChildJvm.run(flags, Map.of(), MapCorruptionFuzzTest.class, "unsafe", "300", "12");
        assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("outcome"), r.stdout());
    }

    /**
     * Runs the fuzz in a fresh JVM (for checks off).
     *
     * @param args backend, iterations, seed
     */
    public static void main(String[] args) {
        Outcome o = fuzz(args[0], Integer.parseInt(args[1]), Long.parseLong(args[2]));
        System.out.println("outcome " + o);
    }

    /** What the damaged maps did. */
    record Outcome(int worked, int refused) {
    }

    static Outcome fuzz(String backend, int iterations, long seed) {
        Random r = new Random(seed);
        int worked = 0;
        int refused = 0;
        for (int it = 0; it < iterations; it++) {
            try (ChunkPool pool = MapTargets.anonymousPool(backend)) {
                Map<String, String> model = new HashMap<>();
                try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8())
                        .pool(pool, "fuzz").expectedEntries(10).create()) {
                    for (int i = 0; i < 200 + r.nextInt(400); i++) {
                        String k = "key-" + r.nextInt(500);
                        String v = "value-" + i + "-".repeat(r.nextInt(30));
                        map.put(k, v);
                        model.put(k, v);
                    }
                    for (int i = 0; i < 50; i++) {
                        String k = "key-" + r.nextInt(500);
                        map.remove(k);
                        model.remove(k);
                    }
                }
                damage(pool, r);
                try {
                    use(pool, model, r);
                    worked++;
                } catch (FerriteException e) {
                    if (e.getMessage() == null || e.getMessage().isEmpty()) {
                        throw new AssertionError("an error without a message", e);
                    }
                    refused++;
                }
            }
        }
        System.out.println("fuzz " + backend + ": " + worked + " damaged maps worked, " + refused + " refused");
        return new Outcome(worked, refused);
    }

    /**
     * Overwrites a few random places of the map's segments with random bytes, or zeroes, or ones;
     * one time in four it also makes a bucket's word odd over a damaged undo record, as if a
     * change of it had been cut short there.
     */
    private static void damage(ChunkPool pool, Random r) {
        List<String> names = new ArrayList<>(pool.segmentNames());
        names.sort(null);
        if (r.nextInt(4) == 0) {
            try (Segment h = pool.open("fuzz").orElseThrow()) {
                int section = r.nextInt(h.getInt(MapLayout.SECTIONS));
                String prefix = MapLayout.sectionName("fuzz", section, h.getLong(MapLayout.line(section) + MapLayout.LINE_GENERATION));
                try (Segment s = pool.open(prefix).orElseThrow()) {
                    int buckets = s.getInt(SectionLayout.BUCKETS);
                    long b = SectionLayout.TABLE + (long) r.nextInt(buckets) * s.getInt(SectionLayout.BUCKET_SIZE);
                    s.putLong(b, s.getLong(b) | BucketLayout.ODD);
                    for (int i = 0; i < 1 + r.nextInt(40); i++) {
                        s.putByte(SectionLayout.UNDO + r.nextInt(SectionLayout.UNDO_SIZE), (byte) r.nextInt());
                    }
                }
            }
        }
        int hits = 1 + r.nextInt(6);
        for (int h = 0; h < hits; h++) {
            String name = r.nextInt(4) == 0 ? "fuzz" : names.get(r.nextInt(names.size()));
            try (Segment s = pool.open(name).orElseThrow()) {
                long limit = name.equals("fuzz") ? MapLayout.headerSize(16)
                        : Math.min(s.size(), s.getLong(SectionLayout.HEAP_TOP) > 0 && s.getLong(SectionLayout.HEAP_TOP) < s.size()
                                ? s.getLong(SectionLayout.HEAP_TOP) : s.size());
                long at = (long) (r.nextDouble() * limit);
                int len = 1 + r.nextInt(8);
                for (int i = 0; i < len && at + i < s.size(); i++) {
                    int kind = r.nextInt(3);
                    byte b = kind == 0 ? (byte) r.nextInt() : kind == 1 ? 0 : (byte) 0xFF;
                    s.putByte(at + i, b);
                }
            }
        }
    }

    /**
     * Opens the damaged map and uses it every way; checks what it returns against the model. Every
     * other map is opened with {@code verifyReads(true)}, and answers right or absent at once; the
     * others are read unchecked first (reads bounded by the section: no throw but a
     * {@code FerriteException}) and answer right or absent after {@code verify()}.
     */
    private static void use(ChunkPool pool, Map<String, String> model, Random r) {
        boolean verifyReads = r.nextBoolean();
        try (FerriteMap<String, String> map = FerriteMap.builder(Codec.utf8(), Codec.utf8()).pool(pool, "fuzz")
                .verifyReads(verifyReads).open()) {
            byte[][] keys = model.keySet().stream().map(k -> k.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
            map.prefetch(keys, 0, keys.length); // follows damaged slots and offsets: must stay inside the map
            if (!verifyReads) {
                model.keySet().forEach(map::get);
                map.entrySet().forEach(e -> e.getValue().length());
                map.verify();
            }
            for (Entry<String, String> e : model.entrySet()) {
                String v = map.get(e.getKey());
                if (v != null && !v.equals(e.getValue())) {
                    throw new AssertionError(e.getKey() + " -> '" + v + "', stored '" + e.getValue() + "'");
                }
            }
            for (Entry<String, String> e : map.entrySet()) {
                String expected = model.get(e.getKey());
                if (expected != null && !expected.equals(e.getValue())) {
                    throw new AssertionError("iteration gave " + e.getKey() + " -> '" + e.getValue() + "'");
                }
            }
            map.size();
            map.stats();
            for (int i = 0; i < 300; i++) {
                String k = "key-" + r.nextInt(500);
                map.put(k, "after-" + i);
                if (!("after-" + i).equals(map.get(k))) {
                    throw new AssertionError("a put after the damage was not read back: " + k);
                }
                map.remove("key-" + r.nextInt(500));
            }
        }
    }
}
