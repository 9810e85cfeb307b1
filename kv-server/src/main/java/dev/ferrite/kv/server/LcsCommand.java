package dev.ferrite.kv.server;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the longest common subsequence of two
 * strings (an absent key is the empty string), its length, or the matching ranges, as Redis 7
 * computes and orders them (dynamic programming over a table of (|a|+1)(|b|+1) ints, refused when
 * that table would pass {@code proto-max-bulk-len} bytes, as Redis refuses it). Stateless.
 */
final class LcsCommand {

    private LcsCommand() {
    }

    static void register(CommandTable.Registry r) {
        r.add("lcs", -3, LcsCommand::lcs);
    }

    private static RedisMessage lcs(ServerContext c, ClientSession s, byte[][] args) {
        boolean len = false;
        boolean idx = false;
        boolean withMatchLen = false;
        long minMatchLen = 0;
        for (int i = 3; i < args.length; i++) {
            String opt = Args.lower(args[i]);
            switch (opt) {
                case "idx" -> idx = true;
                case "len" -> len = true;
                case "withmatchlen" -> withMatchLen = true;
                case "minmatchlen" -> {
                    if (i + 1 >= args.length) {
                        return Replies.SYNTAX;
                    }
                    Long n = Args.parseLong(args[++i]);
                    if (n == null) {
                        return Replies.NOT_INTEGER;
                    }
                    minMatchLen = Math.max(0, n);
                }
                default -> {
                    return Replies.SYNTAX;
                }
            }
        }
        if (len && idx) {
            return Replies.error("ERR If you want both the length and indexes, please just use IDX.");
        }
        Keyspace ks = c.keyspace(s);
        byte[] a = data(ks.string(args[1]));
        byte[] b = data(ks.string(args[2]));
        long cells = (long) (a.length + 1) * (b.length + 1);
        if (cells * Integer.BYTES > c.maxBulkBytes() || cells > Integer.MAX_VALUE - 8) {
            return Replies.error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
        }
        int w = b.length + 1;
        int[] t = new int[(int) cells];
        for (int i = 1; i <= a.length; i++) {
            for (int j = 1; j <= b.length; j++) {
                t[i * w + j] = a[i - 1] == b[j - 1] ? t[(i - 1) * w + j - 1] + 1
                        : Math.max(t[(i - 1) * w + j], t[i * w + j - 1]);
            }
        }
        int total = t[a.length * w + b.length];
        if (len) {
            return Replies.integer(total);
        }
        // Walk back from the end, collecting the subsequence and the ranges of contiguous matches.
        byte[] result = new byte[total];
        List<RedisMessage> matches = new ArrayList<>();
        int k = total;
        int i = a.length;
        int j = b.length;
        int aStart = a.length;
        int aEnd = 0;
        int bStart = 0;
        int bEnd = 0;
        while (i > 0 && j > 0) {
            boolean emit = false;
            if (a[i - 1] == b[j - 1]) {
                result[--k] = a[i - 1];
                if (aStart == a.length) {
                    aStart = i - 1;
                    aEnd = i - 1;
                    bStart = j - 1;
                    bEnd = j - 1;
                } else if (aStart == i && bStart == j) {
                    aStart--;
                    bStart--;
                } else {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0) {
                    emit = true;
                }
                i--;
                j--;
            } else {
                if (t[(i - 1) * w + j] > t[i * w + j - 1]) {
                    i--;
                } else {
                    j--;
                }
                if (aStart != a.length) {
                    emit = true;
                }
            }
            int matchLen = aEnd - aStart + 1;
            if (emit) {
                if (idx && (minMatchLen == 0 || matchLen >= minMatchLen)) {
                    List<RedisMessage> m = new ArrayList<>(3);
                    m.add(Replies.array(List.of(Replies.integer(aStart), Replies.integer(aEnd))));
                    m.add(Replies.array(List.of(Replies.integer(bStart), Replies.integer(bEnd))));
                    if (withMatchLen) {
                        m.add(Replies.integer(matchLen));
                    }
                    matches.add(Replies.array(m));
                }
                aStart = a.length;
            }
        }
        if (!idx) {
            return Replies.bulk(result);
        }
        return Replies.array(List.of(Replies.bulk("matches"), Replies.array(matches), Replies.bulk("len"),
                Replies.integer(total)));
    }

    private static byte[] data(byte[] stored) {
        return stored == null ? new byte[0] : ValueLayout.data(stored);
    }
}
