package dev.ferrite.kv.server;

import dev.ferrite.Segment;
import dev.ferrite.kv.FerriteMap;
import dev.ferrite.kv.ValueUpdater;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;

/**
 * The counter commands on strings: INCR INCRBY DECR DECRBY in 64-bit integers, INCRBYFLOAT in
 * Redis's {@code long double} arithmetic, with Redis's replies and error strings. Each is atomic
 * per key across threads and processes; an integer that keeps its number of digits is changed
 * where it lies in the map. Stateless.
 */
final class CounterCommands {

    private static final RedisMessage NOT_FLOAT = Replies.error("ERR value is not a valid float");
    private static final RedisMessage DECREMENT_OVERFLOW = Replies.error("ERR decrement would overflow");
    /** What INCR and DECR store for an absent key (the map copies it; never changed here). */
    private static final byte[] STORED_ONE = counter(1);
    private static final byte[] STORED_MINUS_ONE = counter(-1);

    private CounterCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("incr", 2, (c, s, a) -> incrBy(c, s, a[1], 1));
        r.add("decr", 2, (c, s, a) -> incrBy(c, s, a[1], -1));
        r.add("incrby", 3, (c, s, a) -> byAmount(c, s, a, false));
        r.add("decrby", 3, (c, s, a) -> byAmount(c, s, a, true));
        r.add("incrbyfloat", 3, CounterCommands::incrByFloat);
    }

    private static RedisMessage byAmount(ServerContext c, ClientSession s, byte[][] a, boolean negate) {
        Long n = Args.parseLong(a[2]);
        if (n == null) {
            return Replies.NOT_INTEGER;
        }
        if (negate && n == Long.MIN_VALUE) {
            return DECREMENT_OVERFLOW; // its negation does not fit
        }
        return incrBy(c, s, a[1], negate ? -n : n);
    }

    /**
     * INCRBY in one pass of the map's zero-copy API where it can: an absent key is stored as
     * {@code delta}; a present one is changed in the map's memory when the number keeps its
     * number of digits (no heap copy of the value). Otherwise (expired, not an integer, overflow,
     * a digit more or less) a compute decides and rewrites the value.
     */
    private static RedisMessage incrBy(ServerContext c, ClientSession s, byte[] key, long delta) {
        Keyspace ks = c.keyspace(s);
        FerriteMap<byte[], byte[]> map = ks.writable();
        InPlaceIncrement inPlace = new InPlaceIncrement(delta);
        byte[] initial = delta == 1 ? STORED_ONE : delta == -1 ? STORED_MINUS_ONE : counter(delta);
        if (!map.updateValueOrPut(key, inPlace, initial)) {
            ks.wrote(key, null, 0, KeyspaceEvents.STRING, "incrby");
            return Replies.integer(delta);
        }
        if (inPlace.reply != null) {
            if (inPlace.reply instanceof IntegerRedisMessage) {
                ks.emit(key, KeyspaceEvents.STRING, "incrby");
            }
            return inPlace.reply;
        }
        RedisMessage[] reply = {null};
        byte[][] before = {null};
        long now = System.currentTimeMillis();
        map.compute(key, (k, stored) -> {
            if (stored != null) {
                Keyspace.checkString(k, stored);
            }
            before[0] = stored;
            byte[] current = Keyspace.liveAt(stored, now);
            long value = 0;
            if (current != null) {
                Long parsed = Args.parseLong(current, ValueLayout.DATA, current.length - ValueLayout.DATA);
                if (parsed == null) {
                    reply[0] = Replies.NOT_INTEGER;
                    return current;
                }
                value = parsed;
            }
            if (overflows(value, delta)) {
                reply[0] = Replies.OVERFLOW;
                return current;
            }
            long next = value + delta;
            reply[0] = Replies.integer(next);
            long at = current == null ? ValueLayout.NO_EXPIRY : ValueLayout.expireAt(current);
            return ValueLayout.encode(at, Long.toString(next).getBytes(StandardCharsets.US_ASCII));
        });
        StringCommands.published(ks, key, before[0], now, !Replies.isError(reply[0]), "incrby");
        return reply[0];
    }

    /** @return a counter's stored form: no expiry, the number in decimal */
    private static byte[] counter(long value) {
        return ValueLayout.encode(ValueLayout.NO_EXPIRY, Long.toString(value).getBytes(StandardCharsets.US_ASCII));
    }

    private static boolean overflows(long value, long delta) {
        return delta > 0 ? value > Long.MAX_VALUE - delta : value < Long.MIN_VALUE - delta;
    }

    /**
     * The in-place INCRBY: under the entry's lock, reads the digits where they lie and writes the
     * new number over them when it has as many digits. Leaves {@link #reply} null when the value
     * must be rewritten instead (expired, or the number changes length). Reads the clock only for
     * a value with an expiry, and makes no String for the new number.
     */
    private static final class InPlaceIncrement implements ValueUpdater {
        private final long delta;
        private final byte[] digits = new byte[20];
        RedisMessage reply;

        InPlaceIncrement(long delta) {
            this.delta = delta;
        }

        @Override
        public void update(Segment segment, long offset, int length) {
            int n = length - ValueLayout.DATA;
            if (n < 0) {
                return; // not the server's layout: the compute path reports it
            }
            long word = segment.getLong(offset + ValueLayout.EXPIRE_AT);
            long at = ValueLayout.expireAtOfWord(word);
            if (at != ValueLayout.NO_EXPIRY && at <= System.currentTimeMillis()) {
                return; // expired: counts as absent, rewritten from 0
            }
            if ((word & ValueLayout.FORM_MASK) == ValueLayout.COLLECTION) {
                return; // a collection: the compute path answers WRONGTYPE
            }
            if (n == 0 || n > digits.length) {
                reply = Replies.NOT_INTEGER;
                return;
            }
            segment.copyTo(offset + ValueLayout.DATA, digits, 0, n);
            Long value = Args.parseLong(digits, 0, n);
            if (value == null) {
                reply = Replies.NOT_INTEGER;
                return;
            }
            if (overflows(value, delta)) {
                reply = Replies.OVERFLOW;
                return;
            }
            long next = value + delta;
            if (Args.writeDecimal(next, digits) == n) {
                segment.copyFrom(digits, 0, offset + ValueLayout.DATA, n);
                if (word != at) {
                    segment.putLong(offset + ValueLayout.EXPIRE_AT, at); // a number now, as INCR writes it
                }
                reply = Replies.integer(next);
            }
        }
    }

    /**
     * INCRBYFLOAT in Redis's {@code long double} arithmetic ({@link LongDouble}). The increment is
     * read before the entry is locked: Redis reads the stored value first, but either one that is
     * not a float gets the same error, so the order cannot be told apart.
     */
    private static RedisMessage incrByFloat(ServerContext c, ClientSession s, byte[][] a) {
        LongDouble.Value delta = LongDouble.parse(a[2]);
        if (delta == null) {
            c.keyspace(s).string(a[1]); // Redis's order: a key of another type is WRONGTYPE first
            return NOT_FLOAT;
        }
        long now = System.currentTimeMillis();
        RedisMessage[] reply = {null};
        byte[][] before = {null};
        c.writable(s).compute(a[1], (k, stored) -> {
            if (stored != null) {
                Keyspace.checkString(k, stored);
            }
            before[0] = stored;
            byte[] current = Keyspace.liveAt(stored, now);
            LongDouble.Value value = current == null ? LongDouble.ZERO : LongDouble.parse(ValueLayout.data(current));
            if (value == null) {
                reply[0] = NOT_FLOAT;
                return current;
            }
            LongDouble.Value next = LongDouble.add(value, delta);
            if (next.infinite()) {
                reply[0] = Replies.error("ERR increment would produce NaN or Infinity");
                return current;
            }
            byte[] text = LongDouble.format(next.value()).getBytes(StandardCharsets.US_ASCII);
            reply[0] = Replies.bulk(text);
            byte[] out = ValueLayout.encode(current == null ? ValueLayout.NO_EXPIRY : ValueLayout.expireAt(current), text);
            ValueLayout.setForm(out, ValueLayout.TEXT);
            return out;
        });
        StringCommands.published(c.keyspace(s), a[1], before[0], now, !Replies.isError(reply[0]), "incrbyfloat");
        return reply[0];
    }
}
