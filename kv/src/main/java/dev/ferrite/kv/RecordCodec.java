package dev.ferrite.kv;

import dev.ferrite.FerriteException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * {@link Codec#record}: a record's components one after the other in declaration order, each in a
 * form fixed by its type (see {@code docs/FORMAT.md}, "Record codec"). Decoding checks every
 * length and flag against the bytes it was given, so damaged bytes are an error, never an
 * oversized allocation or a read past the value.
 */
final class RecordCodec<R extends Record> implements Codec<R> {

    /** Length prefix of an absent (null) String, byte[] or enum. */
    static final int NULL_LENGTH = -1;

    private final Class<R> type;
    private final Field[] fields;
    private final MethodHandle constructor;
    private final int fixedSize;
    /** {@code record(TYPE NAME, ...)}: see {@link Codec#id()}. */
    private final String id;

    private RecordCodec(Class<R> type, Field[] fields, MethodHandle constructor, String id) {
        this.type = type;
        this.fields = fields;
        this.constructor = constructor;
        this.id = id;
        int fixed = 0;
        for (Field f : fields) {
            if (f.kind.fixedSize < 0) {
                fixed = -1;
                break;
            }
            fixed += f.kind.fixedSize;
        }
        this.fixedSize = fixed;
    }

    static <R extends Record> RecordCodec<R> of(Class<R> type) {
        return of(type, new ArrayList<>());
    }

    private static <R extends Record> RecordCodec<R> of(Class<R> type, List<Class<?>> enclosing) {
        if (!type.isRecord()) {
            throw new FerriteException(type.getName() + " is not a record class");
        }
        if (enclosing.contains(type)) {
            throw new FerriteException("record " + type.getName() + " contains itself (through "
                    + enclosing.stream().map(Class::getSimpleName).toList() + "): a record codec needs a finite form");
        }
        enclosing.add(type);
        RecordComponent[] components = type.getRecordComponents();
        Field[] fields = new Field[components.length];
        Class<?>[] types = new Class<?>[components.length];
        List<String> described = new ArrayList<>();
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            for (int i = 0; i < components.length; i++) {
                RecordComponent c = components[i];
                types[i] = c.getType();
                var accessor = c.getAccessor();
                accessor.setAccessible(true);
                MethodHandle get = lookup.unreflect(accessor).asType(MethodType.methodType(Object.class, Object.class));
                Kind kind;
                String desc;
                if (c.getType().isRecord()) {
                    @SuppressWarnings({"unchecked", "rawtypes"})
                    RecordCodec<?> nested = of((Class) c.getType(), enclosing);
                    kind = Kind.recordKind(nested);
                    desc = nested.id;
                } else {
                    kind = kindOf(type, c);
                    desc = c.getType().isEnum() ? "enum" : c.getType().getSimpleName();
                }
                fields[i] = new Field(type.getSimpleName() + "." + c.getName(), kind, get);
                described.add(desc + " " + c.getName());
            }
            Constructor<R> ctor = type.getDeclaredConstructor(types);
            ctor.setAccessible(true);
            MethodHandle make = lookup.unreflectConstructor(ctor).asSpreader(Object[].class, components.length)
                    .asType(MethodType.methodType(Object.class, Object[].class));
            enclosing.remove(type);
            return new RecordCodec<>(type, fields, make, "record(" + String.join(", ", described) + ")");
        } catch (ReflectiveOperationException | RuntimeException e) {
            if (e instanceof FerriteException fe) {
                throw fe;
            }
            throw new FerriteException("cannot reach the components or the canonical constructor of record "
                    + type.getName() + " (" + e + "); make it public or open its package to dev.ferrite.kv", e);
        }
    }

    /** @return how a component of a type other than a record is stored */
    private static Kind kindOf(Class<?> owner, RecordComponent c) {
        Class<?> t = c.getType();
        Kind k = Kind.of(t);
        if (k != null) {
            return k;
        }
        if (t.isEnum()) {
            return Kind.enumKind(t);
        }
        throw new FerriteException("record component " + owner.getSimpleName() + "." + c.getName() + " has type "
                + t.getName() + "; a record codec takes primitives and their boxes, String, byte[], UUID, enums and records");
    }

    @Override
    public int size(R value) {
        int size = 0;
        for (Field f : fields) {
            size += f.kind.size(f.get(value));
        }
        return size;
    }

    @Override
    public void encode(R value, ByteBuffer dst) {
        for (Field f : fields) {
            f.kind.encode(f.get(value), dst);
        }
    }

    @Override
    public R decode(ByteBuffer src, int length) {
        int end = src.position() + length;
        R value = read(src, end);
        if (src.position() != end) {
            throw new FerriteException("record " + type.getSimpleName() + " took " + (length - (end - src.position()))
                    + " of its " + length + " bytes: the rest is no part of it");
        }
        return value;
    }

    /** Reads the record's components, never past {@code end}. */
    R read(ByteBuffer src, int end) {
        Object[] args = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            args[i] = fields[i].kind.decode(src, end, fields[i].name);
        }
        try {
            return type.cast(constructor.invoke(args));
        } catch (Throwable e) {
            throw new FerriteException("the canonical constructor of " + type.getName() + " refused decoded values: " + e, e);
        }
    }

    @Override
    public int fixedSize() {
        return fixedSize;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String toString() {
        return "Codec.record(" + type.getName() + ")";
    }

    /** One component: its name for errors, how it is stored, and how to read it from a record. */
    private static final class Field {
        final String name;
        final Kind kind;
        private final MethodHandle get;

        Field(String name, Kind kind, MethodHandle get) {
            this.name = name;
            this.kind = kind;
            this.get = get;
        }

        Object get(Object record) {
            try {
                return get.invokeExact(record);
            } catch (Throwable e) {
                throw new FerriteException("reading component " + name + " failed: " + e, e);
            }
        }
    }

    /** How one component type is stored. */
    abstract static class Kind {
        /** Bytes every value takes, or -1 if it varies. */
        final int fixedSize;

        Kind(int fixedSize) {
            this.fixedSize = fixedSize;
        }

        abstract int size(Object v);

        abstract void encode(Object v, ByteBuffer dst);

        /** Reads one value, never past {@code end}; {@code name} names the component in errors. */
        abstract Object decode(ByteBuffer src, int end, String name);

        static void need(ByteBuffer src, int end, long bytes, String name) {
            if (bytes > end - src.position()) {
                throw new FerriteException("component " + name + " needs " + bytes + " bytes but only "
                        + (end - src.position()) + " of the value remain");
            }
        }

        /** Reads a presence byte: false for 0 (null), true for 1, an error for anything else. */
        static boolean present(ByteBuffer src, int end, String name) {
            need(src, end, 1, name);
            byte present = src.get();
            if (present != 0 && present != 1) {
                throw new FerriteException("component " + name + " has presence byte " + present
                        + "; it must be 0 (null) or 1");
            }
            return present == 1;
        }

        static Kind of(Class<?> t) {
            if (t == long.class) {
                return primitive(8, (v, b) -> b.putLong((Long) v), ByteBuffer::getLong);
            } else if (t == int.class) {
                return primitive(4, (v, b) -> b.putInt((Integer) v), ByteBuffer::getInt);
            } else if (t == double.class) {
                return primitive(8, (v, b) -> b.putLong(Double.doubleToLongBits((Double) v)),
                        b -> Double.longBitsToDouble(b.getLong()));
            } else if (t == float.class) {
                return primitive(4, (v, b) -> b.putInt(Float.floatToIntBits((Float) v)),
                        b -> Float.intBitsToFloat(b.getInt()));
            } else if (t == short.class) {
                return primitive(2, (v, b) -> b.putShort((Short) v), ByteBuffer::getShort);
            } else if (t == char.class) {
                return primitive(2, (v, b) -> b.putChar((Character) v), ByteBuffer::getChar);
            } else if (t == byte.class) {
                return primitive(1, (v, b) -> b.put((Byte) v), ByteBuffer::get);
            } else if (t == boolean.class) {
                return BOOLEAN;
            } else if (t == Long.class || t == Integer.class || t == Double.class || t == Float.class
                    || t == Short.class || t == Character.class || t == Byte.class || t == Boolean.class) {
                return boxed(of(primitiveOf(t)));
            } else if (t == String.class) {
                return STRING;
            } else if (t == byte[].class) {
                return BYTE_ARRAY;
            } else if (t == UUID.class) {
                return boxed(primitive(16, (v, b) -> b.putLong(((UUID) v).getMostSignificantBits())
                        .putLong(((UUID) v).getLeastSignificantBits()), b -> new UUID(b.getLong(), b.getLong())));
            }
            return null;
        }

        private static Class<?> primitiveOf(Class<?> box) {
            return box == Long.class ? long.class : box == Integer.class ? int.class : box == Double.class ? double.class
                    : box == Float.class ? float.class : box == Short.class ? short.class
                    : box == Character.class ? char.class : box == Byte.class ? byte.class : boolean.class;
        }

        interface Writer {
            void write(Object v, ByteBuffer dst);
        }

        interface Reader {
            Object read(ByteBuffer src);
        }

        static Kind primitive(int size, Writer writer, Reader reader) {
            return new Kind(size) {
                @Override
                int size(Object v) {
                    return size;
                }

                @Override
                void encode(Object v, ByteBuffer dst) {
                    writer.write(v, dst);
                }

                @Override
                Object decode(ByteBuffer src, int end, String name) {
                    need(src, end, size, name);
                    return reader.read(src);
                }
            };
        }

        static final Kind BOOLEAN = new Kind(1) {
            @Override
            int size(Object v) {
                return 1;
            }

            @Override
            void encode(Object v, ByteBuffer dst) {
                dst.put((byte) ((Boolean) v ? 1 : 0));
            }

            @Override
            Object decode(ByteBuffer src, int end, String name) {
                need(src, end, 1, name);
                byte b = src.get();
                if (b != 0 && b != 1) {
                    throw new FerriteException("component " + name + " is a boolean stored as 0 or 1, not " + b);
                }
                return b == 1;
            }
        };

        /** A presence byte (0 absent, 1 present), then the value if present. */
        static Kind boxed(Kind inner) {
            return new Kind(-1) {
                @Override
                int size(Object v) {
                    return v == null ? 1 : 1 + inner.size(v);
                }

                @Override
                void encode(Object v, ByteBuffer dst) {
                    dst.put((byte) (v == null ? 0 : 1));
                    if (v != null) {
                        inner.encode(v, dst);
                    }
                }

                @Override
                Object decode(ByteBuffer src, int end, String name) {
                    return present(src, end, name) ? inner.decode(src, end, name) : null;
                }
            };
        }

        /** A length prefix ({@link #NULL_LENGTH} for null), then that many bytes. */
        abstract static class Sized extends Kind {
            Sized() {
                super(-1);
            }

            @Override
            final Object decode(ByteBuffer src, int end, String name) {
                need(src, end, 4, name);
                int length = src.getInt();
                if (length == NULL_LENGTH) {
                    return null;
                }
                if (length < 0) {
                    throw new FerriteException("component " + name + " has length " + length
                            + "; it must be -1 (null) or at least 0");
                }
                need(src, end, length, name);
                return read(src, length, name);
            }

            abstract Object read(ByteBuffer src, int length, String name);
        }

        static final Kind STRING = new Sized() {
            @Override
            int size(Object v) {
                return 4 + (v == null ? 0 : Codecs.utf8Length((String) v));
            }

            @Override
            void encode(Object v, ByteBuffer dst) {
                if (v == null) {
                    dst.putInt(NULL_LENGTH);
                    return;
                }
                dst.putInt(Codecs.utf8Length((String) v));
                Codecs.putUtf8((String) v, dst);
            }

            @Override
            Object read(ByteBuffer src, int length, String name) {
                return Codecs.getUtf8(src, length, "String component " + name);
            }
        };

        static final Kind BYTE_ARRAY = new Sized() {
            @Override
            int size(Object v) {
                return 4 + (v == null ? 0 : ((byte[]) v).length);
            }

            @Override
            void encode(Object v, ByteBuffer dst) {
                if (v == null) {
                    dst.putInt(NULL_LENGTH);
                    return;
                }
                dst.putInt(((byte[]) v).length).put((byte[]) v);
            }

            @Override
            Object read(ByteBuffer src, int length, String name) {
                byte[] b = new byte[length];
                src.get(b);
                return b;
            }
        };

        /** An enum by its constant's name: reordering or adding constants keeps stored values valid. */
        static Kind enumKind(Class<?> type) {
            return new Sized() {
                @Override
                int size(Object v) {
                    return 4 + (v == null ? 0 : ((Enum<?>) v).name().getBytes(StandardCharsets.UTF_8).length);
                }

                @Override
                void encode(Object v, ByteBuffer dst) {
                    if (v == null) {
                        dst.putInt(NULL_LENGTH);
                        return;
                    }
                    byte[] name = ((Enum<?>) v).name().getBytes(StandardCharsets.UTF_8);
                    dst.putInt(name.length).put(name);
                }

                @Override
                Object read(ByteBuffer src, int length, String name) {
                    String constant = Codecs.getUtf8(src, length, "enum component " + name);
                    for (Object c : type.getEnumConstants()) {
                        if (((Enum<?>) c).name().equals(constant)) {
                            return c;
                        }
                    }
                    throw new FerriteException("component " + name + " names enum constant '" + constant
                            + "', which " + type.getName() + " does not have");
                }
            };
        }

        /** A nested record: a presence byte, then its components. */
        static Kind recordKind(RecordCodec<?> nested) {
            return new Kind(-1) {
                @Override
                @SuppressWarnings({"unchecked", "rawtypes"})
                int size(Object v) {
                    return v == null ? 1 : 1 + ((RecordCodec) nested).size((Record) v);
                }

                @Override
                @SuppressWarnings({"unchecked", "rawtypes"})
                void encode(Object v, ByteBuffer dst) {
                    dst.put((byte) (v == null ? 0 : 1));
                    if (v != null) {
                        ((RecordCodec) nested).encode((Record) v, dst);
                    }
                }

                @Override
                Object decode(ByteBuffer src, int end, String name) {
                    return present(src, end, name) ? nested.read(src, end) : null;
                }
            };
        }
    }
}
