package dev.ferrite.kv.chronicle;

import dev.ferrite.FerriteException;
import dev.ferrite.kv.Codec;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesMarshallable;

/**
 * A {@link Codec} for Chronicle Bytes {@link BytesMarshallable} classes: a value is stored as the
 * bytes its {@code writeMarshallable} writes and read back by {@code readMarshallable} into a fresh
 * instance. A Chronicle Map user moving to {@code FerriteMap} keeps their value (and key) classes,
 * whether they write their fields by hand or rely on {@code BytesMarshallable}'s reflective
 * default.
 *
 * <p>The stored form is Chronicle Bytes' own, in the machine's byte order (little-endian on x86
 * and ARM): a map written here is read back by this codec, not by the built-in codecs. Keys must
 * encode deterministically (equal keys to equal bytes), which {@code BytesMarshallable}'s default
 * does for fields of fixed size and strings.
 *
 * <p>Thread-safe: each thread encodes and decodes through its own scratch {@code Bytes}, so no
 * Chronicle object is shared between threads.
 *
 * @param <T> the value class
 */
public final class BytesMarshallableCodec<T extends BytesMarshallable> implements Codec<T> {

    /** The JVM flag Chronicle Bytes' reflective field marshalling needs on JDK 17 and later. */
    public static final String REFLECT_FLAG = "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED";

    private final Class<T> type;
    private final Supplier<? extends T> factory;
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

    private BytesMarshallableCodec(Class<T> type, Supplier<? extends T> factory) {
        this.type = type;
        this.factory = factory;
    }

    /**
     * A codec that makes the instances it decodes into with {@code type}'s public no-argument
     * constructor.
     *
     * @param type the value class, concrete, with a public no-argument constructor
     * @param <T>  the value class
     * @return the codec
     * @throws NullPointerException if {@code type} is null
     * @throws FerriteException     naming the class if it is abstract or has no public no-argument
     *                              constructor
     */
    public static <T extends BytesMarshallable> BytesMarshallableCodec<T> of(Class<T> type) {
        Objects.requireNonNull(type, "type");
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            throw new FerriteException(type.getName() + " is abstract: give a factory for its instances");
        }
        Constructor<T> constructor;
        try {
            constructor = type.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new FerriteException(type.getName()
                    + " has no public no-argument constructor: give a factory for its instances");
        }
        return new BytesMarshallableCodec<>(type, () -> newInstance(constructor));
    }

    /**
     * A codec that decodes into instances made by {@code factory}.
     *
     * @param type    the value class (named in errors)
     * @param factory makes a fresh instance per decoded value; called from any thread; must not
     *                return null
     * @param <T>     the value class
     * @return the codec
     * @throws NullPointerException if an argument is null
     */
    public static <T extends BytesMarshallable> BytesMarshallableCodec<T> of(
            Class<T> type, Supplier<? extends T> factory) {
        return new BytesMarshallableCodec<>(Objects.requireNonNull(type, "type"),
                Objects.requireNonNull(factory, "factory"));
    }

    /** @return the value class this codec stores */
    public Class<T> type() {
        return type;
    }

    /**
     * @return {@code chronicle:} and the value class's name: its {@code writeMarshallable} defines
     *         the bytes, so the class is the identity a map records
     */
    @Override
    public String id() {
        return "chronicle:" + type.getName();
    }

    /**
     * Serializes the value into this thread's scratch bytes and returns their length; a following
     * {@link #encode} of the same instance on the same thread copies them instead of serializing
     * again.
     *
     * @throws FerriteException if {@code writeMarshallable} fails or writes more than 2 GiB
     */
    @Override
    public int size(T value) {
        return scratch.get().write(value).length;
    }

    @Override
    public void encode(T value, ByteBuffer dst) {
        Scratch s = scratch.get();
        if (s.last != value) {
            s.write(value);
        }
        s.last = null;
        dst.put(s.array, 0, s.length);
    }

    /**
     * @throws FerriteException naming the class and the length if {@code readMarshallable} fails or
     *                          leaves bytes of the value unread
     */
    @Override
    public T decode(ByteBuffer src, int length) {
        Scratch s = scratch.get();
        Bytes<byte[]> in = s.reader(src, length);
        T value = factory.get();
        if (value == null) {
            throw new FerriteException("the factory of " + type.getName() + " returned null");
        }
        try {
            value.readMarshallable(in);
        } catch (RuntimeException | AssertionError e) {
            throw new FerriteException("cannot read a " + type.getName() + " from " + length
                    + " stored bytes: " + e + flagHint(e), e);
        }
        if (in.readRemaining() != 0) {
            throw new FerriteException("a " + type.getName() + " read " + (length - in.readRemaining())
                    + " of its " + length + " stored bytes: not an encoding of this class");
        }
        return value;
    }

    @Override
    public String toString() {
        return "BytesMarshallableCodec[" + type.getName() + "]";
    }

    /** Chronicle's reflective marshalling reports a missing JVM flag as an access error deep inside. */
    private static String flagHint(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IllegalAccessException) {
                return " (the reflective BytesMarshallable default needs " + REFLECT_FLAG
                        + " on JDK 17 and later)";
            }
        }
        return "";
    }

    private static <T> T newInstance(Constructor<T> constructor) {
        try {
            return constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw new FerriteException("the constructor of " + constructor.getDeclaringClass().getName()
                    + " threw " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new FerriteException("cannot make a " + constructor.getDeclaringClass().getName()
                    + ": " + e, e);
        }
    }

    /** One thread's serialization buffers. */
    private final class Scratch {
        private final Bytes<?> out = Bytes.allocateElasticOnHeap(256);
        private byte[] array = new byte[256];
        private int length;
        private Object last;

        Scratch write(T value) {
            out.clear();
            try {
                value.writeMarshallable(out);
            } catch (RuntimeException | AssertionError e) {
                last = null;
                throw new FerriteException("cannot write a " + type.getName() + ": " + e + flagHint(e), e);
            }
            long n = out.readRemaining();
            if (n > Integer.MAX_VALUE - 8) {
                last = null;
                throw new FerriteException("a " + type.getName() + " wrote " + n
                        + " bytes; the most a value can have is " + (Integer.MAX_VALUE - 8));
            }
            length = (int) n;
            if (array.length < length) {
                array = new byte[Math.max(length, array.length * 2)];
            }
            out.read(array, 0, length);
            last = value;
            return this;
        }

        Bytes<byte[]> reader(ByteBuffer src, int length) {
            if (array.length < length) {
                array = new byte[Math.max(length, array.length * 2)];
            }
            src.get(array, 0, length);
            last = null;
            Bytes<byte[]> in = Bytes.wrapForRead(array);
            in.readLimit(length);
            return in;
        }
    }
}
