package dev.ferrite.bench.map;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import net.openhft.chronicle.map.ChronicleMap;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;

/** The peer libraries' maps, each set up as its documentation advises for this data. */
final class Peers {

    private Peers() {
    }

    /**
     * Chronicle Map persisted to {@code dir/chronicle.map}.
     *
     * @param sizedFor what its {@code entries()} is set to: the benchmarks give twice the entries
     *                 (room for churn without extra tiers), the footprint exactly the entries
     */
    static ChronicleMap<String, byte[]> chronicle(Path dir, long sizedFor) throws IOException {
        File file = dir.resolve("chronicle.map").toFile();
        return ChronicleMap.of(String.class, byte[].class).name("bench")
                .averageKeySize(16).averageValueSize(MapData.VALUE_BYTES)
                .entries(sizedFor).createPersistedTo(file);
    }

    /** OHC with no eviction, room for every entry, and one segment per 64 Ki entries' worth. */
    static PeerMap ohc(long entries) {
        OHCache<String, byte[]> cache = OHCacheBuilder.<String, byte[]>newBuilder()
                .keySerializer(new AsciiSerializer())
                .valueSerializer(new BytesSerializer())
                .eviction(Eviction.NONE)
                .capacity(Math.max(64L << 20, entries * 512))
                .throwOOME(true)
                .build();
        return new PeerMap() {
            @Override
            public byte[] get(String key) {
                return cache.get(key);
            }

            @Override
            public Object put(String key, byte[] value) {
                return cache.put(key, value);
            }

            @Override
            public Object remove(String key) {
                return cache.remove(key);
            }

            @Override
            public long offHeapBytes() {
                return cache.memUsed();
            }

            @Override
            public void close() throws IOException {
                cache.close();
            }
        };
    }

    /**
     * LMDB in {@code dir}: {@code MDB_NOSYNC | MDB_WRITEMAP} (as fast as it goes, durability left to
     * the OS, as FerriteMap's), a map size of 1 KiB per entry (sparse), one read transaction per
     * thread renewed per get, one write transaction per put.
     */
    static PeerMap lmdb(Path dir, long entries) {
        Env<ByteBuffer> env = Env.create().setMapSize(Math.max(64L << 20, entries * 1024)).setMaxDbs(1)
                .setMaxReaders(64).open(dir.toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_WRITEMAP, EnvFlags.MDB_NOTLS);
        Dbi<ByteBuffer> db = env.openDbi("bench", DbiFlags.MDB_CREATE);
        ThreadLocal<Buffers> buffers = ThreadLocal.withInitial(() -> new Buffers(env));
        return new PeerMap() {
            @Override
            public byte[] get(String key) {
                Buffers b = buffers.get();
                b.read.renew();
                try {
                    ByteBuffer v = db.get(b.read, b.key(key));
                    if (v == null) {
                        return null;
                    }
                    byte[] out = new byte[v.remaining()];
                    v.get(out);
                    return out;
                } finally {
                    b.read.reset();
                }
            }

            @Override
            public Object put(String key, byte[] value) {
                Buffers b = buffers.get();
                b.value.clear();
                b.value.put(value).flip();
                db.put(b.key(key), b.value);
                return null;
            }

            @Override
            public Object remove(String key) {
                return db.delete(buffers.get().key(key));
            }

            @Override
            public void close() {
                db.close();
                env.close();
            }
        };
    }

    /** One thread's direct buffers and its read transaction (kept reset between gets). */
    private static final class Buffers {
        final ByteBuffer key = ByteBuffer.allocateDirect(511);
        final ByteBuffer value = ByteBuffer.allocateDirect(64 * 1024);
        final Txn<ByteBuffer> read;

        Buffers(Env<ByteBuffer> env) {
            read = env.txnRead();
            read.reset();
        }

        ByteBuffer key(String k) {
            key.clear();
            for (int i = 0; i < k.length(); i++) {
                key.put((byte) k.charAt(i));
            }
            return key.flip();
        }
    }

    /** Keys are ASCII: one byte per char, length first. */
    private static final class AsciiSerializer implements CacheSerializer<String> {
        @Override
        public void serialize(String s, ByteBuffer buf) {
            byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
            buf.putShort((short) b.length).put(b);
        }

        @Override
        public String deserialize(ByteBuffer buf) {
            byte[] b = new byte[buf.getShort()];
            buf.get(b);
            return new String(b, StandardCharsets.ISO_8859_1);
        }

        @Override
        public int serializedSize(String s) {
            return 2 + s.length();
        }
    }

    /** Values: length, then the bytes. */
    private static final class BytesSerializer implements CacheSerializer<byte[]> {
        @Override
        public void serialize(byte[] v, ByteBuffer buf) {
            buf.putInt(v.length).put(v);
        }

        @Override
        public byte[] deserialize(ByteBuffer buf) {
            byte[] b = new byte[buf.getInt()];
            buf.get(b);
            return b;
        }

        @Override
        public int serializedSize(byte[] v) {
            return 4 + v.length;
        }
    }
}
