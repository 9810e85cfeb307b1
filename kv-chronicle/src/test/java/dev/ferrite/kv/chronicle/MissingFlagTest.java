package dev.ferrite.kv.chronicle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferrite.FerriteException;
import dev.ferrite.testkit.ChildJvm;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Without the JVM flag, reflective marshalling fails with an error that names the flag. */
class MissingFlagTest {

    /** Child JVM: encodes one reflectively marshalled value, prints the error it gets. */
    public static final class Child {
        public static void main(String[] args) {
            BytesMarshallableCodec<BytesMarshallableCodecTest.Account> codec =
                    BytesMarshallableCodec.of(BytesMarshallableCodecTest.Account.class);
            try {
                codec.size(new BytesMarshallableCodecTest.Account(1, 2, 3, "x"));
                System.out.println("encoded");
            } catch (FerriteException e) {
                System.out.println("FerriteException: " + e.getMessage());
            }
        }
    }

    @Test
    void withoutTheFlagTheErrorNamesIt() throws Exception {
        ChildJvm.Result without = ChildJvm.run(ChildJvm.ferriteFlags(), Map.of(), Child.class);
        assertEquals(0, without.exitCode(), without.stderr());
        assertTrue(without.stdout().contains("FerriteException: cannot write a "), without.stdout());
        assertTrue(without.stdout().contains(BytesMarshallableCodec.REFLECT_FLAG), without.stdout());

        java.util.List<String> flags = new java.util.ArrayList<>(ChildJvm.ferriteFlags());
        flags.add(BytesMarshallableCodec.REFLECT_FLAG);
        ChildJvm.Result with = ChildJvm.run(flags, Map.of(), Child.class);
        assertTrue(with.stdout().strip().endsWith("encoded"), with.stdout() + with.stderr());
        assertTrue(!with.stdout().contains("FerriteException"), with.stdout());
    }
}
