package dev.ferrite.kv;

import dev.ferrite.ChunkPool;
import dev.ferrite.Segment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * With {@code verifyReads(true)} a lookup checks every entry it returns, short or long (values of
 * 1 byte to 5,000): a damaged value byte, a reserved word that is not 0 or a value length past the
 * heap makes the entry absent and counted as damage ({@code stats().damagedReads()}), on every
 * backend, by {@code get}, {@code getBytes}, {@code readValue} and {@code containsKey}; the entry
 * beside it is read as stored. Without it a length past the heap is still refused by every read,
 * and the damage a checksum alone finds is found by {@code verify()}.
 */
class EntryCheckTest {

    /** Value lengths: one byte, seed 003's 100, several cache lines, more than a page. */
    private static final int[] VALUE_LENGTHS = {1, 100, 500, 5000};

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ferrite.kv.MapTargets#backends")
    void damageIsFoundInShortAndLongEntries(String backend) {
        for (int vl : VALUE_LENGTHS) {
            for (Damage d : Damage.values()) {
                check(backend, vl, d, true);
                check(backend, vl, d, false);
            }
        }
    }

    /** Where the damage goes. */
    private enum Damage {
        VALUE_BYTE, CHECKSUM, VALUE_LENGTH_PAST_HEAP
    }

    private static void check(String backend, int valueLength, Damage damage, boolean verifyReads) {
        String what = backend + ", value of " + valueLength + " bytes, " + damage + ", verifyReads " + verifyReads;
        try (ChunkPool pool = MapTargets.anonymousPool(backend);
             FerriteMap<byte[], byte[]> map = FerriteMap.builder(Codec.bytes(), Codec.bytes()).pool(pool, "m")
                     .verifyReads(verifyReads).create()) {
            byte[] victim = "victim-key-16-by".getBytes(StandardCharsets.UTF_8);
            byte[] neighbour = "neighbour-key".getBytes(StandardCharsets.UTF_8);
            byte[] value = new byte[valueLength];
            Arrays.fill(value, (byte) 0x5A);
            byte[] other = new byte[valueLength];
            Arrays.fill(other, (byte) 0x33);
            map.put(victim, value);
            map.put(neighbour, other);
            assertArrayEquals(value, map.get(victim), what + ": stored");

            damage(pool, "m", victim, damage);

            if (!verifyReads && damage != Damage.VALUE_LENGTH_PAST_HEAP) {
                assertEquals(valueLength, map.get(victim).length, what + ": read unchecked, within its lengths");
                assertEquals(1, map.verify(), what + ": the scrub finds it");
                assertNull(map.get(victim), what + ": dropped by the scrub");
                assertEquals(1, map.stats().droppedEntries(), what);
                assertArrayEquals(other, map.get(neighbour), what + ": the neighbour");
                return;
            }
            assertNull(map.get(victim), what + ": get");
            assertNull(map.getBytes(victim), what + ": getBytes");
            assertNull(map.readValue(victim, (s, o, l) -> l), what + ": readValue");
            assertFalse(map.containsKey(victim), what + ": containsKey");
            assertEquals(4L, map.stats().damagedReads(), what + ": every read counted the damage");
            assertArrayEquals(other, map.get(neighbour), what + ": the neighbour");
            assertEquals(Integer.valueOf(valueLength), map.readValue(neighbour, (s, o, l) -> l), what + ": the neighbour in place");
        }
    }

    /** Finds the key's entry through its section and bucket, as FORMAT.md says, and damages it. */
    private static void damage(ChunkPool pool, String name, byte[] key, Damage damage) {
        MapBytes.Located e = MapBytes.locate(pool, name, key);
        try (Segment s = e.segment()) {
            switch (damage) {
                case VALUE_BYTE -> {
                    long at = e.valueAt() + e.valueLength() / 2;
                    s.putByte(at, (byte) ~s.getByte(at));
                }
                case CHECKSUM -> s.putInt(e.checksumAt(), ~s.getInt(e.checksumAt()));
                case VALUE_LENGTH_PAST_HEAP -> {
                    if (e.inline()) {
                        s.putLong(e.bucket(), e.word() | 0xFFL << 16); // 255 bytes: past the bucket
                    } else {
                        s.putInt(e.entry() + EntryLayout.VALUE_LENGTH, Integer.MAX_VALUE - 64);
                    }
                }
                default -> throw new AssertionError(damage);
            }
        }
    }
}
