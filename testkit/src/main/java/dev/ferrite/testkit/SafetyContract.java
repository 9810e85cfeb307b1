package dev.ferrite.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferrite.ChunkPool;
import dev.ferrite.DoubleArray;
import dev.ferrite.FerriteException;
import dev.ferrite.IntArray;
import dev.ferrite.LongArray;
import dev.ferrite.OutOfBoundsException;
import dev.ferrite.PoolSpec;
import dev.ferrite.Region;
import dev.ferrite.Segment;
import dev.ferrite.SegmentClosedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Safe by default: every public method of {@link Segment}, {@link Region} and the typed views,
 * found by reflection (so a method added later is covered), called with extreme offsets and
 * lengths, through closed handles, through handles of a closed pool, and as a write to a
 * read-only pool. Each call throws the documented exception, and a call that throws changed
 * nothing: the pool's file or shm object is byte for byte what it was. With checks off
 * ({@code -Dferrite.checks=false}) only the read-only part runs: writes to a read-only pool are
 * refused on every path, checks on or off.
 */
public interface SafetyContract extends BackendFixture {

    /** Chunk size of these tests. */
    long CHUNK = 4096;
    /** Size of the segment under test: two whole chunks and part of a third. */
    long SIZE = 2 * CHUNK + 24;

    /** Where the pool header's owner table is (docs/FORMAT.md): left out of the byte comparisons. */
    int OWNER_TABLE = 4096;
    /** Where the owner table ends. */
    int OWNER_TABLE_END = 8192;

    /** Methods that work on a closed handle: they read no memory. */
    Set<String> HANDLE_METHODS = Set.of("size", "pool", "name", "isClosed", "close", "refCount", "segmentOffset",
            "length", "segment", "asDoubles", "asLongs", "asInts");

    /** Out-of-range offsets and lengths on an open handle throw {@link OutOfBoundsException} and change nothing. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void extremeOffsetsAndLengthsAreRefused(PoolSpec.Kind kind, @TempDir Path dir) {
        assumeTrue(backend().isChecked(), "checks are off");
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK); TestPool other = pool(PoolSpec.Kind.ANONYMOUS, dir,
                CHUNK, 16 * CHUNK)) {
            Segment s = tp.pool().allocate(SIZE);
            s.fill(0, SIZE, (byte) 0x11);
            Fixtures f = new Fixtures(other.pool());
            byte[] before = snapshot(tp);
            int calls = 0;
            for (Object target : targets(s)) {
                Target t = Target.of(target);
                long limit = t.limit(target);
                for (Method m : accessMethods(target)) {
                    for (long[] numbers : extremes(m, limit, t == Target.VIEWS)) {
                        Object[] args = f.args(m, numbers, limit);
                        Throwable thrown = invoke(target, m, args);
                        if (!(thrown instanceof OutOfBoundsException)) {
                            fail(describe(t, m, args) + " should throw OutOfBoundsException, threw " + thrown);
                        }
                        calls++;
                    }
                }
            }
            assertTrue(calls > 300, "only " + calls + " calls tried");
            assertArrayEquals(before, snapshot(tp), "a refused call changed the pool's bytes");
            for (long off = 0; off < SIZE; off++) {
                assertEquals(0x11, s.getByte(off), "byte " + off);
            }
        }
    }

    /** Every memory access through a closed handle, or a handle of a closed pool, throws {@link SegmentClosedException}. */
    @ParameterizedTest
    @EnumSource(PoolSpec.Kind.class)
    default void closedHandlesAndPoolsAreRefused(PoolSpec.Kind kind, @TempDir Path dir) {
        assumeTrue(backend().isChecked(), "checks are off");
        try (TestPool tp = pool(kind, dir, CHUNK, 16 * CHUNK); TestPool other = pool(PoolSpec.Kind.ANONYMOUS, dir,
                CHUNK, 16 * CHUNK)) {
            Fixtures f = new Fixtures(other.pool());
            Segment closedHandle = tp.pool().allocate(SIZE);
            Segment keepsMemory = closedHandle.retain();
            List<Object> ofClosedHandle = targets(closedHandle);
            closedHandle.close();
            int calls = refuseAll(ofClosedHandle, f);
            keepsMemory.putLong(0, 7);
            assertEquals(7, keepsMemory.getLong(0), "the other handle still works");

            List<Object> ofClosedPool = targets(tp.pool().allocate(SIZE));
            tp.pool().close();
            byte[] before = snapshot(tp);
            calls += refuseAll(ofClosedPool, f);
            assertArrayEquals(before, snapshot(tp), "a refused call changed the pool's bytes");
            assertTrue(calls > 100, "only " + calls + " calls tried");
        }
    }

    /**
     * Every write to a read-only pool is refused with a {@link FerriteException} naming it, on
     * every path, checks on or off; every read works; nothing changes.
     */
    @ParameterizedTest
    @EnumSource(value = PoolSpec.Kind.class, names = {"FILE", "SHM"})
    default void readOnlyPoolsRefuseEveryWrite(PoolSpec.Kind kind, @TempDir Path dir) {
        PoolSpec spec = spec(kind, dir).chunkSize(CHUNK).capacity(16 * CHUNK).build();
        try (TestPool tp = pool(spec); TestPool other = pool(PoolSpec.Kind.ANONYMOUS, dir, CHUNK, 16 * CHUNK)) {
            try (Segment s = tp.pool().allocate("data", SIZE)) {
                s.fill(0, SIZE, (byte) 0x22);
            }
            tp.pool().close();
            PoolSpec readOnly = (kind == PoolSpec.Kind.FILE ? PoolSpec.file(spec.path()) : PoolSpec.shm(spec.shmName()))
                    .readOnly(true).build();
            try (ChunkPool ro = backend().openPool(readOnly); Segment s = ro.open("data").orElseThrow()) {
                Fixtures f = new Fixtures(other.pool());
                byte[] before = snapshot(tp);
                int writes = 0;
                for (Object target : targets(s)) {
                    Target t = Target.of(target);
                    for (Method m : accessMethods(target)) {
                        if (HANDLE_METHODS.contains(m.getName()) || m.getName().equals("retain")) {
                            continue;
                        }
                        Object[] args = f.args(m, benign(m), t.limit(target));
                        Throwable thrown = invoke(target, m, args);
                        if (isWrite(m)) {
                            writes++;
                            if (!(thrown instanceof FerriteException) || !thrown.getMessage().contains("read-only")) {
                                fail(describe(t, m, args) + " on a read-only pool should be refused, threw " + thrown);
                            }
                        } else if (thrown != null) {
                            fail(describe(t, m, args) + " is a read and should work on a read-only pool, threw " + thrown);
                        }
                    }
                }
                // Writes that arrive from elsewhere: a copy into the read-only segment or one of its regions.
                Region roRegion = s.regions(0, 8).iterator().next();
                assertTrue(roRegion.asByteBuffer().isReadOnly());
                Segment writable = other.pool().allocate(SIZE);
                assertRefusedAsReadOnly(() -> writable.copyTo(0, s, 0, 8));
                assertRefusedAsReadOnly(() -> writable.regions(0, 8).iterator().next().copyTo(0, roRegion, 0, 8));
                assertTrue(writes >= 25, "only " + writes + " writes tried");
                assertArrayEquals(before, snapshot(tp), "a refused write changed the pool's bytes");
                assertEquals(0x22, s.getByte(SIZE - 1));
            }
        }
    }

    private static void assertRefusedAsReadOnly(Runnable write) {
        try {
            write.run();
            fail("a write into a read-only segment was not refused");
        } catch (FerriteException e) {
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
        }
    }

    // ---- the machinery ------------------------------------------------------------------------

    /** What a method is called on: a segment, one of its regions, or a typed view. */
    enum Target {
        SEGMENT, REGION, VIEWS;

        static Target of(Object target) {
            return target instanceof Segment ? SEGMENT : target instanceof Region ? REGION : VIEWS;
        }

        long limit(Object target) {
            if (target instanceof Segment) {
                return ((Segment) target).size();
            }
            if (target instanceof Region) {
                return ((Region) target).length();
            }
            if (target instanceof DoubleArray) {
                return ((DoubleArray) target).length();
            }
            return target instanceof LongArray ? ((LongArray) target).length() : ((IntArray) target).length();
        }
    }

    private static Region lastRegion(Segment s) {
        Region last = null;
        for (Region r : s.regions(0, s.size())) {
            last = r;
        }
        return last;
    }

    private static List<Object> targets(Segment s) {
        return List.of(s, lastRegion(s), s.asDoubles(), s.asLongs(), s.asInts());
    }

    /** Calls every memory access on each target with in-range arguments: each must throw SegmentClosedException. */
    private static int refuseAll(List<Object> targets, Fixtures f) {
        int calls = 0;
        for (Object target : targets) {
            Target t = Target.of(target);
            for (Method m : accessMethods(target)) {
                if (HANDLE_METHODS.contains(m.getName())) {
                    continue;
                }
                Object[] args = f.args(m, benign(m), t.limit(target));
                Throwable thrown = invoke(target, m, args);
                if (!(thrown instanceof SegmentClosedException)) {
                    fail(describe(t, m, args) + " should throw SegmentClosedException, threw " + thrown);
                }
                calls++;
            }
        }
        return calls;
    }

    /**
     * @param target a segment, a region or a typed view
     * @return the public instance methods of its API type, in a stable order
     */
    private static List<Method> accessMethods(Object target) {
        Class<?> type = null;
        for (Class<?> api : List.of(Segment.class, Region.class, DoubleArray.class, LongArray.class,
                IntArray.class)) {
            if (api.isInstance(target)) {
                type = api;
            }
        }
        List<Method> methods = new ArrayList<>();
        for (Method m : type.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers())) {
                methods.add(m);
            }
        }
        methods.sort(Comparator.comparing(Method::toString));
        return methods;
    }

    private static boolean isWrite(Method m) {
        String n = m.getName();
        return n.startsWith("put") || n.equals("set") || n.startsWith("copyFrom") || n.equals("fill")
                || n.startsWith("compareAndSet") || n.startsWith("getAndAdd");
    }

    /** @return how many trailing parameters are values written, not offsets or lengths */
    private static int valueParams(Method m) {
        String n = m.getName();
        if (n.startsWith("compareAndSet")) {
            return 2;
        }
        return n.startsWith("put") || n.equals("set") || n.startsWith("getAndAdd") || n.equals("fill") ? 1 : 0;
    }

    /** @return the indices of the offset, index and length parameters */
    private static int[] numericParams(Method m) {
        Class<?>[] p = m.getParameterTypes();
        return java.util.stream.IntStream.range(0, p.length - valueParams(m))
                .filter(i -> p[i] == int.class || p[i] == long.class).toArray();
    }

    /** @return in-range offsets (0) and, for a method that takes a length, a length of 1 */
    private static long[] benign(Method m) {
        long[] v = new long[numericParams(m).length];
        if (v.length >= 2) {
            v[v.length - 1] = 1;
        }
        return v;
    }

    /** @return the out-of-range tuples for a method's offset, index and length parameters */
    private static List<long[]> extremes(Method m, long limit, boolean elementIndex) {
        int n = numericParams(m).length;
        boolean intOnly = Arrays.stream(numericParams(m)).allMatch(i -> m.getParameterTypes()[i] == int.class);
        long max = intOnly ? Integer.MAX_VALUE : Long.MAX_VALUE;
        long min = intOnly ? Integer.MIN_VALUE : Long.MIN_VALUE;
        List<long[]> tuples = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            boolean isLength = n >= 2 && k == n - 1;
            List<Long> values = new ArrayList<>(List.of(-1L, limit + 1, max, min));
            if (!isLength) {
                values.add(limit);
            }
            if (elementIndex) {
                values.add(1L << 61);
                values.add(1L << 62);
            }
            for (long e : values) {
                long[] v = benign(m);
                v[k] = e;
                tuples.add(v);
            }
        }
        if (n >= 2) {
            long[][] pairs = {{limit + 2, max}, {1, max}, {max, max}, {max, 1}, {1, limit}, {limit, limit}};
            for (long[] pair : pairs) {
                long[] v = benign(m);
                v[0] = pair[0];
                v[n - 1] = pair[1];
                tuples.add(v);
            }
        }
        return tuples;
    }

    /** @return what the call threw, or null */
    private static Throwable invoke(Object target, Method m, Object[] args) {
        try {
            m.invoke(target, args);
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    private static String describe(Target t, Method m, Object[] args) {
        StringBuilder sb = new StringBuilder(t.name().toLowerCase()).append('.').append(m.getName()).append('(');
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            sb.append(i == 0 ? "" : ", ").append(a == null ? "null" : a.getClass().isArray()
                    ? a.getClass().getComponentType() + "[" + java.lang.reflect.Array.getLength(a) + "]" : a);
        }
        return sb.append(')').toString();
    }

    /** @return the pool file's bytes (none for an anonymous pool), its owner table zeroed */
    private static byte[] snapshot(TestPool tp) {
        PoolSpec spec = tp.spec();
        Path file = spec.kind() == PoolSpec.Kind.FILE ? spec.path()
                : spec.kind() == PoolSpec.Kind.SHM ? Path.of("/dev/shm", spec.shmName()) : null;
        try {
            byte[] bytes = file == null ? new byte[0] : Files.readAllBytes(file);
            // The owner table holds the processes' liveness heartbeats, rewritten every second.
            Arrays.fill(bytes, Math.min(bytes.length, OWNER_TABLE), Math.min(bytes.length, OWNER_TABLE_END), (byte) 0);
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Arguments of the right types: arrays as long as the target's limit, another writable segment. */
    final class Fixtures {
        private final Segment other;

        Fixtures(ChunkPool otherPool) {
            this.other = otherPool.allocate(SIZE);
        }

        Object[] args(Method m, long[] numbers, long limit) {
            Class<?>[] types = m.getParameterTypes();
            int[] numeric = numericParams(m);
            Object[] args = new Object[types.length];
            for (int i = 0, k = 0; i < types.length; i++) {
                if (k < numeric.length && numeric[k] == i) {
                    args[i] = types[i] == int.class ? (Object) (int) Math.max(Integer.MIN_VALUE,
                            Math.min(Integer.MAX_VALUE, numbers[k])) : (Object) numbers[k];
                    k++;
                } else {
                    args[i] = value(types[i], (int) Math.min(limit, 1 << 16));
                }
            }
            return args;
        }

        private Object value(Class<?> type, int arrayLength) {
            if (type == byte[].class) {
                return new byte[arrayLength];
            } else if (type == long[].class) {
                return new long[arrayLength];
            } else if (type == double[].class) {
                return new double[arrayLength];
            } else if (type == ByteBuffer.class) {
                return ByteBuffer.allocate(8);
            } else if (type == Segment.class) {
                return other;
            } else if (type == Region.class) {
                return other.regions(0, arrayLength).iterator().next();
            } else if (type == byte.class) {
                return (byte) 1;
            } else if (type == short.class) {
                return (short) 1;
            } else if (type == char.class) {
                return (char) 1;
            } else if (type == int.class) {
                return 1;
            } else if (type == long.class) {
                return 1L;
            } else if (type == float.class) {
                return 1f;
            } else if (type == double.class) {
                return 1d;
            }
            throw new AssertionError("no test value for a parameter of type " + type);
        }
    }
}
