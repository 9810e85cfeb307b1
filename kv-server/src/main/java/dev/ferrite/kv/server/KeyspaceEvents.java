package dev.ferrite.kv.server;

import java.nio.charset.StandardCharsets;

/**
 * Redis's keyspace notifications: when enabled by {@code CONFIG SET notify-keyspace-events}, a
 * change of a key is published as {@code __keyspace@DB__:KEY} with the event's name as the message
 * (flag {@code K}) and as {@code __keyevent@DB__:EVENT} with the key as the message (flag
 * {@code E}), for the classes of events enabled: {@code g} generic (del, expire, rename...),
 * {@code $} string, {@code x} expired, {@code n} new key, and Redis's others ({@code l s h z e t d
 * m}, accepted; this server has no key of those types, evicts nothing and emits no key-miss
 * event). Off by default, and then an event costs one volatile read. Thread-safe.
 */
final class KeyspaceEvents {

    static final int KEYSPACE = 1;
    static final int KEYEVENT = 1 << 1;
    static final int GENERIC = 1 << 2;
    static final int STRING = 1 << 3;
    static final int LIST = 1 << 4;
    static final int SET = 1 << 5;
    static final int HASH = 1 << 6;
    static final int ZSET = 1 << 7;
    static final int EXPIRED = 1 << 8;
    static final int EVICTED = 1 << 9;
    static final int STREAM = 1 << 10;
    static final int KEY_MISS = 1 << 11;
    static final int MODULE = 1 << 12;
    static final int NEW = 1 << 13;
    /** Flag {@code A}: every class but key misses and new keys. */
    static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    private final PubSub pubsub;
    private volatile int flags;

    KeyspaceEvents(PubSub pubsub) {
        this.pubsub = pubsub;
    }

    /**
     * @param classes Redis's flag characters ({@code AKEg$lshzxetdmn})
     * @return the flags, or -1 if a character is not one of them
     */
    static int parse(String classes) {
        int f = 0;
        for (int i = 0; i < classes.length(); i++) {
            switch (classes.charAt(i)) {
                case 'A' -> f |= ALL;
                case 'g' -> f |= GENERIC;
                case '$' -> f |= STRING;
                case 'l' -> f |= LIST;
                case 's' -> f |= SET;
                case 'h' -> f |= HASH;
                case 'z' -> f |= ZSET;
                case 'x' -> f |= EXPIRED;
                case 'e' -> f |= EVICTED;
                case 'K' -> f |= KEYSPACE;
                case 'E' -> f |= KEYEVENT;
                case 't' -> f |= STREAM;
                case 'm' -> f |= KEY_MISS;
                case 'd' -> f |= MODULE;
                case 'n' -> f |= NEW;
                default -> {
                    return -1;
                }
            }
        }
        return f;
    }

    /** @return the flags as Redis writes them back (CONFIG GET): A or the classes and n, then K, E and m */
    static String format(int f) {
        StringBuilder b = new StringBuilder();
        if ((f & ALL) == ALL) {
            b.append('A');
        } else {
            String order = "g$lshzxetd";
            int[] bits = {GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE};
            for (int i = 0; i < bits.length; i++) {
                if ((f & bits[i]) != 0) {
                    b.append(order.charAt(i));
                }
            }
            if ((f & NEW) != 0) {
                b.append('n'); // as Redis 7.0 writes it: not after A, though A with n publishes new keys
            }
        }
        if ((f & KEYSPACE) != 0) {
            b.append('K');
        }
        if ((f & KEYEVENT) != 0) {
            b.append('E');
        }
        if ((f & KEY_MISS) != 0) {
            b.append('m');
        }
        return b.toString();
    }

    /** Sets the classes of events to publish (from {@link #parse}). */
    void enable(int f) {
        flags = f;
    }

    /** @return whether events of a class are published now (so a caller may skip work to detect them) */
    boolean on(int type) {
        int f = flags;
        return (f & type) != 0 && (f & (KEYSPACE | KEYEVENT)) != 0;
    }

    /**
     * Publishes an event of a key, if its class is enabled.
     *
     * @param type  its class ({@link #GENERIC}, {@link #STRING}, {@link #EXPIRED}, {@link #NEW}...)
     * @param event its name ({@code set}, {@code del}, {@code expired}...)
     * @param db    the key's database
     * @param key   the key
     */
    void emit(int type, String event, int db, byte[] key) {
        int f = flags;
        if ((f & type) == 0) {
            return;
        }
        byte[] name = event.getBytes(StandardCharsets.US_ASCII);
        if ((f & KEYSPACE) != 0) {
            pubsub.publish(concat("__keyspace@" + db + "__:", key), name);
        }
        if ((f & KEYEVENT) != 0) {
            pubsub.publish(concat("__keyevent@" + db + "__:", name), key);
        }
    }

    private static byte[] concat(String prefix, byte[] tail) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[p.length + tail.length];
        System.arraycopy(p, 0, out, 0, p.length);
        System.arraycopy(tail, 0, out, p.length, tail.length);
        return out;
    }
}
