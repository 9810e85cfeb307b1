package dev.ferrite.queue;

/**
 * 128 bytes of unused fields that a hot endpoint class ({@link RingConsumer}, {@link RingProducer})
 * extends, so its own fields start at least two cache lines after whatever object the JVM placed
 * before it. HotSpot lays out a superclass's fields before its subclass's, so the padding cannot be
 * reordered away (padding fields declared in the same class can be).
 *
 * <p>Why: a consumer and a producer created one after the other by one thread lie next to each
 * other in its allocation buffer, and the consumer's head (written on every poll) then shared a
 * 128-byte line pair with the producer's tail (written on every offer). Measured on JDK 25, 8-byte
 * messages, a consumer thread: in the JVMs where the consumer's head lay 104 bytes before
 * {@code RingProducer.tail} an offer took 42–58 ns, in the others 13–22 ns, while an Agrona ring
 * driven alternately in the same JVMs took 22–29 ns throughout.
 */
abstract class LinePadding {
    /**
     * Fills the 4-byte hole after a 12-byte object header (compressed class pointers), where
     * HotSpot would otherwise place an int or a reference of a subclass: it put
     * a consumer's span count, written on every poll, and {@code RingProducer.maxMessage}, read on
     * every offer, at offset 12, in the line of the object before.
     */
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p10, p11, p12, p13, p14, p15;
}
