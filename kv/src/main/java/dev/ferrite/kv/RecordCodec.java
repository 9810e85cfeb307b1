package dev.ferrite.kv;

import dev.ferrite.FerriteException;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link Codec#record}: a record's components one after the other in declaration order, each in a
 * form fixed by its type (see {@code docs/FORMAT.md}, "Record codec"). Decoding checks every
 * length and flag against the bytes it was given, so damaged bytes are an error, never an
 * oversized allocation or a read past the value.
 */
final class RecordCodec<R extends Record> implements Codec<R> {

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
                RecordKind kind;
                String desc;
                if (c.getType().isRecord()) {
                    @SuppressWarnings({"unchecked", "rawtypes"})
                    RecordCodec<?> nested = of((Class) c.getType(), enclosing);
                    kind = RecordKind.recordKind(nested);
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
    private static RecordKind kindOf(Class<?> owner, RecordComponent c) {
        Class<?> t = c.getType();
        RecordKind k = RecordKind.of(t);
        if (k != null) {
            return k;
        }
        if (t.isEnum()) {
            return RecordKind.enumKind(t);
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
        final RecordKind kind;
        private final MethodHandle get;

        Field(String name, RecordKind kind, MethodHandle get) {
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
}
