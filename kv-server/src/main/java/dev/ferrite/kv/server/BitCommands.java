package dev.ferrite.kv.server;

import dev.ferrite.kv.FerriteMap;
import io.netty.handler.codec.redis.RedisMessage;

/**
 * Bit commands on strings: SETBIT GETBIT BITCOUNT BITPOS, with Redis 7's BYTE and BIT ranges, its
 * replies and errors. Bit 0 is the most significant bit of the first byte. SETBIT grows the string
 * with zero bytes and keeps the key's expiry; it is atomic per key. Stateless.
 */
final class BitCommands {

    private static final RedisMessage BAD_OFFSET = Replies.error("ERR bit offset is not an integer or out of range");
    private static final RedisMessage BAD_BIT = Replies.error("ERR bit is not an integer or out of range");
    private static final RedisMessage BAD_BITPOS_BIT = Replies.error("ERR The bit argument must be 1 or 0.");

    private BitCommands() {
    }

    static void register(CommandTable.Registry r) {
        r.add("setbit", 4, BitCommands::setBit);
        r.add("getbit", 3, BitCommands::getBit);
        r.add("bitcount", -2, BitCommands::bitCount);
        r.add("bitpos", -3, BitCommands::bitPos);
    }

    /** @return the bit offset, or null if it is not one of 0 to the longest value's bits - 1 */
    private static Long offset(byte[] arg, long maxBytes) {
        Long n = Args.parseLong(arg);
        return n == null || n < 0 || (n >> 3) >= maxBytes ? null : n;
    }

    private static RedisMessage setBit(ServerContext c, ClientSession s, byte[][] a) {
        Long offset = offset(a[2], c.maxBulkBytes());
        if (offset == null) {
            return BAD_OFFSET;
        }
        Long bit = Args.parseLong(a[3]);
        if (bit == null || (bit != 0 && bit != 1)) {
            return BAD_BIT;
        }
        FerriteMap<byte[], byte[]> map = c.writable(s);
        int byteAt = (int) (offset >> 3);
        int mask = 1 << (7 - (int) (offset & 7));
        long now = System.currentTimeMillis();
        int[] old = {0};
        byte[][] before = {null};
        map.compute(a[1], (k, stored) -> {
            if (stored != null) {
                Keyspace.checkString(k, stored);
            }
            before[0] = stored;
            byte[] current = Keyspace.liveAt(stored, now);
            int length = current == null ? 0 : current.length - ValueLayout.DATA;
            byte[] out = new byte[ValueLayout.DATA + Math.max(length, byteAt + 1)];
            if (current != null) {
                System.arraycopy(current, 0, out, 0, current.length);
            }
            int i = ValueLayout.DATA + byteAt;
            old[0] = (out[i] & mask) != 0 ? 1 : 0;
            out[i] = (byte) (bit == 1 ? out[i] | mask : out[i] & ~mask);
            ValueLayout.setForm(out, ValueLayout.EDITED);
            return out;
        });
        c.keyspace(s).wrote(a[1], before[0], now, KeyspaceEvents.STRING, "setbit");
        return Replies.integer(old[0]);
    }

    private static RedisMessage getBit(ServerContext c, ClientSession s, byte[][] a) {
        Long offset = offset(a[2], c.maxBulkBytes());
        if (offset == null) {
            return BAD_OFFSET;
        }
        byte[] v = c.keyspace(s).string(a[1]);
        long byteAt = offset >> 3;
        if (v == null || byteAt >= v.length - ValueLayout.DATA) {
            return Replies.ZERO;
        }
        return Replies.integer((v[ValueLayout.DATA + (int) byteAt] >> (7 - (int) (offset & 7))) & 1);
    }

    /** A range of a string as Redis's BITCOUNT and BITPOS resolve it: bytes, and masks of the edge bits outside it. */
    private record Range(long start, long end, int firstMask, int lastMask) {
    }

    /**
     * Resolves start and end (negative from the end) over a string of {@code length} bytes, in
     * bytes or in bits, as Redis does.
     */
    private static Range range(long start, long end, long length, boolean bits) {
        long total = bits ? length << 3 : length;
        if (start < 0) {
            start = total + start;
        }
        if (end < 0) {
            end = total + end;
        }
        start = Math.max(0, start);
        end = Math.max(0, end);
        end = Math.min(end, total - 1);
        int firstMask = 0;
        int lastMask = 0;
        if (bits && start <= end) {
            firstMask = ~((1 << (8 - (int) (start & 7))) - 1) & 0xFF;
            lastMask = (1 << (7 - (int) (end & 7))) - 1;
            start >>= 3;
            end >>= 3;
        }
        return new Range(start, end, firstMask, lastMask);
    }

    /** @return whether the unit argument says bits; null if it is neither BYTE nor BIT */
    private static Boolean unit(byte[] arg) {
        String u = Args.lower(arg);
        return u.equals("bit") ? Boolean.TRUE : u.equals("byte") ? Boolean.FALSE : null;
    }

    private static RedisMessage bitCount(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length != 2 && a.length != 4 && a.length != 5) {
            return Replies.SYNTAX;
        }
        long start = 0;
        long end = -1;
        boolean bits = false;
        if (a.length > 2) {
            Long st = Args.parseLong(a[2]);
            Long en = Args.parseLong(a[3]);
            if (st == null || en == null) {
                return Replies.NOT_INTEGER;
            }
            start = st;
            end = en;
            if (a.length == 5) {
                Boolean u = unit(a[4]);
                if (u == null) {
                    return Replies.SYNTAX;
                }
                bits = u;
            }
        }
        byte[] v = c.keyspace(s).string(a[1]);
        if (v == null) {
            return Replies.ZERO;
        }
        long length = v.length - ValueLayout.DATA;
        if (a.length > 2 && start < 0 && end < 0 && start > end) {
            return Replies.ZERO;
        }
        Range r = a.length > 2 ? range(start, end, length, bits) : new Range(0, length - 1, 0, 0);
        if (r.start() > r.end()) {
            return Replies.ZERO;
        }
        long count = 0;
        for (long i = r.start(); i <= r.end(); i++) {
            count += Integer.bitCount(v[ValueLayout.DATA + (int) i] & 0xFF);
        }
        if (r.firstMask() != 0) {
            count -= Integer.bitCount(v[ValueLayout.DATA + (int) r.start()] & r.firstMask());
        }
        if (r.lastMask() != 0) {
            count -= Integer.bitCount(v[ValueLayout.DATA + (int) r.end()] & r.lastMask());
        }
        return Replies.integer(count);
    }

    private static RedisMessage bitPos(ServerContext c, ClientSession s, byte[][] a) {
        if (a.length > 6) {
            return Replies.SYNTAX;
        }
        Long bit = Args.parseLong(a[2]);
        if (bit == null) {
            return Replies.NOT_INTEGER;
        }
        if (bit != 0 && bit != 1) {
            return BAD_BITPOS_BIT;
        }
        byte[] v = c.keyspace(s).string(a[1]);
        if (v == null) {
            return Replies.integer(bit == 1 ? -1 : 0);
        }
        long length = v.length - ValueLayout.DATA;
        boolean endGiven = a.length >= 5;
        Range r;
        if (a.length >= 4) {
            Long start = Args.parseLong(a[3]);
            if (start == null) {
                return Replies.NOT_INTEGER;
            }
            boolean bits = false;
            if (a.length == 6) {
                Boolean u = unit(a[5]);
                if (u == null) {
                    return Replies.SYNTAX;
                }
                bits = u;
            }
            long end;
            if (endGiven) {
                Long e = Args.parseLong(a[4]);
                if (e == null) {
                    return Replies.NOT_INTEGER;
                }
                end = e;
            } else {
                end = bits ? (length << 3) + 7 : length - 1;
            }
            r = range(start, end, length, bits);
        } else {
            r = new Range(0, length - 1, 0, 0);
        }
        if (r.start() > r.end()) {
            return Replies.integer(-1);
        }
        // Look at every byte of the range with the bits outside it set to what is not looked for.
        long bytes = r.end() - r.start() + 1;
        for (long i = 0; i < bytes; i++) {
            int b = v[ValueLayout.DATA + (int) (r.start() + i)] & 0xFF;
            int outside = (i == 0 ? r.firstMask() : 0) | (i == bytes - 1 ? r.lastMask() : 0);
            b = bit == 1 ? b & ~outside : (b | outside) & 0xFF;
            int found = bit == 1 ? (b == 0 ? -1 : Integer.numberOfLeadingZeros(b) - 24)
                    : (b == 0xFF ? -1 : Integer.numberOfLeadingZeros(~b & 0xFF) - 24);
            if (found >= 0) {
                return Replies.integer(((r.start() + i) << 3) + found);
            }
        }
        // Not found. Looking for a clear bit with no end given, the string goes on with zeros.
        if (bit == 0 && !endGiven) {
            return Replies.integer((r.end() + 1) << 3);
        }
        return Replies.integer(-1);
    }
}
