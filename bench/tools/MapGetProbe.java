import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;

import sun.misc.Unsafe;

/**
 * What a map get's check costs when gets overlap, without FerriteMap around it: a bare open-address
 * table of 8-byte slots (16-bit tag, 48-bit offset) over entries laid out as FerriteMap's (checksum,
 * key length, value length, zero word, key, value; 136 bytes for a 16-byte key and a 100-byte
 * value) in native memory, read by random String keys in a plain loop, one variant of the get per
 * JVM. Each variant adds one thing to the same lookup, so the differences are the cost of that thing
 * in a loop of independent gets (the processor overlaps the cache misses of several gets when each
 * get is short enough).
 *
 * <pre>
 *   java bench/tools/MapGetProbe.java ENTRIES VARIANT [ROUNDS]
 * </pre>
 * (JDK 17 or later; JDK 24+ prints a warning about {@code sun.misc.Unsafe}, which
 * {@code --sun-misc-unsafe-memory-access=allow} silences.)
 *
 * Variants: {@code copy} (find, compare the key, copy the value out: no check), {@code xxh64}
 * (FerriteMap's check: XXH64 of the entry's bytes from the key length on, before the copy),
 * {@code sum} (a two-lane additive check of the same bytes instead), {@code cached} (the XXH64 work
 * over one fixed entry that stays in cache, of a constant length: the same instructions, none of
 * them waiting for the get's misses), {@code polyhash} ({@code Arrays.hashCode} of the copied value: a vector loop on JDK 21+,
 * a scalar one on 17), {@code crc32} ({@code java.util.zip.CRC32} of the copied value: the JDK's
 * carry-less-multiply intrinsic on both), {@code chm} ({@code ConcurrentHashMap<String, byte[]>}, the same keys).
 * Every check's result decides a branch, as a real check would. Prints ns per get for each round
 * of 3M gets, then the median.
 */
@SuppressWarnings("removal") // sun.misc.Unsafe's memory methods, deprecated on JDK 23+: the point is the bare access
public final class MapGetProbe {

    private static final Unsafe U = unsafe();
    private static final long BYTES = U.arrayBaseOffset(byte[].class);
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;
    private static final int KEY = 16;
    private static final int VALUE = 100;
    private static final int ENTRY = 136;
    private static final int OPS = 3_000_000;

    private final int entries;
    private final Variant variant;
    private final int mask;
    private final long slots;
    private final long heap;
    private int damaged;

    /** What a get does after finding its entry; see the class comment. */
    private enum Variant { COPY, XXH64, SUM, CACHED, POLYHASH, CRC32, CHM }

    private MapGetProbe(int entries, Variant variant) {
        this.entries = entries;
        this.variant = variant;
        int slotCount = Integer.highestOneBit(entries) * 4;
        this.mask = slotCount - 1;
        this.slots = U.allocateMemory(8L * slotCount);
        U.setMemory(slots, 8L * slotCount, (byte) 0);
        this.heap = U.allocateMemory((long) ENTRY * entries + 8);
    }

    public static void main(String[] args) {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: java bench/tools/MapGetProbe.java ENTRIES copy|xxh64|sum|cached|polyhash|crc32|chm [ROUNDS]");
            System.exit(2);
        }
        Variant variant = null;
        for (Variant v : Variant.values()) {
            if (v.name().equalsIgnoreCase(args[1])) {
                variant = v;
            }
        }
        if (variant == null) {
            System.err.println("unknown variant '" + args[1] + "'");
            System.exit(2);
        }
        int entries = Integer.parseInt(args[0]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        new MapGetProbe(entries, variant).run(rounds);
    }

    private void run(int rounds) {
        String[] lookups = new String[entries]; // equal keys, other instances than the stored ones
        ConcurrentHashMap<String, byte[]> chm = variant == Variant.CHM ? new ConcurrentHashMap<>(entries * 2) : null;
        for (int i = 0; i < entries; i++) {
            byte[] value = new byte[VALUE];
            new SplittableRandom(i).nextBytes(value);
            if (chm != null) {
                chm.put(key(i), value);
            } else {
                insert(i, key(i).getBytes(StandardCharsets.UTF_8), value);
            }
            lookups[i] = key(i);
        }
        List<Double> times = new ArrayList<>();
        Object last = null;
        for (int round = 0; round < rounds; round++) {
            SplittableRandom random = new SplittableRandom(round);
            long start = System.nanoTime();
            for (int i = 0; i < OPS; i++) {
                String k = lookups[random.nextInt(entries)];
                last = chm != null ? chm.get(k) : get(k);
            }
            double ns = (System.nanoTime() - start) / (double) OPS;
            times.add(ns);
            System.out.printf("%s %d entries, round %d: %.1f ns per get%n", name(), entries, round, ns);
        }
        times.sort(null);
        System.out.printf("%s %d entries: median %.1f ns per get (%d damaged, last %s)%n", name(), entries,
                times.get(times.size() / 2), damaged, last == null ? "null" : "found");
    }

    private String name() {
        return variant.name().toLowerCase(Locale.ROOT);
    }

    private void insert(int i, byte[] key, byte[] value) {
        long e = heap + 8 + (long) ENTRY * i;
        U.putInt(e + 4, KEY);
        U.putInt(e + 8, VALUE);
        U.putInt(e + 12, 0);
        U.copyMemory(key, BYTES, null, e + 16, KEY);
        U.copyMemory(value, BYTES, null, e + 16 + KEY, VALUE);
        U.putInt(e, (int) xxh64(e + 4, 12 + KEY + VALUE));
        long h = keyHash(key);
        int idx = (int) h & mask;
        while (U.getLong(slots + 8L * idx) != 0) {
            idx = (idx + 1) & mask;
        }
        U.putLong(slots + 8L * idx, ((h >>> 48) << 48) | (e - heap));
    }

    private byte[] get(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        long h = keyHash(k);
        long tag = h >>> 48;
        for (int idx = (int) h & mask; ; idx = (idx + 1) & mask) {
            long w = U.getLongVolatile(null, slots + 8L * idx);
            if (w == 0) {
                return null;
            }
            long e = heap + (w & 0xFFFF_FFFF_FFFFL);
            if ((w >>> 48) == tag && U.getInt(e + 4) == KEY
                    && U.getLong(e + 16) == U.getLong(k, BYTES) && U.getLong(e + 24) == U.getLong(k, BYTES + 8)) {
                return checkAndCopy(e, U.getInt(e + 8));
            }
        }
    }

    private byte[] checkAndCopy(long e, int valueLength) {
        int checked = 12 + KEY + valueLength;
        boolean bad;
        switch (variant) {
            case XXH64:
                bad = (int) xxh64(e + 4, checked) != U.getInt(e);
                break;
            case SUM:
                bad = (int) sum(e + 4, checked) == 0;
                break;
            case CACHED:
                bad = (int) xxh64(heap + 12, 12 + KEY + VALUE) == 0;
                break;
            default:
                bad = false;
        }
        byte[] v = new byte[valueLength];
        U.copyMemory(null, e + 16 + KEY, v, BYTES, valueLength);
        if (variant == Variant.POLYHASH) {
            bad = Arrays.hashCode(v) == 0;
        } else if (variant == Variant.CRC32) {
            CRC32 c = new CRC32();
            c.update(v, 0, valueLength);
            bad = (int) c.getValue() == 0;
        }
        if (bad) {
            damaged++;
        }

        return v;
    }

    /** The bench's keys: 16 hex digits of a scrambled index. */
    private static String key(long index) {
        long x = index * 0x9E3779B97F4A7C15L;
        x ^= x >>> 29;
        String hex = Long.toHexString(x);
        return "0".repeat(16 - hex.length()) + hex;
    }

    private static long keyHash(byte[] k) {
        long h = P5 + KEY;
        for (int i = 0; i < KEY; i += 8) {
            h ^= round(0, U.getLong(k, BYTES + i));
            h = Long.rotateLeft(h, 27) * P1 + P4;
        }
        return avalanche(h);
    }

    /** XXH64, seed 0, of native bytes [p, p + len). */
    private static long xxh64(long p, int len) {
        long end = p + len;
        long h;
        if (len >= 32) {
            long v1 = P1 + P2;
            long v2 = P2;
            long v3 = 0;
            long v4 = -P1;
            for (; p <= end - 32; p += 32) {
                v1 = round(v1, U.getLong(p));
                v2 = round(v2, U.getLong(p + 8));
                v3 = round(v3, U.getLong(p + 16));
                v4 = round(v4, U.getLong(p + 24));
            }
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = merge(merge(merge(merge(h, v1), v2), v3), v4);
        } else {
            h = P5;
        }
        h += len;
        for (; p <= end - 8; p += 8) {
            h ^= round(0, U.getLong(p));
            h = Long.rotateLeft(h, 27) * P1 + P4;
        }
        if (p <= end - 4) {
            h ^= (U.getInt(p) & 0xFFFF_FFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            p += 4;
        }
        for (; p < end; p++) {
            h ^= (U.getByte(p) & 0xFF) * P5;
            h = Long.rotateLeft(h, 11) * P1;
        }
        return avalanche(h);
    }

    /** Two 64-bit running sums of the words (the last one zero-padded), mixed at the end. */
    private static long sum(long p, int len) {
        long end = p + len;
        long a = len;
        long b = 0;
        for (; p <= end - 8; p += 8) {
            a += U.getLong(p);
            b += a;
        }
        if (p < end) {
            a += U.getLong(p) & (-1L >>> (8 * (8 - (end - p))));
            b += a;
        }
        long h = (a ^ Long.rotateLeft(b, 29)) * P2;
        return h ^ (h >>> 32);
    }

    private static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * P2, 31) * P1;
    }

    private static long merge(long acc, long v) {
        return (acc ^ round(0, v)) * P1 + P4;
    }

    private static long avalanche(long h) {
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        return h ^ (h >>> 32);
    }

    private static Unsafe unsafe() {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no sun.misc.Unsafe", e);
        }
    }
}
