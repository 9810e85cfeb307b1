package dev.ferrite.kv.chronicle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.Codec;
import dev.ferrite.kv.FerriteMap;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesIn;
import net.openhft.chronicle.bytes.BytesMarshallable;
import net.openhft.chronicle.bytes.BytesOut;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BytesMarshallableCodecTest {

    /** A value class as Chronicle Map users write them: fields marshalled by the reflective default. */
    public static final class Account implements BytesMarshallable {
        long id;
        double balance;
        int flags;
        String owner;

        public Account() {
        }

        Account(long id, double balance, int flags, String owner) {
            this.id = id;
            this.balance = balance;
            this.flags = flags;
            this.owner = owner;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Account a && a.id == id && a.balance == balance && a.flags == flags
                    && Objects.equals(a.owner, owner);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id);
        }

        @Override
        public String toString() {
            return "Account[" + id + ", " + balance + ", " + flags + ", " + owner + "]";
        }
    }

    /** A value class that writes its own fields, as tuned Chronicle code does. */
    public static final class Tick implements BytesMarshallable {
        long time;
        double price;
        final int[] sizes;

        Tick(int depth) {
            sizes = new int[depth];
        }

        @Override
        public void writeMarshallable(BytesOut<?> out) {
            out.writeLong(time);
            out.writeDouble(price);
            out.writeStopBit(sizes.length);
            for (int size : sizes) {
                out.writeInt(size);
            }
        }

        @Override
        public void readMarshallable(BytesIn<?> in) {
            time = in.readLong();
            price = in.readDouble();
            int n = (int) in.readStopBit();
            if (n != sizes.length) {
                throw new IllegalStateException("depth " + n + ", expected " + sizes.length);
            }
            for (int i = 0; i < n; i++) {
                sizes[i] = in.readInt();
            }
        }
    }

    /** No public no-argument constructor. */
    public static final class NoDefault implements BytesMarshallable {
        long x;

        public NoDefault(long x) {
            this.x = x;
        }
    }

    private static final BytesMarshallableCodec<Account> ACCOUNTS = BytesMarshallableCodec.of(Account.class);

    @Test
    void reflectiveValuesRoundTripThroughTheCodec() {
        Random random = new Random(7);
        for (int i = 0; i < 1000; i++) {
            Account a = new Account(random.nextLong(), random.nextDouble(), random.nextInt(),
                    random.nextInt(5) == 0 ? null : "owner-" + random.nextInt(1_000_000) + "é");
            int size = ACCOUNTS.size(a);
            ByteBuffer buffer = ByteBuffer.allocate(size + 3).order(ByteOrder.LITTLE_ENDIAN);
            buffer.position(3);
            ACCOUNTS.encode(a, buffer);
            assertEquals(size + 3, buffer.position(), "encode writes exactly size() bytes");
            buffer.position(3);
            Account back = ACCOUNTS.decode(buffer, size);
            assertEquals(a, back);
            assertNotSame(a, back);
            assertEquals(size + 3, buffer.position(), "decode consumes exactly the value's bytes");
        }
    }

    @Test
    void encodeWithoutSizeAndInterleavedValuesStayCorrect() {
        Account a = new Account(1, 1.5, 1, "a");
        Account b = new Account(2, 2.5, 2, "bb");
        int sizeA = ACCOUNTS.size(a);
        int sizeB = ACCOUNTS.size(b);
        ByteBuffer buffer = ByteBuffer.allocate(sizeA + sizeB).order(ByteOrder.LITTLE_ENDIAN);
        ACCOUNTS.encode(a, buffer); // b was sized last: a must be serialized again, not b's bytes copied
        ACCOUNTS.encode(b, buffer);
        buffer.flip();
        assertEquals(a, ACCOUNTS.decode(buffer, sizeA));
        assertEquals(b, ACCOUNTS.decode(buffer, sizeB));
    }

    @Test
    void handWrittenMarshallingAndFactoryWork() {
        Codec<Tick> ticks = BytesMarshallableCodec.of(Tick.class, () -> new Tick(3));
        Tick t = new Tick(3);
        t.time = 123456789L;
        t.price = 101.25;
        t.sizes[0] = 5;
        t.sizes[2] = -7;
        ByteBuffer buffer = ByteBuffer.allocate(ticks.size(t)).order(ByteOrder.LITTLE_ENDIAN);
        ticks.encode(t, buffer);
        assertEquals(8 + 8 + 1 + 12, buffer.position());
        buffer.flip();
        Tick back = ticks.decode(buffer, buffer.remaining());
        assertEquals(t.time, back.time);
        assertEquals(t.price, back.price);
        assertArrayEquals(t.sizes, back.sizes);
    }

    @Test
    void badBytesAndBadClassesAreFerriteExceptionsNamingTheClass() {
        Account a = new Account(9, 9.5, 9, "someone");
        int size = ACCOUNTS.size(a);
        ByteBuffer buffer = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        ACCOUNTS.encode(a, buffer);
        buffer.flip();
        FerriteException truncated = assertThrows(FerriteException.class, () -> ACCOUNTS.decode(buffer, size - 4));
        assertTrue(truncated.getMessage().contains(Account.class.getName()), truncated.getMessage());

        ByteBuffer longer = ByteBuffer.allocate(size + 5).order(ByteOrder.LITTLE_ENDIAN);
        ACCOUNTS.encode(a, longer);
        longer.put(new byte[5]);
        FerriteException extra = assertThrows(FerriteException.class,
                () -> ACCOUNTS.decode(longer.flip(), size + 5));
        assertTrue(extra.getMessage().contains("of its " + (size + 5) + " stored bytes"), extra.getMessage());

        Codec<Tick> ticks = BytesMarshallableCodec.of(Tick.class, () -> new Tick(4));
        Tick three = new Tick(3);
        ByteBuffer tb = ByteBuffer.allocate(ticks.size(three)).order(ByteOrder.LITTLE_ENDIAN);
        ticks.encode(three, tb);
        FerriteException wrongDepth = assertThrows(FerriteException.class, () -> ticks.decode(tb.flip(), tb.limit()));
        assertTrue(wrongDepth.getMessage().contains("depth 3, expected 4"), wrongDepth.getMessage());

        FerriteException noCtor = assertThrows(FerriteException.class, () -> BytesMarshallableCodec.of(NoDefault.class));
        assertTrue(noCtor.getMessage().contains("no public no-argument constructor"), noCtor.getMessage());
        assertThrows(FerriteException.class, () -> BytesMarshallableCodec.of(BytesMarshallable.class));
        assertThrows(NullPointerException.class, () -> BytesMarshallableCodec.of(Tick.class, null));
    }

    @Test
    void aFileMapOfChronicleValuesSurvivesReopeningAndMatchesAHashMap(@TempDir Path dir) {
        Path file = dir.resolve("accounts.pool");
        Map<Long, Account> model = new HashMap<>();
        Random random = new Random(11);
        try (FerriteMap<Long, Account> map = FerriteMap.builder(Codec.int64(), ACCOUNTS)
                .file(file).expectedEntries(1000).create()) {
            for (int i = 0; i < 20_000; i++) {
                long key = random.nextInt(3000);
                switch (random.nextInt(4)) {
                    case 0 -> assertEquals(model.remove(key), map.remove(key));
                    case 1 -> assertEquals(model.get(key), map.get(key));
                    default -> {
                        Account value = new Account(key, random.nextDouble(), i, "o" + i);
                        assertEquals(model.put(key, value), map.put(key, value));
                    }
                }
            }
            assertEquals(model, new HashMap<>(map));
        }
        try (FerriteMap<Long, Account> map = FerriteMap.builder(Codec.int64(), ACCOUNTS).file(file).open()) {
            assertEquals(model.size(), map.size());
            assertEquals(model, new HashMap<>(map));
            assertNull(map.get(-1L));
        }
    }

    @Test
    void chronicleKeysAndValuesFromManyThreads(@TempDir Path dir) throws Exception {
        try (FerriteMap<Account, Account> map = FerriteMap.builder(ACCOUNTS, ACCOUNTS)
                .file(dir.resolve("both.pool")).create()) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 5000; i++) {
                            Account key = new Account(thread * 100_000L + i, 0, 0, "k" + i);
                            map.put(key, new Account(i, i * 0.5, thread, "v" + thread));
                        }
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            assertEquals(20_000, map.size());
            for (int t = 0; t < 4; t++) {
                for (int i = 0; i < 5000; i += 97) {
                    assertEquals(new Account(i, i * 0.5, t, "v" + t),
                            map.get(new Account(t * 100_000L + i, 0, 0, "k" + i)));
                }
            }
        }
    }
}
