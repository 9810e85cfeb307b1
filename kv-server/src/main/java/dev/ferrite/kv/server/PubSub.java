package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's publish/subscribe registry: which connections listen on which channels and
 * patterns ({@link Glob}'s syntax, as Redis's), and the delivery of a PUBLISH to them: the
 * subscribers of the channel first, then those of each matching pattern, each told once per
 * subscription. Messages are not stored: a client that is not subscribed when a message is
 * published never sees it. A connection's own subscriptions are its {@link ClientSession}'s;
 * this class holds the reverse index. Thread-safe: any event loop publishes, subscribes and
 * unsubscribes.
 */
final class PubSub {

    /** One connection, as a receiver of messages. */
    interface Subscriber {
        /**
         * Sends a message to the client after every reply it was given before, from any thread.
         * A client that leaves more output unread than its limit is disconnected instead.
         *
         * @param message the message, released once written
         */
        void push(RedisMessage message);
    }

    /** A channel's or pattern's name: its bytes, compared by content. */
    static final class Name {
        final byte[] bytes;
        private final int hash;

        Name(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Name n && n.hash == hash && Arrays.equals(n.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private static final byte[] MESSAGE = {'m', 'e', 's', 's', 'a', 'g', 'e'};
    private static final byte[] PMESSAGE = {'p', 'm', 'e', 's', 's', 'a', 'g', 'e'};

    private final Map<Name, Set<Subscriber>> channels = new ConcurrentHashMap<>();
    private final Map<Name, Set<Subscriber>> patterns = new ConcurrentHashMap<>();

    /** Adds a subscriber to a channel's; adding it twice is the same as once. */
    void subscribe(Name channel, Subscriber s) {
        add(channels, channel, s);
    }

    /** Removes a subscriber from a channel's; a channel left without any is forgotten. */
    void unsubscribe(Name channel, Subscriber s) {
        remove(channels, channel, s);
    }

    /** Adds a subscriber to a pattern's. */
    void psubscribe(Name pattern, Subscriber s) {
        add(patterns, pattern, s);
    }

    /** Removes a subscriber from a pattern's. */
    void punsubscribe(Name pattern, Subscriber s) {
        remove(patterns, pattern, s);
    }

    private static void add(Map<Name, Set<Subscriber>> index, Name name, Subscriber s) {
        index.compute(name, (k, set) -> {
            Set<Subscriber> to = set == null ? ConcurrentHashMap.newKeySet() : set;
            to.add(s);
            return to;
        });
    }

    private static void remove(Map<Name, Set<Subscriber>> index, Name name, Subscriber s) {
        index.computeIfPresent(name, (k, set) -> {
            set.remove(s);
            return set.isEmpty() ? null : set;
        });
    }

    /**
     * Sends a message to the subscribers of a channel and of every pattern it matches.
     *
     * @return how many subscriptions it was sent to (a client subscribed to the channel and to two
     *         matching patterns counts three times)
     */
    int publish(byte[] channel, byte[] message) {
        int sent = 0;
        Set<Subscriber> direct = channels.get(new Name(channel));
        if (direct != null) {
            for (Subscriber s : direct) {
                s.push(Replies.array(List.of(Replies.bulk(MESSAGE), Replies.bulk(channel), Replies.bulk(message))));
                sent++;
            }
        }
        for (Map.Entry<Name, Set<Subscriber>> p : patterns.entrySet()) {
            byte[] pattern = p.getKey().bytes;
            if (Glob.matches(pattern, channel)) {
                for (Subscriber s : p.getValue()) {
                    s.push(Replies.array(List.of(Replies.bulk(PMESSAGE), Replies.bulk(pattern), Replies.bulk(channel),
                            Replies.bulk(message))));
                    sent++;
                }
            }
        }
        return sent;
    }

    /** @return the channels with at least one subscriber that match a pattern (null: all), in no order */
    List<byte[]> channels(byte[] pattern) {
        List<byte[]> out = new ArrayList<>();
        for (Name n : channels.keySet()) {
            if (pattern == null || Glob.matches(pattern, n.bytes)) {
                out.add(n.bytes);
            }
        }
        return out;
    }

    /** @return how many subscribers a channel has (patterns not counted, as in Redis) */
    int subscribers(byte[] channel) {
        Set<Subscriber> s = channels.get(new Name(channel));
        return s == null ? 0 : s.size();
    }

    /** @return how many distinct patterns have at least one subscriber */
    int patternCount() {
        return patterns.size();
    }

    /** @return how many channels have at least one subscriber */
    int channelCount() {
        return channels.size();
    }
}
