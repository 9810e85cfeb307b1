package dev.ferrite.queue;

import org.junit.jupiter.api.Test;
import sun.misc.Unsafe;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fields a consumer writes on every poll and a producer on every offer lie at least 128 bytes
 * (a cache-line pair) into their objects, so an object the JVM places just before one of them (the
 * other endpoint, typically: a consumer and a producer created back to back share an allocation
 * buffer) never shares a line pair with them. Without {@link LinePadding}, {@code Consumer.head}
 * lay 104 bytes before {@code RingProducer.tail} in such JVMs and offers took 2–4x as long.
 */
class EndpointLayoutTest {

    private static final long LINE_PAIR = 128;

    @Test
    void hotFieldsOfBothEndpointsStartAfterALinePairOfPadding() throws Exception {
        assertPadded(RingConsumer.class, "head");
        assertPadded(RingProducer.class, "tail");
        assertPadded(OneToOneProducer.class, "freedCache");
    }

    /**
     * No field of an endpoint slips in front of the padding: HotSpot fills the 4-byte hole after a
     * 12-byte object header with a subclass's int or reference, which put a consumer's span count
     * (written on every poll) and {@code RingProducer.maxMessage} (read on every offer) at offset 12,
     * in the line of whatever object lies just before.
     */
    @Test
    void everyFieldOfEveryEndpointLiesPastThePadding() throws Exception {
        for (Class<?> type : new Class<?>[] {OneToOneConsumer.class, ManyToOneConsumer.class,
                OneToOneProducer.class, ManyToOneProducer.class}) {
            for (Class<?> c = type; c != LinePadding.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        assertPadded(c, f.getName());
                    }
                }
            }
        }
    }

    private static void assertPadded(Class<?> type, String name) throws Exception {
        long offset = unsafe().objectFieldOffset(type.getDeclaredField(name));
        assertTrue(offset >= LINE_PAIR, type.getSimpleName() + "." + name + " is at offset " + offset
                + " of its object; it must be at least " + LINE_PAIR + " bytes in");
    }

    private static Unsafe unsafe() throws Exception {
        Field f = Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        return (Unsafe) f.get(null);
    }
}
