package dev.ferrite.queue;

import dev.ferrite.Segment;

/**
 * Receives messages from {@link Consumer#poll}, in place: the payload is read straight from the
 * queue's memory, valid only during the call (the ring reuses it afterwards).
 */
@FunctionalInterface
public interface MessageHandler {

    /**
     * @param segment the queue's segment; read it, do not keep it or write to it
     * @param offset  byte offset of the payload in the segment
     * @param length  payload length in bytes, 1 to the queue's maximum message length
     * @param type    message type given by the producer, {@code >= 0}
     */
    void onMessage(Segment segment, long offset, int length, int type);
}
