package dev.ferrite.kv;

import dev.ferrite.FerriteException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * How one component type of a record is stored by {@link RecordCodec}: its fixed size (or -1),
 * how a value is sized, written and read back (each read checks its lengths and flags against the
 * bytes it is given). The forms are those of docs/FORMAT.md, "Record codec". Stateless.
 */
abstract class RecordKind {

    /** Length prefix of an absent (null) String, byte[] or enum. */
    static final int NULL_LENGTH = -1;

    /** Bytes every value takes, or -1 if it varies. */
    final int fixedSize;

    RecordKind(int fixedSize) {
        this.fixedSize = fixedSize;
    }

    abstract int size(Object v);

    abstract void encode(Object v, ByteBuffer dst);

    /** Reads one value, never past {@code end}; {@code name} names the component in errors. */
    abstract Object decode(ByteBuffer src, int end, String name);

    /** @throws FerriteException if fewer than {@code bytes} of the value remain before {@code end} */
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

    /** @return the form of a component type other than a record or an enum, or null if it has none */
    static RecordKind of(Class<?> t) {
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

    static RecordKind primitive(int size, Writer writer, Reader reader) {
        return new RecordKind(size) {
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

    static final RecordKind BOOLEAN = new RecordKind(1) {
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
    static RecordKind boxed(RecordKind inner) {
        return new RecordKind(-1) {
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
    abstract static class Sized extends RecordKind {
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

    static final RecordKind STRING = new Sized() {
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

    static final RecordKind BYTE_ARRAY = new Sized() {
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
    static RecordKind enumKind(Class<?> type) {
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
    static RecordKind recordKind(RecordCodec<?> nested) {
        return new RecordKind(-1) {
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
