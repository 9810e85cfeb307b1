package dev.ferrite.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.FerriteException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every codec round-trips, writes exactly its size, is deterministic, and refuses damaged bytes clearly. */
class CodecTest {

    enum Side { BUY, SELL }

    record Price(long mantissa, byte exponent) {
    }

    record Order(long id, int quantity, double limit, boolean active, char flag, short venue, float weight,
                 String symbol, byte[] note, Side side, Price price, Long parent, UUID trace) {
    }

    record Counters(long hits, long misses, int shards) {
    }

    record Node(String name, Node next) {
    }

    record Unsupported(java.util.List<String> items) {
    }

    static <T> byte[] encode(Codec<T> codec, T value) {
        int size = codec.size(value);
        ByteBuffer b = ByteBuffer.allocate(size + 5).order(ByteOrder.LITTLE_ENDIAN);
        b.position(2);
        codec.encode(value, b);
        assertEquals(2 + size, b.position(), codec + " writes exactly size() bytes");
        return Arrays.copyOfRange(b.array(), 2, 2 + size);
    }

    static <T> T decode(Codec<T> codec, byte[] bytes) {
        ByteBuffer b = ByteBuffer.allocate(bytes.length + 3).order(ByteOrder.LITTLE_ENDIAN);
        b.position(3);
        b.put(bytes).position(3);
        T value = codec.decode(b, bytes.length);
        assertEquals(3 + bytes.length, b.position(), codec + " reads exactly the value's bytes");
        return value;
    }

    @Test
    void builtInsRoundTripWithTheirDocumentedBytes() {
        assertEquals(42L, decode(Codec.int64(), encode(Codec.int64(), 42L)));
        assertArrayEquals(new byte[] {42, 0, 0, 0, 0, 0, 0, 0}, encode(Codec.int64(), 42L), "little-endian");
        assertEquals(-7, decode(Codec.int32(), encode(Codec.int32(), -7)));
        assertEquals(8, Codec.int64().fixedSize());
        assertEquals(4, Codec.int32().fixedSize());
        assertEquals(16, Codec.uuid().fixedSize());
        assertEquals(-1, Codec.utf8().fixedSize());
        UUID id = UUID.randomUUID();
        assertEquals(id, decode(Codec.uuid(), encode(Codec.uuid(), id)));
        assertEquals(-0.0, decode(Codec.float64(), encode(Codec.float64(), -0.0)));
        assertArrayEquals(encode(Codec.float64(), Double.NaN),
                encode(Codec.float64(), Double.longBitsToDouble(0x7ff8_0000_0000_0001L)), "one NaN encoding");
        byte[] raw = {1, 2, 3};
        assertArrayEquals(raw, decode(Codec.bytes(), encode(Codec.bytes(), raw)));
        for (String s : new String[] {"", "hello", "grüße", "日本語", "emoji \uD83D\uDE00", "\u07FF\u0800\uFFFF"}) {
            byte[] utf8 = encode(Codec.utf8(), s);
            assertArrayEquals(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), utf8, s);
            assertEquals(s, decode(Codec.utf8(), utf8));
        }
        assertArrayEquals(new byte[] {'a', '?'}, encode(Codec.utf8(), "a\uD800"), "an unpaired surrogate is '?'");
    }

    @Test
    void recordsRoundTripAgainstRandomValues() {
        Codec<Order> codec = Codec.record(Order.class);
        Random r = new Random(7);
        for (int i = 0; i < 2_000; i++) {
            Order o = randomOrder(r);
            byte[] bytes = encode(codec, o);
            Order back = decode(codec, bytes);
            assertEquals(o.id(), back.id());
            assertEquals(o.quantity(), back.quantity());
            assertEquals(Double.doubleToLongBits(o.limit()), Double.doubleToLongBits(back.limit()));
            assertEquals(o.active(), back.active());
            assertEquals(o.flag(), back.flag());
            assertEquals(o.venue(), back.venue());
            assertEquals(Float.floatToIntBits(o.weight()), Float.floatToIntBits(back.weight()));
            assertEquals(o.symbol(), back.symbol());
            assertArrayEquals(o.note(), back.note());
            assertEquals(o.side(), back.side());
            assertEquals(o.price(), back.price());
            assertEquals(o.parent(), back.parent());
            assertEquals(o.trace(), back.trace());
            assertArrayEquals(bytes, encode(codec, back), "equal values, equal bytes");
        }
    }

    private static Order randomOrder(Random r) {
        String symbol = r.nextInt(5) == 0 ? null : randomString(r);
        byte[] note = r.nextInt(5) == 0 ? null : new byte[r.nextInt(40)];
        if (note != null) {
            r.nextBytes(note);
        }
        return new Order(r.nextLong(), r.nextInt(), r.nextGaussian() * 1e6, r.nextBoolean(), (char) r.nextInt(1 << 16),
                (short) r.nextInt(), r.nextFloat(), symbol, note, r.nextInt(3) == 0 ? null : Side.values()[r.nextInt(2)],
                r.nextInt(3) == 0 ? null : new Price(r.nextLong(), (byte) r.nextInt()),
                r.nextBoolean() ? null : r.nextLong(), r.nextBoolean() ? null : new UUID(r.nextLong(), r.nextLong()));
    }

    private static String randomString(Random r) {
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(20);
        for (int i = 0; i < n; i++) {
            int kind = r.nextInt(4);
            s.appendCodePoint(kind == 0 ? 'a' + r.nextInt(26) : kind == 1 ? 0x80 + r.nextInt(0x700)
                    : kind == 2 ? 0x800 + r.nextInt(0xD000 - 0x800) : 0x10000 + r.nextInt(0x10000));
        }
        return s.toString();
    }

    @Test
    void aRecordOfPrimitivesHasAFixedSize() {
        Codec<Counters> codec = Codec.record(Counters.class);
        assertEquals(20, codec.fixedSize());
        byte[] bytes = encode(codec, new Counters(1, 2, 3));
        assertEquals(20, bytes.length);
        assertEquals(1, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(0), "components in order");
        assertEquals(3, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(16));
        assertEquals(-1, Codec.record(Order.class).fixedSize());
    }

    @Test
    void unsupportedAndSelfContainingRecordsAreRefusedNamingTheComponent() {
        FerriteException e = assertThrows(FerriteException.class, () -> Codec.record(Unsupported.class));
        assertTrue(e.getMessage().contains("Unsupported.items") && e.getMessage().contains("java.util.List"), e.getMessage());
        e = assertThrows(FerriteException.class, () -> Codec.record(Node.class));
        assertTrue(e.getMessage().contains("contains itself"), e.getMessage());
    }

    @Test
    void damagedBytesAreErrorsNamingWhatIsWrongNeverAHugeAllocation() {
        Codec<Order> codec = Codec.record(Order.class);
        byte[] good = encode(codec, new Order(1, 2, 3, true, 'x', (short) 4, 5f, "AAPL", new byte[] {9}, Side.SELL,
                new Price(10, (byte) 2), 11L, new UUID(1, 2)));
        // Truncated at every length: an error, never an exception of the wrong kind or a read past the end.
        for (int n = 0; n < good.length; n++) {
            byte[] cut = Arrays.copyOf(good, n);
            assertThrows(FerriteException.class, () -> decode(codec, cut), "truncated to " + n);
        }
        byte[] extra = Arrays.copyOf(good, good.length + 1);
        assertTrue(assertThrows(FerriteException.class, () -> decode(codec, extra)).getMessage().contains("the rest"));
        // The symbol's length prefix (after 8+4+8+1+2+2+4 = 29 bytes) set to 2^30.
        byte[] huge = good.clone();
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putInt(29, 1 << 30);
        FerriteException e = assertThrows(FerriteException.class, () -> decode(codec, huge));
        assertTrue(e.getMessage().contains("Order.symbol") && e.getMessage().contains("1073741824"), e.getMessage());
        byte[] negative = good.clone();
        ByteBuffer.wrap(negative).order(ByteOrder.LITTLE_ENDIAN).putInt(29, -5);
        assertTrue(assertThrows(FerriteException.class, () -> decode(codec, negative)).getMessage().contains("-5"));
        byte[] flag = good.clone();
        flag[20] = 7; // the boolean
        assertTrue(assertThrows(FerriteException.class, () -> decode(codec, flag)).getMessage().contains("Order.active"));
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < good.length; i++) {
            positions.add(i);
        }
        // Every single flipped byte either decodes to some value or is a FerriteException.
        for (int i : positions) {
            byte[] bad = good.clone();
            bad[i] ^= (byte) 0xA5;
            try {
                decode(codec, bad);
            } catch (FerriteException expected) {
                // named error: fine
            }
        }
        assertThrows(FerriteException.class, () -> decode(Codec.int64(), new byte[7]));
        assertTrue(assertThrows(FerriteException.class, () -> decode(Codec.utf8(), new byte[] {(byte) 0xC3}))
                .getMessage().contains("not UTF-8"));
    }

    @Test
    void anEnumIsStoredByNameSoReorderingItsConstantsKeepsValues() {
        record Trade(Side side) {
        }
        byte[] bytes = encode(Codec.record(Trade.class), new Trade(Side.SELL));
        assertArrayEquals(new byte[] {4, 0, 0, 0, 'S', 'E', 'L', 'L'}, bytes);
        byte[] unknown = {4, 0, 0, 0, 'H', 'O', 'L', 'D'};
        FerriteException e = assertThrows(FerriteException.class, () -> decode(Codec.record(Trade.class), unknown));
        assertTrue(e.getMessage().contains("'HOLD'"), e.getMessage());
    }
}
